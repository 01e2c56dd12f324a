package authority_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg/authority"
	"github.com/toolreg/toolreg/authority/storetest"
)

func TestFileStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) authority.Store {
		s, err := authority.OpenFileStore(filepath.Join(t.TempDir(), "authority.json"))
		require.NoError(t, err)
		return s
	})
}

// TestFileStoreConformanceAcrossRestarts runs the suite against a store
// that is reopened from its file before every operation, so every record
// and every change must survive a restart.
func TestFileStoreConformanceAcrossRestarts(t *testing.T) {
	storetest.Run(t, func(t *testing.T) authority.Store {
		return &reopening{t: t, path: filepath.Join(t.TempDir(), "authority.json")}
	})
}

// reopening is a Store that opens its file afresh for each operation, as a
// process restarted between every two calls would.
type reopening struct {
	t    *testing.T
	path string
	mu   sync.Mutex // one process at a time
}

func (r *reopening) open() *authority.FileStore {
	s, err := authority.OpenFileStore(r.path)
	if err != nil {
		r.t.Errorf("reopen: %v", err)
		s, _ = authority.OpenFileStore(filepath.Join(r.t.TempDir(), "empty.json"))
	}
	return s
}

func (r *reopening) Level(ctx context.Context, id authority.Identity) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().Level(ctx, id)
}

func (r *reopening) SetLevel(ctx context.Context, id authority.Identity, level int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().SetLevel(ctx, id, level)
}

func (r *reopening) PutGrant(ctx context.Context, g authority.Grant, limit int, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().PutGrant(ctx, g, limit, now)
}

func (r *reopening) UseGrant(ctx context.Context, k authority.Key, now time.Time) (authority.Grant, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().UseGrant(ctx, k, now)
}

func (r *reopening) Grants(ctx context.Context, id authority.Identity, session string, now time.Time) ([]authority.Grant, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().Grants(ctx, id, session, now)
}

func (r *reopening) DeleteGrant(ctx context.Context, k authority.Key) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().DeleteGrant(ctx, k)
}

func (r *reopening) OpenRequest(ctx context.Context, req authority.Request, limit int, now time.Time) (authority.Request, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().OpenRequest(ctx, req, limit, now)
}

func (r *reopening) Request(ctx context.Context, id string, now time.Time) (authority.Request, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().Request(ctx, id, now)
}

func (r *reopening) ResolveRequest(ctx context.Context, id string, approve bool, expires, now time.Time) (authority.Request, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().ResolveRequest(ctx, id, approve, expires, now)
}

func (r *reopening) TakeDecision(ctx context.Context, k authority.Key, now time.Time) (authority.Request, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open().TakeDecision(ctx, k, now)
}

// seedFile writes a store with a level, a grant and a pending request to a
// new file and returns its path and content.
func seedFile(t *testing.T) (string, []byte) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	path := filepath.Join(t.TempDir(), "authority.json")
	s, err := authority.OpenFileStore(path)
	require.NoError(t, err)
	alice := authority.Identity{Platform: "chat", UserID: "alice"}
	require.NoError(t, s.SetLevel(ctx, alice, 2))
	require.NoError(t, s.PutGrant(ctx, authority.Grant{Key: authority.Key{Identity: alice, SessionID: "s1", Capability: "tool:rm"},
		UsesLeft: 3, Expires: now.Add(time.Hour), Authorizes: true}, 0, now))
	_, err = s.OpenRequest(ctx, authority.Request{ID: "r1", Key: authority.Key{Identity: alice, SessionID: "s1", Capability: "tool:rm", Digest: "d"},
		Tool: "rm", Args: json.RawMessage(`{"path":"/x"}`), State: authority.RequestPending, Created: now, Expires: now.Add(time.Hour)}, 0, now)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return path, data
}

func TestFileStoreKeepsStateAcrossRestart(t *testing.T) {
	ctx := context.Background()
	path, _ := seedFile(t)
	s, err := authority.OpenFileStore(path)
	require.NoError(t, err)
	alice := authority.Identity{Platform: "chat", UserID: "alice"}
	level, err := s.Level(ctx, alice)
	require.NoError(t, err)
	assert.Equal(t, 2, level)
	g, ok, err := s.UseGrant(ctx, authority.Key{Identity: alice, SessionID: "s1", Capability: "tool:rm"}, time.Now())
	require.NoError(t, err)
	require.True(t, ok, "the grant survived the restart")
	assert.Equal(t, 3, g.UsesLeft)
	assert.True(t, g.Authorizes)
	r, ok, err := s.Request(ctx, "r1", time.Now())
	require.NoError(t, err)
	require.True(t, ok, "the pending request survived the restart")
	assert.JSONEq(t, `{"path":"/x"}`, string(r.Args))

	// The use taken above is kept too.
	s2, err := authority.OpenFileStore(path)
	require.NoError(t, err)
	g, _, err = s2.UseGrant(ctx, authority.Key{Identity: alice, SessionID: "s1", Capability: "tool:rm"}, time.Now())
	require.NoError(t, err)
	assert.Equal(t, 2, g.UsesLeft)
}

func TestFileStoreFailsLoudlyOnADamagedFile(t *testing.T) {
	_, good := seedFile(t)
	tests := []struct {
		name    string
		content []byte
		says    string
	}{
		{"an empty file", []byte{}, "empty"},
		{"only white space", []byte("  \n"), "empty"},
		{"a file cut in half", good[:len(good)/2], "truncated"},
		{"a file missing its last byte", good[:len(good)-2], "truncated"},
		{"not JSON", []byte("levels: 3"), "invalid character"},
		{"a JSON array", []byte("[]"), "cannot unmarshal"},
		{"another format", []byte(`{"format":"x","version":1,"levels":[],"grants":[],"requests":[]}`), "format"},
		{"a future version", []byte(`{"format":"toolreg-authority","version":2,"levels":[],"grants":[],"requests":[]}`), "version 2"},
		{"an unknown field", []byte(`{"format":"toolreg-authority","version":1,"levels":[],"grants":[],"requests":[],"x":1}`), "unknown field"},
		{"data after the object", append(append([]byte{}, good...), []byte(`{}`)...), "follows"},
		{"a grant without uses", []byte(`{"format":"toolreg-authority","version":1,"levels":[],"requests":[],
			"grants":[{"platform":"p","user_id":"u","session_id":"s","capability":"tool:x","digest":"","uses_left":0,"expires":"2030-01-01T00:00:00Z","authorizes":false}]}`), "uses left"},
		{"a duplicate level", []byte(`{"format":"toolreg-authority","version":1,"grants":[],"requests":[],
			"levels":[{"platform":"p","user_id":"u","level":1},{"platform":"p","user_id":"u","level":2}]}`), "duplicate"},
		{"a stored default level", []byte(`{"format":"toolreg-authority","version":1,"grants":[],"requests":[],
			"levels":[{"platform":"p","user_id":"u","level":0}]}`), "default level"},
		{"a request in an unknown state", []byte(`{"format":"toolreg-authority","version":1,"levels":[],"grants":[],
			"requests":[{"id":"r","key":{"platform":"p","user_id":"u","session_id":"s","capability":"tool:x","digest":"d"},"tool":"x","state":"maybe","created":"2030-01-01T00:00:00Z","expires":"2030-01-01T00:00:00Z"}]}`), "state"},
		{"invalid UTF-8 in a user id", []byte("{\"format\":\"toolreg-authority\",\"version\":1,\"grants\":[],\"requests\":[],\"levels\":[{\"platform\":\"p\",\"user_id\":\"\xff\",\"level\":1}]}"), "invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name+" fails at load", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "authority.json")
			require.NoError(t, os.WriteFile(path, tc.content, 0o600))
			s, err := authority.OpenFileStore(path)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.ErrorIs(t, err, authority.ErrCorrupt)
			assert.Contains(t, err.Error(), path, "the error names the file")
			assert.Contains(t, err.Error(), tc.says)
		})
	}
}

func TestFileStoreStartsEmptyWithoutAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authority.json")
	s, err := authority.OpenFileStore(path)
	require.NoError(t, err)
	assert.Equal(t, path, s.Path())
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err), "opening writes nothing")

	_, err = authority.OpenFileStore(filepath.Join(t.TempDir(), "missing", "authority.json"))
	require.NoError(t, err, "a missing folder is found at the first write, not at open")
}

func TestFileStoreWritesAtomically(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "authority.json")
	s, err := authority.OpenFileStore(path)
	require.NoError(t, err)
	alice := authority.Identity{Platform: "chat", UserID: "alice"}
	require.NoError(t, s.SetLevel(ctx, alice, 2))

	t.Run("no temporary file is left and the file is private", func(t *testing.T) {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, entries, 1)
		info, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	})
	t.Run("a failed write changes neither the file nor the store", func(t *testing.T) {
		before, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.Chmod(dir, 0o500)) // no new temporary file can be made
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		if os.Getuid() == 0 {
			// root ignores folder permissions: make the temporary file's
			// place a dangling path instead.
			require.NoError(t, os.Chmod(dir, 0o700))
			require.NoError(t, os.Rename(dir, dir+".moved"))
			t.Cleanup(func() { os.Rename(dir+".moved", dir) })
		}
		err = s.SetLevel(ctx, alice, 5)
		require.Error(t, err)
		assert.Contains(t, err.Error(), path)
		level, err := s.Level(ctx, alice)
		require.NoError(t, err)
		assert.Equal(t, 2, level, "the store kept its state")
		if os.Getuid() == 0 {
			require.NoError(t, os.Rename(dir+".moved", dir))
		} else {
			require.NoError(t, os.Chmod(dir, 0o700))
		}
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, before, after)
	})
}

func TestFileStoreFileIsByteStable(t *testing.T) {
	ctx := context.Background()
	now := time.UnixMilli(1_760_000_000_000)
	write := func(order []int) []byte {
		path := filepath.Join(t.TempDir(), "authority.json")
		s, err := authority.OpenFileStore(path)
		require.NoError(t, err)
		for _, i := range order {
			id := authority.Identity{Platform: "chat", UserID: string(rune('a' + i))}
			require.NoError(t, s.SetLevel(ctx, id, i+1))
			require.NoError(t, s.PutGrant(ctx, authority.Grant{Key: authority.Key{Identity: id, SessionID: "s", Capability: "tool:x"},
				UsesLeft: 1, Expires: now.Add(time.Hour)}, 0, now))
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return data
	}
	assert.Equal(t, string(write([]int{0, 1, 2, 3})), string(write([]int{3, 1, 0, 2})),
		"the same state gives the same file whatever order it was built in")
}
