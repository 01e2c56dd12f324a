package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/toolreg/toolreg/authority/redisstore"
)

// redisAddr is the address of the redis-server that TestMain started.
var redisAddr string

// TestMain starts a real redis-server on a free loopback port for the
// package's tests and stops it afterwards. Without redis-server the tests
// fail: they are never skipped.
func TestMain(m *testing.M) {
	stop, err := startRedis()
	if err != nil {
		fmt.Fprintln(os.Stderr, "redisstore tests need a redis-server:", err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func startRedis() (stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("%w (on Debian: apt-get install redis-server)", err)
	}
	dir, err := os.MkdirTemp("", "redisstore-test-")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
		os.RemoveAll(dir)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = c.Ping(ctx).Err()
		cancel()
		if err == nil {
			redisAddr = addr
			return stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return nil, errors.Join(fmt.Errorf("redis-server did not answer on %s", addr), err, errors.New(string(log)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// newClient returns a client of the test server, closed when t ends.
func newClient(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: redisAddr})
	t.Cleanup(func() { c.Close() })
	return c
}

var prefixes atomic.Int64

// newPrefix returns a key prefix no other test uses, with a hash tag.
func newPrefix() string {
	return fmt.Sprintf("{test-%d-%d}:", time.Now().UnixNano(), prefixes.Add(1))
}

// newStore returns a store with its own prefix on its own client.
func newStore(t testing.TB) *redisstore.Store {
	return redisstore.New(newClient(t), redisstore.WithPrefix(newPrefix()))
}
