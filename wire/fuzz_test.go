package wire_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

// fuzzLimits are small, so that the fuzzer reaches every bound.
var fuzzLimits = wire.Limits{ResponseBytes: 1 << 16, Calls: 8, ArgumentBytes: 512, Depth: 8, IDBytes: 32}

// checkCalls holds for every answer of a Calls method: either an error of
// this package and no calls, or calls within the bounds, with distinct,
// non-empty ids.
func checkCalls(t *testing.T, format string, raw []byte, calls []toolreg.ToolCall, err error) {
	if err != nil {
		var pe *wire.ParseError
		if !errors.As(err, &pe) || pe.Format != format || !strings.HasPrefix(err.Error(), "wire: ") {
			t.Fatalf("error %v (%T) is not a *ParseError of %s", err, err, format)
		}
		if calls != nil {
			t.Fatalf("calls %v returned with error %v", calls, err)
		}
		return
	}
	if len(calls) > fuzzLimits.Calls {
		t.Fatalf("%d calls exceed the bound", len(calls))
	}
	seen := map[string]bool{}
	for _, c := range calls {
		if c.ID == "" || seen[c.ID] || len(c.ID) > fuzzLimits.IDBytes {
			t.Fatalf("bad id %q in %v", c.ID, calls)
		}
		seen[c.ID] = true
		if len(c.Arguments) > fuzzLimits.ArgumentBytes {
			t.Fatalf("arguments of %d bytes exceed the bound", len(c.Arguments))
		}
		if !utf8.ValidString(c.ID) || !utf8.ValidString(c.Name) {
			t.Fatalf("call %+v is not UTF-8", c)
		}
	}
	if !utf8.Valid(raw) {
		t.Fatalf("a response that is not UTF-8 was accepted")
	}
}

func addSeeds(f *testing.F, index int) {
	fm := formats[index]
	f.Add([]byte(fm.response(call{"a", "t", `{"x":[1,{"y":null}]}`}, call{"b", "u", ``})))
	f.Add([]byte(fm.message(call{"a", "t", `{"s":"\u00e9\\"}`})))
	f.Add([]byte(fm.errorBody))
	f.Add([]byte(fm.wrongType))
	f.Add([]byte(fm.response(call{"", "t", `{}`}, call{"", "t", `{}`})))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{}`))
}

func FuzzChatCalls(f *testing.F) {
	addSeeds(f, 0)
	a := wire.New(nil, wire.WithLimits(fuzzLimits))
	f.Fuzz(func(t *testing.T, raw []byte) {
		calls, err := a.ChatCalls(raw)
		checkCalls(t, "openai-chat", raw, calls, err)
	})
}

func FuzzResponsesCalls(f *testing.F) {
	addSeeds(f, 1)
	a := wire.New(nil, wire.WithLimits(fuzzLimits))
	f.Fuzz(func(t *testing.T, raw []byte) {
		calls, err := a.ResponsesCalls(raw)
		checkCalls(t, "openai-responses", raw, calls, err)
	})
}

func FuzzAnthropicCalls(f *testing.F) {
	addSeeds(f, 2)
	a := wire.New(nil, wire.WithLimits(fuzzLimits))
	f.Fuzz(func(t *testing.T, raw []byte) {
		calls, err := a.AnthropicCalls(raw)
		checkCalls(t, "anthropic", raw, calls, err)
	})
}

func FuzzGeminiCalls(f *testing.F) {
	addSeeds(f, 3)
	a := wire.New(nil, wire.WithLimits(fuzzLimits))
	f.Fuzz(func(t *testing.T, raw []byte) {
		calls, err := a.GeminiCalls(raw)
		checkCalls(t, "gemini", raw, calls, err)
	})
}

// FuzzGeminiSchema converts arbitrary schemas, as a remote MCP server could
// declare them, and checks that what is produced is JSON Gemini can read:
// upper-case types, items on every array, no empty properties.
func FuzzGeminiSchema(f *testing.F) {
	f.Add(`{"a":{"type":"string"}}`, `{}`)
	f.Add(`{"a":{"$ref":"#/$defs/A"}}`, `{"A":{"type":"array","items":{"$ref":"#/$defs/A"}}}`)
	f.Add(`{"a":{"anyOf":[{"type":"integer"},{"type":"null"}]},"b":{"allOf":[{"$ref":"#/$defs/B"},{"required":["x"]}]}}`, `{"B":{"properties":{"x":{"enum":["p",1,null]}}}}`)
	f.Add(`{"a":{"type":["string","array","null"],"items":false},"b":true,"c":false}`, `{}`)
	f.Add(`{"a":{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}}`, `{}`)
	f.Fuzz(func(t *testing.T, props, defs string) {
		var p toolreg.Parameters
		if json.Unmarshal([]byte(props), &p.Properties) != nil || json.Unmarshal([]byte(defs), &p.Defs) != nil {
			return
		}
		reg := toolreg.New()
		if _, err := reg.Register(toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: "t", Parameters: p}},
			Handler:    tool("t", "", nil).Handler,
		}, "fuzz"); err != nil {
			return
		}
		a := wire.New(reg, wire.WithLimits(wire.Limits{SchemaDepth: 12, SchemaNodes: 256}))
		gem, err := a.GeminiTools(toolreg.Access{})
		if err != nil {
			var te *wire.ToolError
			if !errors.As(err, &te) || te.Tool != "t" {
				t.Fatalf("error %v is not a *ToolError for t", err)
			}
			if len(gem.FunctionDeclarations) != 0 {
				t.Fatalf("a failed tool was offered")
			}
			return
		}
		if len(gem.FunctionDeclarations) != 1 {
			t.Fatalf("got %d declarations", len(gem.FunctionDeclarations))
		}
		if s := gem.FunctionDeclarations[0].Parameters; s != nil {
			if s.Type != "OBJECT" || len(s.Properties) == 0 {
				t.Fatalf("root %+v is not an OBJECT with properties", s)
			}
			checkGeminiSchema(t, s, 0)
		}
		if _, err := json.Marshal(gem); err != nil {
			t.Fatal(err)
		}
	})
}

func checkGeminiSchema(t *testing.T, s *wire.GeminiSchema, depth int) {
	if depth > 40 {
		t.Fatalf("schema deeper than its bound")
	}
	switch s.Type {
	case "STRING", "NUMBER", "INTEGER", "BOOLEAN", "OBJECT", "NULL":
	case "ARRAY":
		if s.Items == nil {
			t.Fatalf("array without items")
		}
	case "":
		if len(s.AnyOf) < 2 {
			t.Fatalf("a schema without type needs anyOf: %+v", s)
		}
	default:
		t.Fatalf("type %q", s.Type)
	}
	if s.Properties != nil && len(s.Properties) == 0 {
		t.Fatalf("empty properties")
	}
	for _, r := range s.Required {
		if s.Properties[r] == nil {
			t.Fatalf("required %q is not a property", r)
		}
	}
	for _, p := range s.Properties {
		checkGeminiSchema(t, p, depth+1)
	}
	for _, a := range s.AnyOf {
		checkGeminiSchema(t, a, depth+1)
	}
	if s.Items != nil {
		checkGeminiSchema(t, s.Items, depth+1)
	}
}

// FuzzStrictVendorKeywords registers a strict tool whose $defs holds an
// arbitrary schema and checks that the chat, Responses and Anthropic
// formats send the same schema, with no vendor keyword left at any depth,
// and leave the registry's definitions as they were.
func FuzzStrictVendorKeywords(f *testing.F) {
	f.Add(`{"type":"string","x-sensitive":true}`)
	f.Add(`{"anyOf":[{"type":"string","x-sensitive":true},{"type":"null","x-a":{"x-b":1}}],"x-c":[1]}`)
	f.Add(`{"type":"array","items":[{"x-a":1},{"items":{"x-b":2}}],"enum":[{"x-data":1}],"default":{"x-d":true}}`)
	f.Add(`{"type":"object","properties":{"x-name":{"x-sensitive":true}},"required":["x-name"],"additionalProperties":false,"$defs":{"x-def":{"not":{"x-e":0}}}}`)
	f.Fuzz(func(t *testing.T, def string) {
		var d any
		dec := json.NewDecoder(strings.NewReader(def))
		dec.UseNumber()
		if dec.Decode(&d) != nil {
			return
		}
		reg := toolreg.New()
		if _, err := reg.Register(toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: "t", Strict: true, Parameters: toolreg.Parameters{
				Properties:           map[string]any{"a": map[string]any{"$ref": "#/$defs/D"}},
				Required:             []string{"a"},
				AdditionalProperties: toolreg.Bool(false),
				Defs:                 map[string]any{"D": d},
			}}},
			Handler: tool("t", "", nil).Handler,
		}, "fuzz"); err != nil {
			return
		}
		before := string(reg.DefinitionsJSON(toolreg.Access{}))
		a := wire.New(reg)
		chat, err1 := a.ChatTools(toolreg.Access{})
		resp, err2 := a.ResponsesTools(toolreg.Access{})
		anth, err3 := a.AnthropicTools(toolreg.Access{})
		if err1 != nil || err2 != nil || err3 != nil || len(chat) != 1 || len(resp) != 1 || len(anth) != 1 {
			t.Fatalf("listing failed: %v %v %v", err1, err2, err3)
		}
		sent := mustJSON(t, chat[0].Function.Parameters)
		if !jsonEqual(sent, string(resp[0].Parameters)) || !jsonEqual(sent, string(anth[0].InputSchema)) {
			t.Fatalf("formats disagree:\nchat %s\nresponses %s\nanthropic %s", sent, resp[0].Parameters, anth[0].InputSchema)
		}
		var v any
		if err := json.Unmarshal([]byte(sent), &v); err != nil {
			t.Fatal(err)
		}
		if path := vendorKeywordAt(v, "parameters"); path != "" {
			t.Fatalf("vendor keyword sent at %s: %s", path, sent)
		}
		if after := string(reg.DefinitionsJSON(toolreg.Access{})); after != before {
			t.Fatalf("the registry's definitions changed:\n%s\n%s", before, after)
		}
	})
}

func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// vendorKeywordAt returns the path of a vendor keyword in schema v, or "".
// It looks where JSON Schema puts subschemas; property names and the
// values of other keywords (enum, default, unknown ones) are not keywords.
func vendorKeywordAt(v any, path string) string {
	switch v := v.(type) {
	case []any: // a list of schemas
		for i, sub := range v {
			if p := vendorKeywordAt(sub, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case map[string]any:
		for k, sub := range v {
			switch {
			case strings.HasPrefix(k, "x-"):
				return path + "." + k
			case slices.Contains([]string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}, k):
				named, _ := sub.(map[string]any)
				for name, s := range named {
					if p := vendorKeywordAt(s, path+"."+k+"."+name); p != "" {
						return p
					}
				}
			case slices.Contains([]string{"items", "additionalProperties", "additionalItems", "not", "contains", "propertyNames",
				"if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "anyOf", "oneOf", "allOf", "prefixItems"}, k):
				if p := vendorKeywordAt(sub, path+"."+k); p != "" {
					return p
				}
			}
		}
	}
	return ""
}
