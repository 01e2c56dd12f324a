package toolreg_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// Hostile values that user code hands back to the registry.

// panicky is a value whose String and Error methods panic, with a value
// whose own String panics: printing it the usual way panics while printing
// the panic value.
type panicky struct{ depth int }

func (p panicky) String() string {
	if p.depth > 0 {
		panic(panicky{depth: p.depth - 1})
	}
	panic("String exploded")
}

func (p panicky) Error() string { return p.String() }

// myErr is an error type whose nil pointer, returned as an error, makes a
// typed-nil error.
type myErr struct{ msg string }

func (e *myErr) Error() string { return e.msg } // panics on a nil receiver

// loopErr unwraps to itself forever.
type loopErr struct{}

func (e *loopErr) Error() string { return "loop" }
func (e *loopErr) Unwrap() error { return e }

// isPanics panics in Is.
type isPanics struct{}

func (isPanics) Error() string { return "is panics" }
func (isPanics) Is(error) bool { panic("Is exploded") }
func (isPanics) Unwrap() error { return nil }
func typedNil() error          { var e *myErr; return e }
func guardReturning(err error) toolreg.ExecutionGuard {
	return func(context.Context, toolreg.GuardRequest) error { return err }
}

func hostileRegistry(t *testing.T, opts ...toolreg.Option) (*toolreg.Registry, *atomic.Int32) {
	t.Helper()
	r := toolreg.New(opts...)
	var runs atomic.Int32
	tool := newTool("act", "done", map[string]any{"q": str()})
	tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		runs.Add(1)
		return "done", nil
	}
	mustRegister(t, r, tool, "p")
	return r, &runs
}

func TestAGuardsHostileAnswerDeniesWithoutCrashing(t *testing.T) {
	tests := []struct {
		name  string
		guard toolreg.ExecutionGuard
	}{
		{"a typed-nil error", guardReturning(typedNil())},
		{"an error whose Error panics", guardReturning(panicky{depth: 3})},
		{"an error that unwraps to itself", guardReturning(&loopErr{})},
		{"an error whose Is panics", guardReturning(isPanics{})},
		{"a panic with a value whose String panics", func(context.Context, toolreg.GuardRequest) error { panic(panicky{depth: 3}) }},
		{"a panic with an error value", func(context.Context, toolreg.GuardRequest) error { panic(errors.New("boom")) }},
		{"a runtime error", func(context.Context, toolreg.GuardRequest) error {
			var m map[string]int
			//lint:ignore SA5000 the nil map write is the runtime error under test
			m["x"]++
			return nil
		}},
		{"a panic with a nil error", func(context.Context, toolreg.GuardRequest) error { panic(error(nil)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger, logs := executeLogger(slog.LevelDebug)
			r, runs := hostileRegistry(t, toolreg.WithLogger(logger))
			r.SetExecutionGuard(tc.guard)
			res := r.Call(context.Background(), "act", map[string]any{"q": "x"}, toolreg.CallContext{})
			assert.Equal(t, toolreg.CodeDenied, res.Code, res.Content)
			assert.Zero(t, runs.Load(), "a refused call never reaches the handler")
			failureOf(t, res.Content)
			assert.NotContains(t, logs.String(), "String exploded", "a panic value is not printed the way that panics")
		})
	}
}

func TestAHandlersHostileOutcomeIsContained(t *testing.T) {
	handlers := []struct {
		name     string
		h        toolreg.Handler
		wantCode string
	}{
		{"panics with a value whose String panics", func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			panic(panicky{depth: 3})
		}, toolreg.CodePanic},
		{"returns an error whose Error panics", func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			return "", panicky{depth: 3}
		}, toolreg.CodeToolError},
		{"returns a typed-nil error", func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			return "ignored", typedNil()
		}, toolreg.CodeToolError},
		{"calls runtime.Goexit", func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			runtime.Goexit()
			return "unreachable", nil
		}, toolreg.CodePanic},
		{"panics with nil", func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			panic(nil) //nolint:govet // the point of the test
		}, toolreg.CodePanic},
	}
	contexts := []struct {
		name    string
		timeout time.Duration
		ctx     func() (context.Context, context.CancelFunc)
	}{
		{"a background context", 0, func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }},
		{"a tool timeout", time.Minute, func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }},
		{"a cancelable context", 0, func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }},
		{"a nil context", 0, func() (context.Context, context.CancelFunc) { return nil, func() {} }},
	}
	for _, hc := range handlers {
		for _, cc := range contexts {
			t.Run(hc.name+" under "+cc.name, func(t *testing.T) {
				r := toolreg.New()
				tool := newTool("bad", "", nil)
				tool.Handler, tool.Timeout = hc.h, cc.timeout
				mustRegister(t, r, tool, "p")
				var phases []string
				r.Subscribe(func(ev toolreg.ExecuteEvent) { phases = append(phases, ev.Phase+":"+ev.Code) })
				ctx, cancel := cc.ctx()
				defer cancel()
				done := make(chan toolreg.Result, 1)
				go func() { done <- r.Call(ctx, "bad", nil, toolreg.CallContext{}) }()
				select {
				case res := <-done:
					assert.Equal(t, hc.wantCode, res.Code, res.Content)
					failureOf(t, res.Content)
					assert.NotContains(t, res.Content, "String exploded")
				case <-time.After(5 * time.Second):
					t.Fatal("Execute did not return")
				}
				assert.Equal(t, []string{"start:", "end:" + hc.wantCode}, phases)
			})
		}
	}
}

func TestListenersHooksLayersAndLoggersThatPanicChangeNothing(t *testing.T) {
	r := toolreg.New(toolreg.WithLogger(slog.New(panickingHandler{})))
	r.Subscribe(func(toolreg.ExecuteEvent) { panic(panicky{depth: 3}) })
	r.OnChange(func() { panic(panicky{depth: 3}) })
	mustRegister(t, r, newTool("ok", "fine", nil), "p")
	restricted := newTool("secret", "fine", nil)
	restricted.Visibility = toolreg.VisibilityRestricted
	mustRegister(t, r, restricted, "p")
	boom := toolreg.LayerFunc("boom", func(toolreg.ToolInfo) toolreg.Verdict { panic(panicky{depth: 3}) })

	assert.Equal(t, "fine", r.Execute(context.Background(), "ok", nil, toolreg.CallContext{}))
	assert.Equal(t, "fine", r.Execute(context.Background(), "secret", nil, toolreg.CallContext{}), "the info log line panics")
	_, code := failureOf(t, r.Execute(context.Background(), "ok", nil, toolreg.CallContext{Access: toolreg.Access{Layers: []toolreg.Layer{boom}}}))
	assert.Equal(t, toolreg.CodeNotFound, code, "a panicking layer hides the tool")
	assert.Empty(t, r.Definitions(toolreg.Access{Layers: []toolreg.Layer{boom}}))
}

// panickingHandler is a slog.Handler that panics on every record.
type panickingHandler struct{}

func (panickingHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (panickingHandler) Handle(context.Context, slog.Record) error { panic(panicky{depth: 2}) }
func (h panickingHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h panickingHandler) WithGroup(string) slog.Handler           { return h }

// TestPanicNilIsNeverSuccess runs the panic(nil) cases in a child process
// with GODEBUG=panicnil=1, where recover() returns nil for panic(nil).
func TestPanicNilIsNeverSuccess(t *testing.T) {
	if os.Getenv("TOOLREG_PANICNIL_CHILD") == "1" {
		panicNilChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPanicNilIsNeverSuccess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TOOLREG_PANICNIL_CHILD=1", "GODEBUG=panicnil=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "handler: panic\n")
	assert.Contains(t, string(out), "inline handler: panic\n")
	assert.Contains(t, string(out), "guard: denied runs=0\n")
}

func panicNilChild() {
	for _, inline := range []bool{false, true} {
		r := toolreg.New()
		tool := newTool("nil_panic", "", nil)
		tool.Inline = inline
		tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			panic(nil) //nolint:govet // the point of the test
		}
		if _, err := r.Register(tool, "p"); err != nil {
			panic(err)
		}
		label := "handler"
		if inline {
			label = "inline handler"
		}
		fmt.Printf("%s: %s\n", label, r.Call(context.Background(), "nil_panic", nil, toolreg.CallContext{}).Code)
	}
	r := toolreg.New()
	var runs atomic.Int32
	tool := newTool("guarded", "", nil)
	tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		runs.Add(1)
		return "ran", nil
	}
	if _, err := r.Register(tool, "p"); err != nil {
		panic(err)
	}
	r.SetExecutionGuard(func(context.Context, toolreg.GuardRequest) error { panic(nil) }) //nolint:govet
	fmt.Printf("guard: %s runs=%d\n", r.Call(context.Background(), "guarded", nil, toolreg.CallContext{}).Code, runs.Load())
}

func TestAGuardReturningTheContextsErrorReadsAsTheContextsFailure(t *testing.T) {
	tests := []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		wantCode string
	}{
		{"canceled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			return ctx, cancel
		}, toolreg.CodeCanceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Millisecond)
		}, toolreg.CodeTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, runs := hostileRegistry(t)
			ctx, cancel := tc.ctx()
			defer cancel()
			r.SetExecutionGuard(func(ctx context.Context, _ toolreg.GuardRequest) error {
				if tc.wantCode == toolreg.CodeCanceled {
					cancel() // the caller gives up while the guard waits
				}
				<-ctx.Done()
				return ctx.Err()
			})
			res := r.Call(ctx, "act", nil, toolreg.CallContext{})
			assert.Equal(t, tc.wantCode, res.Code, res.Content)
			assert.Zero(t, runs.Load())
		})
	}
}

func TestAGuardCannotChangeWhatTheHandlerReceives(t *testing.T) {
	r := toolreg.New()
	var got map[string]any
	tool := newTool("write", "", map[string]any{"path": str(), "opts": map[string]any{"type": "object"}}, "path")
	tool.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		got = args
		return "ok", nil
	}
	mustRegister(t, r, tool, "p")
	r.SetExecutionGuard(func(_ context.Context, req toolreg.GuardRequest) error {
		delete(req.Args, "path")
		req.Args["opts"].(map[string]any)["force"] = true
		req.Groups = append(req.Groups, "x")
		return nil
	})
	require.Equal(t, "ok", r.Execute(context.Background(), "write", map[string]any{"path": "/a", "opts": map[string]any{"mode": "x"}}, toolreg.CallContext{}))
	assert.Equal(t, map[string]any{"path": "/a", "opts": map[string]any{"mode": "x"}}, got)
}

func TestAbandonedHandlersAreBounded(t *testing.T) {
	const limit = 5
	logger, logs := executeLogger(slog.LevelWarn)
	r := toolreg.New(toolreg.WithLogger(logger), toolreg.WithMaxAbandoned(limit))
	release := make(chan struct{})
	var started atomic.Int32
	tool := newTool("stuck", "", nil)
	tool.Timeout = time.Millisecond
	tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		started.Add(1)
		<-release // ignores its context
		return "late", nil
	}
	mustRegister(t, r, tool, "p")
	before := runtime.NumGoroutine()
	codes := map[string]int{}
	var fastMsg string
	for range 200 {
		res := r.Call(context.Background(), "stuck", nil, toolreg.CallContext{})
		codes[res.Code]++
		if strings.Contains(res.Content, "still running") {
			fastMsg = res.Content
		}
	}
	assert.Equal(t, map[string]int{toolreg.CodeTimeout: 200}, codes)
	assert.Equal(t, int32(limit), started.Load(), "only %d calls were started", limit)
	assert.Contains(t, fastMsg, "still running past their deadline")
	assert.LessOrEqual(t, runtime.NumGoroutine()-before, limit+2)
	st := r.Stats()
	assert.Equal(t, int64(limit), st.Abandoned)
	assert.Equal(t, map[string]int64{"stuck": limit}, st.AbandonedByTool)
	assert.Equal(t, uint64(200-limit), st.FailedFast)

	close(release)
	require.Eventually(t, func() bool { return r.Stats().Running == 0 }, 5*time.Second, time.Millisecond)
	st = r.Stats()
	assert.Equal(t, uint64(limit), st.LateResults)
	assert.Zero(t, st.Abandoned)
	assert.Equal(t, 1, strings.Count(logs.String(), "late results dropped"), "late results are logged once a second at most")
	assert.Equal(t, "late", r.Execute(context.Background(), "stuck", nil, toolreg.CallContext{}), "the tool runs again once its calls ended")
}

func TestInlineHandlersAreContainedOnEveryPath(t *testing.T) {
	handlers := map[string]toolreg.Handler{
		"panics":          func(context.Context, map[string]any, toolreg.CallContext) (string, error) { panic(panicky{depth: 3}) },
		"panics with nil": func(context.Context, map[string]any, toolreg.CallContext) (string, error) { panic(nil) }, //nolint:govet
		"unprintable err": func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			return "", panicky{depth: 2}
		},
		"typed nil err": func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "x", typedNil() },
		"invalid args": func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			return "", fmt.Errorf("bad date: %w", toolreg.ErrInvalidArguments)
		},
	}
	want := map[string]string{"panics": toolreg.CodePanic, "panics with nil": toolreg.CodePanic, "unprintable err": toolreg.CodeToolError,
		"typed nil err": toolreg.CodeToolError, "invalid args": toolreg.CodeInvalidArguments}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			logger, logs := executeLogger(slog.LevelDebug)
			r := toolreg.New(toolreg.WithLogger(logger), toolreg.WithMaxResultBytes(256))
			tool := newTool("inline_tool", "", map[string]any{"pin": map[string]any{"type": "string", "x-sensitive": true}})
			tool.Handler, tool.Inline = h, true
			mustRegister(t, r, tool, "p")
			for _, res := range []string{
				r.Execute(context.Background(), "inline_tool", map[string]any{"pin": "SECRET-PIN"}, toolreg.CallContext{}),
				r.ExecuteJSON(context.Background(), "inline_tool", `{"pin":"SECRET-PIN"}`, toolreg.CallContext{}),
				r.Call(context.Background(), "inline_tool", map[string]any{"pin": "SECRET-PIN"}, toolreg.CallContext{}).Content,
			} {
				_, code := failureOf(t, res)
				assert.Equal(t, want[name], code, res)
				assert.LessOrEqual(t, len(res), 256)
			}
			assert.NotContains(t, logs.String(), "SECRET-PIN")
		})
	}
}
