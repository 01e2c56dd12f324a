package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

const secret = "hunter2-SECRET"

// secretSchemas mark a value sensitive in every place a schema can reach it,
// each with arguments that carry the secret there.
func secretSchemas() []struct {
	name  string
	props map[string]any
	defs  map[string]any
	args  map[string]any
} {
	sens := map[string]any{"type": "string", "x-sensitive": true}
	return []struct {
		name  string
		props map[string]any
		defs  map[string]any
		args  map[string]any
	}{
		{"a top-level property", map[string]any{"token": sens}, nil,
			map[string]any{"token": secret}},
		{"a nested property", map[string]any{"auth": map[string]any{"type": "object", "properties": map[string]any{"token": sens}}}, nil,
			map[string]any{"auth": map[string]any{"token": secret, "user": "bob"}}},
		{"$ref into $defs", map[string]any{"auth": map[string]any{"$ref": "#/$defs/cred"}},
			map[string]any{"cred": map[string]any{"type": "object", "properties": map[string]any{"password": sens}}},
			map[string]any{"auth": map[string]any{"password": secret}}},
		{"a $ref chain", map[string]any{"auth": map[string]any{"$ref": "#/$defs/a"}},
			map[string]any{"a": map[string]any{"$ref": "#/$defs/b"}, "b": sens},
			map[string]any{"auth": secret}},
		{"the strict nullable anyOf pattern", map[string]any{"token": map[string]any{"anyOf": []any{sens, map[string]any{"type": "null"}}}}, nil,
			map[string]any{"token": secret}},
		{"oneOf", map[string]any{"cred": map[string]any{"oneOf": []any{
			map[string]any{"type": "object", "properties": map[string]any{"key": sens}},
			map[string]any{"type": "string"}}}}, nil,
			map[string]any{"cred": map[string]any{"key": secret}}},
		{"allOf", map[string]any{"cred": map[string]any{"allOf": []any{map[string]any{"properties": map[string]any{"key": sens}}}}}, nil,
			map[string]any{"cred": map[string]any{"key": secret}}},
		{"additionalProperties", map[string]any{"headers": map[string]any{"type": "object", "additionalProperties": sens}}, nil,
			map[string]any{"headers": map[string]any{"Authorization": secret}}},
		{"patternProperties", map[string]any{"env": map[string]any{"type": "object", "patternProperties": map[string]any{"^SECRET_": sens}}}, nil,
			map[string]any{"env": map[string]any{"SECRET_KEY": secret}}},
		{"items of items", map[string]any{"rows": map[string]any{"type": "array", "items": map[string]any{"type": "array", "items": sens}}}, nil,
			map[string]any{"rows": []any{[]any{"a", secret}}}},
		{"prefixItems", map[string]any{"pair": map[string]any{"type": "array", "prefixItems": []any{map[string]any{"type": "string"}, sens}}}, nil,
			map[string]any{"pair": []any{"user", secret}}},
		{"a sensitive object hides all of it", map[string]any{"cred": map[string]any{"type": "object", "x-sensitive": true}}, nil,
			map[string]any{"cred": map[string]any{"a": map[string]any{"b": secret}}}},
		{"a recursive schema", map[string]any{"node": map[string]any{"$ref": "#/$defs/node"}},
			map[string]any{"node": map[string]any{"type": "object", "properties": map[string]any{
				"key": sens, "child": map[string]any{"$ref": "#/$defs/node"}}}},
			map[string]any{"node": map[string]any{"child": map[string]any{"child": map[string]any{"key": secret}}}}},
		{"Go-typed map[string]string", map[string]any{"headers": map[string]any{"type": "object", "additionalProperties": sens}}, nil,
			map[string]any{"headers": map[string]string{"Authorization": secret}}},
		{"Go-typed []map[string]any", map[string]any{"creds": map[string]any{"type": "array", "items": map[string]any{"properties": map[string]any{"key": sens}}}}, nil,
			map[string]any{"creds": []map[string]any{{"key": secret}}}},
		{"a Go struct", map[string]any{"cred": map[string]any{"type": "object", "properties": map[string]any{"Key": sens}}}, nil,
			map[string]any{"cred": struct{ Key, User string }{secret, "bob"}}},
	}
}

func TestSensitiveValuesNeverReachEventsOrLogs(t *testing.T) {
	for _, tc := range secretSchemas() {
		for _, validateAll := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				logger, logs := executeLogger(slog.LevelDebug)
				opts := []toolreg.Option{toolreg.WithLogger(logger)}
				if validateAll {
					opts = append(opts, toolreg.WithSchemaValidation())
				}
				r := toolreg.New(opts...)
				tool := newTool("login", "", tc.props)
				tool.Definition.Function.Parameters.Defs = tc.defs
				tool.Visibility = toolreg.VisibilityRestricted
				tool.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
					panic("login failed for " + secret) // a panic value that quotes the arguments
				}
				mustRegister(t, r, tool, "p")
				var events []toolreg.ExecuteEvent
				r.Subscribe(func(ev toolreg.ExecuteEvent) { events = append(events, ev) })
				r.SetExecutionGuard(func(context.Context, toolreg.GuardRequest) error { return nil })

				res := r.Call(context.Background(), "login", tc.args, toolreg.CallContext{})
				require.Len(t, events, 2)
				for _, ev := range events {
					b, err := json.Marshal(ev.Args)
					require.NoError(t, err)
					assert.NotContains(t, string(b), secret, "%s event", ev.Phase)
					assert.Contains(t, string(b), "[redacted]")
				}
				assert.NotContains(t, res.Content, secret)
				assert.Contains(t, logs.String(), "recovered panic")
				assert.NotContains(t, logs.String(), secret)
			})
		}
	}
}

func TestValidationMessagesNeverQuoteTheFailingValue(t *testing.T) {
	r := toolreg.New(toolreg.WithSchemaValidation())
	tool := newTool("pin", "", map[string]any{
		"pin":   map[string]any{"type": "string", "pattern": "^[0-9]{4}$", "x-sensitive": true},
		"code":  map[string]any{"type": "string", "format": "email"},
		"count": map[string]any{"type": "integer", "minimum": 10},
		"color": map[string]any{"enum": []any{"red", "green"}},
	})
	mustRegister(t, r, tool, "p")
	msg, code := failureOf(t, r.Execute(context.Background(), "pin", map[string]any{
		"pin": secret, "code": secret, "count": 7.0, "color": secret}, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeInvalidArguments, code)
	assert.NotContains(t, msg, secret)
	assert.NotContains(t, msg, "7")
	assert.Contains(t, msg, "pin: does not match the pattern")
	assert.Contains(t, msg, "count: must be at least 10")
}

func TestEventArgsAreADeepCopyTheHandlerCannotRaceWith(t *testing.T) {
	r := toolreg.New()
	tool := newTool("mutate", "", map[string]any{"opts": map[string]any{"type": "object"}, "list": map[string]any{"type": "array"}})
	started := make(chan struct{})
	tool.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		close(started)
		for i := range 1000 {
			args["opts"].(map[string]any)["n"] = float64(i)
			args["list"].([]any)[0] = float64(i)
			args["new"] = float64(i)
		}
		return "ok", nil
	}
	mustRegister(t, r, tool, "p")
	var kept toolreg.ExecuteEvent
	var reading sync.WaitGroup
	r.Subscribe(func(ev toolreg.ExecuteEvent) {
		if ev.Phase != toolreg.PhaseStart {
			return
		}
		kept = ev
		reading.Go(func() { // a listener that ships the event elsewhere
			<-started
			for range 1000 {
				_ = ev.Args["opts"].(map[string]any)["n"]
				_ = ev.Args["list"].([]any)[0]
				_ = ev.Args["new"]
			}
		})
	})
	args := map[string]any{"opts": map[string]any{"n": -1.0}, "list": []any{-1.0}}
	assert.Equal(t, "ok", r.Execute(context.Background(), "mutate", args, toolreg.CallContext{}))
	reading.Wait()
	assert.Equal(t, map[string]any{"opts": map[string]any{"n": -1.0}, "list": []any{-1.0}}, kept.Args)
}

func TestUnknownNamesCarryNoArgumentValuesInEvents(t *testing.T) {
	r := toolreg.New()
	tool := newTool("login", "", map[string]any{"token": map[string]any{"type": "string", "x-sensitive": true}})
	mustRegister(t, r, tool, "p")
	var evs []toolreg.ExecuteEvent
	r.Subscribe(func(ev toolreg.ExecuteEvent) { evs = append(evs, ev) })
	r.ExecuteJSON(context.Background(), "Login", `{"token":"`+secret+`"}`, toolreg.CallContext{}) // a case typo
	require.Len(t, evs, 2)
	for _, ev := range evs {
		assert.Nil(t, ev.Args)
		assert.NotContains(t, ev.Result, secret)
	}
}

func TestEditingAListingChangesNothingTheRegistryChecks(t *testing.T) {
	for _, strict := range []bool{false, true} {
		r := toolreg.New()
		tool := newTool("read", "ok", map[string]any{"path": str()}, "path")
		tool.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
		tool.Definition.Function.Strict = strict
		mustRegister(t, r, tool, "p")
		before := string(r.DefinitionsJSON(toolreg.Access{}))
		defs := r.Definitions(toolreg.Access{})
		defs[0].Function.Parameters.Properties["extra"] = str()
		defs[0].Function.Parameters.Properties["path"] = map[string]any{"type": "number"}
		_, code := failureOf(t, r.Execute(context.Background(), "read", map[string]any{"path": "/x", "extra": "y"}, toolreg.CallContext{}))
		assert.Equal(t, toolreg.CodeInvalidArguments, code, "strict=%v", strict)
		assert.Equal(t, "ok", r.Execute(context.Background(), "read", map[string]any{"path": "/x"}, toolreg.CallContext{}))
		assert.Equal(t, before, string(r.DefinitionsJSON(toolreg.Access{})), "the wire bytes stay what was registered")
	}
}

func TestArgsDigestIsStableForEqualValues(t *testing.T) {
	one, other := 1, 1
	type pair struct{ A, B *int }
	tests := []struct {
		name string
		a, b map[string]any
	}{
		{"map order", map[string]any{"a": 1, "b": map[string]any{"x": 1, "y": 2}}, map[string]any{"b": map[string]any{"y": 2, "x": 1}, "a": 1}},
		{"pointers to equal values", map[string]any{"p": &one}, map[string]any{"p": &other}},
		{"structs of pointers", map[string]any{"p": pair{&one, &other}}, map[string]any{"p": pair{&other, &one}}},
		{"nil and empty", nil, map[string]any{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			da, db := toolreg.ArgsDigest(tc.a), toolreg.ArgsDigest(tc.b)
			assert.Len(t, da, 64)
			assert.Equal(t, da, db)
		})
	}
	assert.NotEqual(t, toolreg.ArgsDigest(map[string]any{"a": 1}), toolreg.ArgsDigest(map[string]any{"a": 2}))
}

func TestArgsDigestReportsWhatHasNoJSONForm(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	list := []any{nil}
	list[0] = list
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"a map that contains itself", cyclic, "contains itself"},
		{"a list that contains itself", map[string]any{"l": list}, "contains itself"},
		{"NaN", map[string]any{"x": math.NaN()}, "not a JSON number"},
		{"an infinity", map[string]any{"x": []float64{math.Inf(-1)}}, "not a JSON number"},
		{"a channel", map[string]any{"c": make(chan int)}, "no JSON form"},
		{"a func", map[string]any{"f": func() {}}, "no JSON form"},
		{"a MarshalJSON that panics", map[string]any{"m": badMarshaler{}}, "encoding failed"},
		{"a MarshalJSON that fails", map[string]any{"m": failingMarshaler{}}, "no"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := toolreg.DigestArgs(tc.args)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, d)
			assert.Empty(t, toolreg.ArgsDigest(tc.args))
		})
	}
}

type badMarshaler struct{}

func (badMarshaler) MarshalJSON() ([]byte, error) { panic(panicky{depth: 2}) }

type failingMarshaler struct{}

func (failingMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

func TestOnChangeHooksRunOneAtATimeAndLast(t *testing.T) {
	r := toolreg.New()
	var mu sync.Mutex
	running, overlap, calls := 0, 0, 0
	var lastSeen int
	r.OnChange(func() {
		mu.Lock()
		running++
		if running > 1 {
			overlap++
		}
		calls++
		mu.Unlock()
		time.Sleep(50 * time.Microsecond)
		n := len(r.All())
		mu.Lock()
		lastSeen = n
		running--
		mu.Unlock()
	})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				mustRegister(t, r, newTool(fmt.Sprintf("w%d_%d", w, i), "", nil), "p")
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	assert.Zero(t, overlap, "hooks never run concurrently")
	assert.Positive(t, calls)
	assert.Equal(t, 200, lastSeen, "the last call follows the last change")
}

func TestRedactGivesGuardsWhatEventsShow(t *testing.T) {
	r := toolreg.New()
	for _, tc := range secretSchemas() {
		tool := newTool("login", "", tc.props)
		tool.Definition.Function.Parameters.Defs = tc.defs
		mustRegister(t, r, tool, "p")
		red := r.Redact("login", tc.args)
		require.NotNil(t, red, tc.name)
		b, err := json.Marshal(red)
		require.NoError(t, err)
		assert.NotContains(t, string(b), secret, tc.name)
		assert.Contains(t, string(b), "[redacted]", tc.name)
	}
	assert.Nil(t, r.Redact("unknown", map[string]any{"a": 1}))
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	assert.Nil(t, r.Redact("login", cyclic))
	assert.Equal(t, map[string]any{}, r.Redact("login", nil))
}

func TestAHandlerCanSayItsArgumentsAreInvalid(t *testing.T) {
	r := toolreg.New()
	tool := newTool("book", "", map[string]any{"date": str()})
	tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		return "", fmt.Errorf("date is in the past: %w", toolreg.ErrInvalidArguments)
	}
	mustRegister(t, r, tool, "p")
	res := r.Call(context.Background(), "book", map[string]any{"date": "1999-01-01"}, toolreg.CallContext{})
	assert.Equal(t, toolreg.CodeInvalidArguments, res.Code)
	assert.Contains(t, res.Content, "date is in the past")
}

func TestBigIntegersInSchemasStayExact(t *testing.T) {
	r := toolreg.New(toolreg.WithSchemaValidation(), toolreg.WithUseNumber())
	tool := newTool("pick", "ok", map[string]any{
		"id":    map[string]any{"type": "integer", "enum": []any{json.Number("18446744073709551615"), json.Number("9007199254740993")}},
		"small": map[string]any{"type": "integer", "maximum": 10},
	})
	mustRegister(t, r, tool, "p")
	assert.Equal(t, "ok", r.ExecuteJSON(context.Background(), "pick", `{"id":18446744073709551615}`, toolreg.CallContext{}))
	_, code := failureOf(t, r.ExecuteJSON(context.Background(), "pick", `{"id":18446744073709551614}`, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeInvalidArguments, code)
	assert.Contains(t, string(r.DefinitionsJSON(toolreg.Access{})), `18446744073709551615`)
	props := r.Definitions(toolreg.Access{})[0].Function.Parameters.Properties
	assert.Equal(t, 10.0, props["small"].(map[string]any)["maximum"], "exact numbers stay float64")
}
