package toolreg_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// eventsRecorder collects events; it is safe for concurrent use.
type eventsRecorder struct {
	mu     sync.Mutex
	events []toolreg.ExecuteEvent
}

func (rec *eventsRecorder) add(ev toolreg.ExecuteEvent) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.events = append(rec.events, ev)
}

func (rec *eventsRecorder) all() []toolreg.ExecuteEvent {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]toolreg.ExecuteEvent(nil), rec.events...)
}

func TestEveryCallEmitsOneStartAndOneEnd(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("echo", "hello", map[string]any{"q": str()}, "q"), "p")
	_, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "later"}}, "p")
	require.NoError(t, err)
	denied := newTool("denied", "", nil)
	denied.Visibility = toolreg.VisibilityRestricted
	mustRegister(t, r, denied, "p")
	r.SetExecutionGuard(func(_ context.Context, req toolreg.GuardRequest) error {
		if req.Visibility == toolreg.VisibilityRestricted {
			return errors.New("not for you")
		}
		return nil
	})
	var rec eventsRecorder
	r.Subscribe(rec.add)

	tests := []struct {
		name, tool, args string
		wantCode         string
		wantPlugin       string
	}{
		{"a successful call", "echo", `{"q":"x"}`, "", "p"},
		{"an unknown name", "nope", `{}`, toolreg.CodeNotFound, ""},
		{"a reserved tool", "later", `{}`, toolreg.CodeNotAvailable, "p"},
		{"bad arguments", "echo", `{}`, toolreg.CodeInvalidArguments, "p"},
		{"malformed JSON", "echo", `{"q":`, toolreg.CodeInvalidArguments, "p"},
		{"a refusal", "denied", `{}`, toolreg.CodeDenied, "p"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(rec.all())
			res := r.ExecuteJSON(context.Background(), tc.tool, tc.args, toolreg.CallContext{SessionID: "s", Platform: "web"})
			evs := rec.all()[before:]
			require.Len(t, evs, 2)
			start, end := evs[0], evs[1]
			assert.Equal(t, toolreg.PhaseStart, start.Phase)
			assert.Equal(t, toolreg.PhaseEnd, end.Phase)
			assert.NotEmpty(t, start.CallID)
			assert.Equal(t, start.CallID, end.CallID)
			for _, ev := range evs {
				assert.Equal(t, tc.tool, ev.ToolName)
				assert.Equal(t, tc.wantPlugin, ev.PluginName)
				assert.Equal(t, "s", ev.SessionID)
				assert.Equal(t, "web", ev.Platform)
			}
			assert.Empty(t, start.Result)
			assert.Equal(t, res, end.Result, "the end event carries exactly what Execute returned")
			assert.Equal(t, tc.wantCode, end.Code)
		})
	}
}

func TestCallIDsAreUnique(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("echo", "", nil), "p")
	var rec eventsRecorder
	r.Subscribe(rec.add)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { r.Execute(context.Background(), "echo", nil, toolreg.CallContext{}) })
	}
	wg.Wait()
	ids := map[string]int{}
	for _, ev := range rec.all() {
		ids[ev.CallID]++
	}
	assert.Len(t, ids, 20)
	for id, n := range ids {
		assert.Equal(t, 2, n, "call %s has one start and one end", id)
	}
}

func TestSensitiveArgumentsAreRedactedInEvents(t *testing.T) {
	r := toolreg.New()
	secret := map[string]any{"type": "string", "x-sensitive": true}
	props := map[string]any{
		"user":     str(),
		"password": secret,
		"auth": map[string]any{"type": "object", "properties": map[string]any{
			"token": secret, "scheme": str(),
		}},
		"headers": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{
			"value": secret, "name": str(),
		}}},
	}
	var handlerArgs map[string]any
	tool := newTool("login", "ok", props)
	tool.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		handlerArgs = args
		return "ok", nil
	}
	mustRegister(t, r, tool, "p")
	var rec eventsRecorder
	r.Subscribe(rec.add)

	r.ExecuteJSON(context.Background(), "login",
		`{"user":"ann","password":"hunter2","auth":{"token":"t0k","scheme":"bearer"},"headers":[{"name":"X","value":"v1"}]}`,
		toolreg.CallContext{})

	want := map[string]any{
		"user":     "ann",
		"password": "[redacted]",
		"auth":     map[string]any{"token": "[redacted]", "scheme": "bearer"},
		"headers":  []any{map[string]any{"name": "X", "value": "[redacted]"}},
	}
	for _, ev := range rec.all() {
		assert.Equal(t, want, ev.Args, "%s event", ev.Phase)
	}
	assert.Equal(t, "hunter2", handlerArgs["password"], "the handler gets the real value")
	assert.Equal(t, "t0k", handlerArgs["auth"].(map[string]any)["token"])
}

func TestAListenerPanicNeverChangesTheResult(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("echo", "fine", nil), "p")
	var rec eventsRecorder
	r.Subscribe(func(toolreg.ExecuteEvent) { panic("listener bug") })
	r.Subscribe(rec.add)

	assert.Equal(t, "fine", r.Execute(context.Background(), "echo", nil, toolreg.CallContext{}))
	assert.Len(t, rec.all(), 2, "later listeners still get both events")
}

func TestUnsubscribeStopsEvents(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("echo", "", nil), "p")
	var rec eventsRecorder
	stop := r.Subscribe(rec.add)
	r.Execute(context.Background(), "echo", nil, toolreg.CallContext{})
	stop()
	stop()
	r.Execute(context.Background(), "echo", nil, toolreg.CallContext{})
	assert.Len(t, rec.all(), 2)
}

func TestArgsDigest(t *testing.T) {
	base := toolreg.ArgsDigest(map[string]any{"a": 1.0, "b": map[string]any{"x": "y", "z": []any{1.0, "two"}}})
	tests := []struct {
		name  string
		args  map[string]any
		equal bool
	}{
		{"the same arguments built in another order", map[string]any{"b": map[string]any{"z": []any{1.0, "two"}, "x": "y"}, "a": 1.0}, true},
		{"an int and a float of the same value", map[string]any{"a": 1, "b": map[string]any{"x": "y", "z": []any{1, "two"}}}, true},
		{"a changed nested value", map[string]any{"a": 1.0, "b": map[string]any{"x": "Y", "z": []any{1.0, "two"}}}, false},
		{"a reordered list", map[string]any{"a": 1.0, "b": map[string]any{"x": "y", "z": []any{"two", 1.0}}}, false},
		{"a missing key", map[string]any{"a": 1.0}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.equal, toolreg.ArgsDigest(tc.args) == base)
		})
	}
	assert.Equal(t, toolreg.ArgsDigest(nil), toolreg.ArgsDigest(map[string]any{}), "nil and {} are equal")
	assert.Len(t, base, 64, "hex SHA-256")
	assert.NotPanics(t, func() { toolreg.ArgsDigest(map[string]any{"ch": make(chan int)}) })
}
