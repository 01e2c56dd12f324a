package toolreg_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
)

// Fuzz targets, one per class of input a model or a caller controls: the
// model's tool name and raw arguments, a tool's schema (it may come from a
// remote MCP server), and Go-typed arguments. Each checks the promises of
// Execute: no panic, a readable result, no secret in events, bounded size.

const fuzzSecret = "fuzz-SECRET-value"

// fuzzRegistry holds tools with light and full validation, nested and
// referenced sensitive values, a guard and a listener that checks events.
func fuzzRegistry(t *testing.T) *toolreg.Registry {
	r := toolreg.New(toolreg.WithMaxResultBytes(512))
	sens := map[string]any{"type": "string", "x-sensitive": true}
	light := newTool("light_tool", "light ok", map[string]any{"q": str(), "n": map[string]any{"type": "integer"}}, "q")
	light.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
	strict := newTool("strict_tool", "strict ok", map[string]any{
		"token": map[string]any{"anyOf": []any{sens, map[string]any{"type": "null"}}},
		"items": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/item"}},
	}, "token", "items")
	strict.Definition.Function.Parameters.Defs = map[string]any{"item": map[string]any{
		"type": "object", "properties": map[string]any{"key": sens, "n": map[string]any{"type": "number", "minimum": 0}},
		"required": []any{"key", "n"}, "additionalProperties": false}}
	strict.Definition.Function.Strict = true
	strict.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
	echo := newTool("echo_tool", "", map[string]any{"secret": sens, "text": str()})
	echo.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		b, _ := json.Marshal(args["text"])
		return string(b), nil
	}
	grouped := newTool("grouped_tool", "grouped ok", nil)
	grouped.Groups = []string{"g"}
	for _, tool := range []toolreg.RegisteredTool{light, strict, echo, grouped} {
		mustRegister(t, r, tool, "fuzz")
	}
	r.SetExecutionGuard(func(_ context.Context, req toolreg.GuardRequest) error {
		_ = toolreg.ArgsDigest(req.Args)
		return nil
	})
	r.Subscribe(func(ev toolreg.ExecuteEvent) {
		if _, err := json.Marshal(ev.Args); err != nil {
			t.Errorf("event args do not marshal: %v", err)
		}
		for _, v := range sensitiveValues(ev) {
			if v != "[redacted]" {
				t.Errorf("the sensitive value at a marked place reads %#v in a %s event", v, ev.ToolName)
			}
		}
	})
	return r
}

// sensitiveValues returns what an event holds where fuzzRegistry's schemas
// mark a value sensitive.
func sensitiveValues(ev toolreg.ExecuteEvent) []any {
	var out []any
	switch ev.ToolName {
	case "echo_tool":
		if v, ok := ev.Args["secret"]; ok {
			out = append(out, v)
		}
	case "strict_tool":
		if v, ok := ev.Args["token"]; ok {
			out = append(out, v)
		}
		items, _ := ev.Args["items"].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				if v, ok := m["key"]; ok {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// checkResult fails unless res is what a model can read: valid UTF-8 within
// the bound, and a well-formed failure whenever the code says it failed.
func checkResult(t *testing.T, res toolreg.Result) {
	t.Helper()
	if len(res.Content) > 512 {
		t.Fatalf("result of %d bytes exceeds the bound: %.100q", len(res.Content), res.Content)
	}
	if !res.IsError() {
		return
	}
	var f struct{ Error, Code string }
	if err := json.Unmarshal([]byte(res.Content), &f); err != nil || f.Code != res.Code || f.Error == "" {
		t.Fatalf("failure %q is not {error, code=%s}: %v", res.Content, res.Code, err)
	}
	if !utf8.ValidString(f.Error) {
		t.Fatalf("failure message is not valid UTF-8: %q", f.Error)
	}
}

func FuzzExecuteJSON(f *testing.F) {
	seeds := [][2]string{
		{"light_tool", `{"q":"x","n":3}`},
		{"light_tool", `{"q":"x","extra":1}`},
		{"strict_tool", `{"token":"` + fuzzSecret + `","items":[{"key":"` + fuzzSecret + `","n":-1}]}`},
		{"strict_tool", `{"token":null,"items":[]}`},
		{"echo_tool", `{"secret":"` + fuzzSecret + `","text":"<&>\u2028"}`},
		{"Light_Tool", `{"q":"` + fuzzSecret + `"}`},
		{"grouped_tool", ``},
		{"light_tool", `{"q":"x","n":9007199254740993}`},
		{"light_tool", `[1,2]`},
		{"light_tool", `{"q":"x"} trailing`},
		{"light_tool", `{"q":"\xff\xfe"}`},
		{"x\x00y", `{`},
		{strings.Repeat("a", 300), `{}`},
		{"light_tool", strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200)},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		r := fuzzRegistry(t)
		first := r.CallJSON(context.Background(), name, args, toolreg.CallContext{CallID: "c"})
		checkResult(t, first)
		again := r.CallJSON(context.Background(), name, args, toolreg.CallContext{CallID: "c"})
		if again.Content != first.Content || again.Code != first.Code {
			t.Fatalf("the same call answered %q then %q", first.Content, again.Content)
		}
	})
}

func FuzzRegisterSchema(f *testing.F) {
	seeds := []string{
		`{"a":{"type":"string"}}`,
		`{"a":{"$ref":"#/$defs/x"}}`,
		`{"a":{"type":"object","properties":{"b":{"type":"array","items":{"x-sensitive":true}}}}}`,
		`{"a":{"anyOf":[{"$ref":"#"},{"type":"null"}]}}`,
		`{"a":{"pattern":"(a+)+$"}}`,
		`{"a":{"pattern":"["}}`,
		`{"a":{"type":"integer","minimum":1e400}}`,
		`{"a":{"allOf":[{"$ref":"#/properties/a"}]}}`,
		`{"a":{"$ref":"http://example.com/x.json"}}`,
		`{"a":{"format":"date-time","enum":[1,"x",null]}}`,
	}
	for _, s := range seeds {
		f.Add(s, `{"$defs":{"x":{"$ref":"#/$defs/x"}}}`, false, `{"a":"v"}`)
		f.Add(s, `{}`, true, `{"a":1}`)
	}
	f.Fuzz(func(t *testing.T, propsJSON, defsJSON string, strict bool, args string) {
		var props, extra map[string]any
		if json.Unmarshal([]byte(propsJSON), &props) != nil {
			return
		}
		_ = json.Unmarshal([]byte(defsJSON), &extra)
		defs, _ := extra["$defs"].(map[string]any)
		for _, full := range []bool{false, true} {
			var opts []toolreg.Option
			if full {
				opts = append(opts, toolreg.WithSchemaValidation())
			}
			r := toolreg.New(append(opts, toolreg.WithMaxResultBytes(512))...)
			tool := newTool("fuzzed", "ok", props)
			tool.Definition.Function.Parameters.Defs = defs
			tool.Definition.Function.Strict = strict
			if _, err := r.Register(tool, "p"); err != nil {
				if len(err.Error()) > 16<<10 {
					t.Fatalf("a Register error of %d bytes", len(err.Error()))
				}
				continue
			}
			if _, err := json.Marshal(r.Definitions(toolreg.Access{})); err != nil {
				t.Fatalf("a registered definition does not marshal: %v", err)
			}
			checkResult(t, r.CallJSON(context.Background(), "fuzzed", args, toolreg.CallContext{}))
			checkResult(t, r.Call(context.Background(), "fuzzed", nil, toolreg.CallContext{}))
		}
	})
}

// goValue builds a Go-typed value from fuzz bytes: scalars of many kinds,
// slices, maps, structs, pointers, and cycles.
func goValue(data []byte, depth int) (any, []byte) {
	if len(data) == 0 || depth > 80 {
		return nil, data
	}
	op, data := data[0], data[1:]
	switch op % 16 {
	case 0:
		return int64(len(data)) << 40, data
	case 1:
		return math.NaN(), data
	case 2:
		return math.Inf(int(op) - 8), data
	case 3:
		return float32(op) / 3, data
	case 4:
		return string(data[:min(len(data), int(op%8))]), data[min(len(data), int(op%8)):]
	case 5:
		return []string{fuzzSecret, "x"}, data
	case 6:
		return map[string]string{"Authorization": fuzzSecret}, data
	case 7:
		v, rest := goValue(data, depth+1)
		return []any{v, v}, rest
	case 8:
		v, rest := goValue(data, depth+1)
		return map[string]any{"k": v}, rest
	case 9:
		v, rest := goValue(data, depth+1)
		return &v, rest
	case 10:
		m := map[string]any{}
		m["self"] = m
		return m, data
	case 11:
		return struct {
			A int
			B *string
			c chan int
		}{A: int(op)}, data
	case 12:
		return make(chan int), data
	case 13:
		return []byte(fuzzSecret), data
	case 14:
		return json.Number(string(data[:min(len(data), 3)])), data[min(len(data), 3):]
	}
	return uint8(op), data
}

func FuzzGoArgs(f *testing.F) {
	f.Add([]byte{8, 7, 4, 'a', 'b', 'c', 'd'})
	f.Add([]byte{10})
	f.Add([]byte{9, 9, 9, 1})
	f.Add([]byte{7, 8, 7, 8, 6})
	f.Add([]byte{11, 12, 14, '1', 'e', '9'})
	f.Fuzz(func(t *testing.T, data []byte) {
		args := map[string]any{}
		for i := 0; len(data) > 0 && i < 8; i++ {
			var v any
			v, data = goValue(data, 0)
			args[[]string{"q", "n", "token", "items", "secret", "text", "x", "y"}[i]] = v
		}
		_ = toolreg.ArgsDigest(args)
		r := fuzzRegistry(t)
		for _, name := range []string{"light_tool", "strict_tool", "echo_tool"} {
			checkResult(t, r.Call(context.Background(), name, args, toolreg.CallContext{}))
		}
	})
}
