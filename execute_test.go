package toolreg_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// syncBuffer is a log sink safe for the goroutines a timed-out call leaves.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func executeLogger(level slog.Level) (*slog.Logger, *syncBuffer) {
	var b syncBuffer
	return slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: level})), &b
}

func TestTimeoutHoldsWhenTheHandlerIgnoresItsContext(t *testing.T) {
	release := make(chan struct{})
	finished := make(chan struct{})
	stubborn := func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		defer close(finished)
		<-release // ignores ctx on purpose
		return "late", nil
	}
	tests := []struct {
		name string
		opts []toolreg.Option
		tool time.Duration
	}{
		{"a tool timeout", nil, 20 * time.Millisecond},
		{"the registry default", []toolreg.Option{toolreg.WithDefaultTimeout(20 * time.Millisecond)}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			release = make(chan struct{})
			finished = make(chan struct{})
			logger, logs := executeLogger(slog.LevelWarn)
			r := toolreg.New(append(tc.opts, toolreg.WithLogger(logger))...)
			tool := newTool("slow", "", nil)
			tool.Handler, tool.Timeout = stubborn, tc.tool
			mustRegister(t, r, tool, "p")

			msg, code := failureOf(t, r.Execute(context.Background(), "slow", nil, toolreg.CallContext{}))
			assert.Equal(t, toolreg.CodeTimeout, code)
			assert.Contains(t, msg, "20ms")

			close(release)
			<-finished
			require.Eventually(t, func() bool { return strings.Contains(logs.String(), "late results dropped") },
				time.Second, time.Millisecond, "the late result is logged")
			assert.Equal(t, uint64(1), r.Stats().LateResults)
		})
	}
}

func TestAHandlerThatHonoursItsContextTimesOut(t *testing.T) {
	r := toolreg.New()
	tool := newTool("slow", "", nil)
	tool.Timeout = 10 * time.Millisecond
	tool.Handler = func(ctx context.Context, _ map[string]any, _ toolreg.CallContext) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	mustRegister(t, r, tool, "p")

	_, code := failureOf(t, r.Execute(context.Background(), "slow", nil, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeTimeout, code)
}

func TestCallerContext(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancelExpired := context.WithTimeout(context.Background(), -time.Second)
	defer cancelExpired()
	tests := []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"canceled before the handler", canceled, toolreg.CodeCanceled},
		{"deadline passed before the handler", expired, toolreg.CodeTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := toolreg.New()
			var runs atomic.Int32
			tool := newTool("act", "", nil)
			tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
				runs.Add(1)
				return "ran", nil
			}
			mustRegister(t, r, tool, "p")

			_, code := failureOf(t, r.Execute(tc.ctx, "act", nil, toolreg.CallContext{}))
			assert.Equal(t, tc.want, code)
			assert.EqualValues(t, 0, runs.Load(), "the handler must not run")
		})
	}
}

func TestCancelDuringAHandlerThatIgnoresIt(t *testing.T) {
	r := toolreg.New()
	release, started, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	tool := newTool("act", "", nil)
	tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		defer close(finished)
		close(started)
		<-release
		return "late", nil
	}
	mustRegister(t, r, tool, "p")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()

	_, code := failureOf(t, r.Execute(ctx, "act", nil, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeCanceled, code)
	close(release)
	<-finished
}

func TestPanicsAreContained(t *testing.T) {
	logger, logs := executeLogger(slog.LevelDebug)
	r := toolreg.New(toolreg.WithLogger(logger), toolreg.WithDefaultTimeout(time.Second))
	tool := newTool("buggy", "", nil)
	tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		var m map[string]int
		//lint:ignore SA5000 a runtime panic, not a panic(value), is what this test needs
		m["boom"] = 1
		return "", nil
	}
	mustRegister(t, r, tool, "p")
	inline := newTool("buggy_inline", "", nil)
	inline.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		panic("secret panic value")
	}
	mustRegister(t, r, inline, "p")

	for _, name := range []string{"buggy", "buggy_inline"} {
		t.Run(name+" reads as a failure, with details only in the log", func(t *testing.T) {
			msg, code := failureOf(t, r.Execute(context.Background(), name, nil, toolreg.CallContext{}))
			assert.Equal(t, toolreg.CodePanic, code)
			assert.Contains(t, msg, "failed unexpectedly")
			assert.NotContains(t, msg, "secret")
			assert.NotContains(t, msg, "nil map")
		})
	}
	assert.Contains(t, logs.String(), "secret panic value")
	assert.Contains(t, logs.String(), "assignment to entry in nil map")
	assert.Contains(t, logs.String(), "stack=", "the stack goes to the log")
}

func TestRestrictedExecutionsAreLoggedWithoutArgumentValues(t *testing.T) {
	logger, logs := executeLogger(slog.LevelInfo)
	r := toolreg.New(toolreg.WithLogger(logger))
	tool := newTool("read_secret", "ok", map[string]any{"path": str(), "token": str()}, "path")
	tool.Risk = toolreg.RiskSensitive
	mustRegister(t, r, tool, "p")

	r.Execute(context.Background(), "read_secret", map[string]any{"path": "/etc/VALUE1", "token": "VALUE2"},
		toolreg.CallContext{SessionID: "sess-9", Platform: "telegram"})
	out := logs.String()
	assert.Contains(t, out, "read_secret")
	assert.Contains(t, out, "sess-9")
	assert.Contains(t, out, "telegram")
	assert.Contains(t, out, "arg_count=2")
	assert.NotContains(t, out, "VALUE")
}

func TestNoLogLineCarriesArgumentValues(t *testing.T) {
	logger, logs := executeLogger(slog.LevelDebug)
	r := toolreg.New(toolreg.WithLogger(logger), toolreg.WithDefaultTimeout(5*time.Millisecond))
	props := map[string]any{"q": str()}
	mustRegister(t, r, newTool("ok_tool", "fine", props), "p")
	restricted := newTool("restricted", "fine", props)
	restricted.Visibility = toolreg.VisibilityRestricted
	mustRegister(t, r, restricted, "p")
	slow := newTool("slow", "", props)
	done := make(chan struct{})
	slow.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		<-done
		return "", nil
	}
	mustRegister(t, r, slow, "p")
	panicking := newTool("panicking", "", props)
	panicking.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		panic(fmt.Sprintf("cannot handle %v", args["q"]))
	}
	mustRegister(t, r, panicking, "p")
	denying := toolreg.New(toolreg.WithLogger(logger), toolreg.WithFailClosed())
	mustRegister(t, denying, restricted, "p")

	args := map[string]any{"q": "SECRET-VALUE"}
	for _, name := range []string{"ok_tool", "restricted", "slow", "panicking", "missing"} {
		r.Execute(context.Background(), name, args, toolreg.CallContext{})
	}
	denying.Execute(context.Background(), "restricted", args, toolreg.CallContext{})
	r.ExecuteJSON(context.Background(), "ok_tool", `{"q":"SECRET-VALUE"`, toolreg.CallContext{})
	close(done)
	require.Eventually(t, func() bool { return r.Stats().LateResults == 1 }, 5*time.Second, time.Millisecond,
		"the slow call's late result has been logged")

	assert.Contains(t, logs.String(), "recovered panic in handler")
	assert.Contains(t, logs.String(), "late results dropped")
	assert.Contains(t, logs.String(), "restricted tool executed")
	assert.NotContains(t, logs.String(), "SECRET-VALUE")
}

func TestPanicValuesAreLoggedShortAndRedactedUnlessAsked(t *testing.T) {
	long := "boom " + strings.Repeat("x", 1000)
	tests := []struct {
		name       string
		opts       []toolreg.Option
		wantFull   bool
		wantSecret bool
	}{
		{"by default", nil, false, false},
		{"with WithPanicValues", []toolreg.Option{toolreg.WithPanicValues()}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger, logs := executeLogger(slog.LevelDebug)
			r := toolreg.New(append(tc.opts, toolreg.WithLogger(logger))...)
			tool := newTool("crash", "", map[string]any{"pin": map[string]any{"type": "string", "x-sensitive": true}})
			tool.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
				panic(fmt.Errorf("pin %v rejected: %s", args["pin"], long))
			}
			mustRegister(t, r, tool, "p")
			r.Execute(context.Background(), "crash", map[string]any{"pin": "4711"}, toolreg.CallContext{})
			out := logs.String()
			assert.Contains(t, out, "panic_type=*errors.errorString")
			assert.Contains(t, out, "stack=")
			assert.Contains(t, out, "pin [redacted] rejected")
			assert.NotContains(t, out, "4711")
			assert.Equal(t, tc.wantFull, strings.Contains(out, strings.Repeat("x", 900)))
		})
	}
}
