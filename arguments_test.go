package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// deepMap nests n maps.
func deepMap(n int) map[string]any {
	m := map[string]any{}
	cur := m
	for range n {
		next := map[string]any{}
		cur["a"] = next
		cur = next
	}
	return m
}

func TestHostileGoArgumentsAreRefusedNotCrashed(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	list := make([]any, 1)
	list[0] = list
	type node struct {
		Next *node
	}
	loop := &node{}
	loop.Next = loop
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"NaN", map[string]any{"x": math.NaN()}, `argument "x": NaN is not a JSON number`},
		{"an infinity deep inside", map[string]any{"x": []any{map[string]any{"y": math.Inf(1)}}}, `argument "x[0].y": +Inf is not a JSON number`},
		{"a float32 NaN in a Go slice", map[string]any{"x": []float32{float32(math.NaN())}}, "not a JSON number"},
		{"a map that contains itself", map[string]any{"m": cyclic}, "contains itself"},
		{"a list that contains itself", map[string]any{"l": list}, "contains itself"},
		{"a struct that points to itself", map[string]any{"n": loop}, "contains itself"},
		{"nesting 100,000 levels deep", map[string]any{"d": deepMap(100_000)}, "nested deeper than 64 levels"},
		{"a channel", map[string]any{"c": make(chan int)}, "no JSON form"},
		{"a map with struct keys", map[string]any{"m": map[struct{}]int{{}: 1}}, "no JSON form"},
		{"a json.Number that is no number", map[string]any{"x": json.Number("000")}, `"000" is not a valid JSON number`},
		{"a json.Number in a Go slice", map[string]any{"x": []json.Number{"1", "1e"}}, `argument "x[1]": "1e" is not a valid JSON number`},
		{"a MarshalJSON that panics", map[string]any{"m": badMarshaler{}}, ""},
	}
	for _, tc := range tests {
		for _, full := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				var opts []toolreg.Option
				if full {
					opts = append(opts, toolreg.WithSchemaValidation())
				}
				r := toolreg.New(opts...)
				runs := 0
				tool := newTool("take", "", map[string]any{"x": map[string]any{}, "m": map[string]any{}, "l": map[string]any{}, "n": map[string]any{}, "d": map[string]any{}, "c": map[string]any{}})
				tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) { runs++; return "ran", nil }
				mustRegister(t, r, tool, "p")
				r.Subscribe(func(ev toolreg.ExecuteEvent) { _, _ = json.Marshal(ev.Args) })
				r.SetExecutionGuard(func(_ context.Context, req toolreg.GuardRequest) error { _ = toolreg.ArgsDigest(req.Args); return nil })
				start := time.Now()
				res := r.Call(context.Background(), "take", tc.args, toolreg.CallContext{})
				assert.Less(t, time.Since(start), 2*time.Second)
				if tc.want == "" {
					assert.True(t, res.IsError() || res.Content == "ran", res.Content)
					return
				}
				assert.Equal(t, toolreg.CodeInvalidArguments, res.Code, res.Content)
				msg, _ := failureOf(t, res.Content)
				assert.Contains(t, msg, tc.want)
				assert.Zero(t, runs)
			})
		}
	}
}

func TestANilContextIsBackground(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("ok", "fine", nil), "p")
	var nilCtx context.Context
	assert.Equal(t, "fine", r.Execute(nilCtx, "ok", nil, toolreg.CallContext{}))
	assert.Equal(t, "fine", r.ExecuteJSON(nilCtx, "ok", "", toolreg.CallContext{}))
	res := r.ExecuteBatch(nilCtx, []toolreg.ToolCall{{ID: "1", Name: "ok"}}, toolreg.CallContext{}, toolreg.BatchOptions{})
	assert.Equal(t, "fine", res[0].Content)
}

func TestIntegersThatFloat64WouldRoundAreRefused(t *testing.T) {
	tests := []struct {
		name, args string
		useNumber  bool
		wantCode   string
		wantID     any
	}{
		{"2^53+1 is refused", `{"id":9007199254740993}`, false, toolreg.CodeInvalidArguments, nil},
		{"a 64-bit chat id deep in an array is refused", `{"id":1,"ids":[1,{"x":18446744073709551615}]}`, false, toolreg.CodeInvalidArguments, nil},
		{"2^53 is exact", `{"id":9007199254740992}`, false, "", float64(9007199254740992)},
		{"a long decimal rounds as decimals do", `{"id":0.12345678901234567890}`, false, "", 0.12345678901234568},
		{"digits inside a string are not numbers", `{"id":"12345678901234567890"}`, false, "", "12345678901234567890"},
		{"1e300 written with digits is exact", `{"id":1` + strings.Repeat("0", 22) + `}`, false, "", 1e22},
		{"UseNumber keeps the text", `{"id":9007199254740993}`, true, "", json.Number("9007199254740993")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := toolreg.New()
			var got any
			tool := newTool("lookup", "", map[string]any{"id": map[string]any{}, "ids": map[string]any{}})
			tool.UseNumber = tc.useNumber
			tool.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
				got = args["id"]
				return "ok", nil
			}
			mustRegister(t, r, tool, "p")
			res := r.CallJSON(context.Background(), "lookup", tc.args, toolreg.CallContext{})
			assert.Equal(t, tc.wantCode, res.Code, res.Content)
			if tc.wantCode != "" {
				msg, _ := failureOf(t, res.Content)
				assert.Contains(t, msg, "pass it as a string")
				return
			}
			assert.Equal(t, tc.wantID, got)
		})
	}
}

func TestWithUseNumberAppliesToEveryTool(t *testing.T) {
	r := toolreg.New(toolreg.WithUseNumber())
	var got any
	tool := newTool("lookup", "", map[string]any{"id": map[string]any{}})
	tool.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		got = args["id"]
		return "ok", nil
	}
	mustRegister(t, r, tool, "p")
	require.Equal(t, "ok", r.ExecuteJSON(context.Background(), "lookup", `{"id":12}`, toolreg.CallContext{}))
	assert.Equal(t, json.Number("12"), got)
}

func TestMessagesStayShortWhateverTheInput(t *testing.T) {
	r := toolreg.New(toolreg.WithSchemaValidation())
	tool := newTool("bulk", "", map[string]any{
		"items": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
		"text":  map[string]any{"type": "string", "pattern": "^[a-z]+$"},
	})
	tool.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
	failing := newTool("failing", "", nil)
	failing.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		return "", errors.New(strings.Repeat("disk full ", 100_000))
	}
	mustRegister(t, r, tool, "p")
	mustRegister(t, r, failing, "p")
	many := make([]any, 30_000)
	for i := range many {
		many[i] = "not an integer"
	}
	unknown := map[string]any{}
	for i := range 10_000 {
		unknown[strings.Repeat("k", 50)+strconv.Itoa(i)] = 1.0
	}
	tests := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"30k wrong-typed items", "bulk", map[string]any{"items": many}},
		{"a 50 MB string failing its pattern", "bulk", map[string]any{"text": strings.Repeat("X", 50<<20)}},
		{"10k unknown arguments", "bulk", unknown},
		{"a 1 MB tool error", "failing", nil},
		{"a 1 MB unknown name", strings.Repeat("n", 1<<20), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := r.Execute(context.Background(), tc.tool, tc.args, toolreg.CallContext{})
			assert.LessOrEqual(t, len(out), toolreg.MaxMessageBytes+64, "%.200s", out)
			failureOf(t, out)
		})
	}
}

func TestOversizedRawArgumentsAreRefusedUnread(t *testing.T) {
	r := toolreg.New(toolreg.WithMaxArgumentBytes(1024))
	mustRegister(t, r, newTool("t", "ok", map[string]any{"s": str()}), "p")
	res := r.CallJSON(context.Background(), "t", `{"s":"`+strings.Repeat("x", 2000)+`"}`, toolreg.CallContext{})
	assert.Equal(t, toolreg.CodeInvalidArguments, res.Code)
	assert.Contains(t, res.Content, "more than the 1024")
}
