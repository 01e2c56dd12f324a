package toolreg

import (
	"testing"

	"pgregory.net/rapid"
)

// TestFastSchemaNeverAcceptsWhatTheFullValidatorRefuses draws schemas from
// the keywords the fast schema compiles and arguments near them, and checks
// the one promise it makes: when it says valid, the full validator agrees.
// It also checks that it decides most valid arguments by itself.
func TestFastSchemaNeverAcceptsWhatTheFullValidatorRefuses(t *testing.T) {
	var agreedValid, fullValid int
	rapid.Check(t, func(rt *rapid.T) {
		props := map[string]any{}
		for _, name := range []string{"a", "b", "c"} {
			if rapid.Bool().Draw(rt, "has "+name) {
				props[name] = drawSchema(rt, 0)
			}
		}
		p := Parameters{Type: "object", Properties: props,
			Defs: map[string]any{"d": drawSchema(rt, 1)}}
		if rapid.Bool().Draw(rt, "closed") {
			p.AdditionalProperties = Bool(false)
		}
		req := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b"}), 0, 2, rapid.ID).Draw(rt, "required")
		for _, r := range req {
			if _, ok := props[r]; ok {
				p.Required = append(p.Required, r)
			}
		}
		full, err := compileSchema(p)
		if err != nil {
			rt.Skip("the full validator refuses the schema")
		}
		fast := newFastSchema(p)
		if fast == nil {
			rt.Fatalf("no fast schema for %v", p)
		}
		args := map[string]any{}
		for _, name := range []string{"a", "b", "c", "z"} {
			if rapid.Bool().Draw(rt, "arg "+name) {
				args[name] = drawValue(rt, 0)
			}
		}
		fullOK := full.Validate(args) == nil
		fastOK := fast.valid(args)
		if fastOK && !fullOK {
			rt.Fatalf("fast accepts what full refuses: schema %v, args %v", p.Properties, args)
		}
		if fullOK {
			fullValid++
			if fastOK {
				agreedValid++
			}
		}
	})
	if fullValid > 0 && agreedValid*10 < fullValid*9 {
		t.Fatalf("the fast schema decided only %d of %d valid argument sets", agreedValid, fullValid)
	}
}

// drawSchema draws a subschema from the keywords the fast schema compiles.
func drawSchema(rt *rapid.T, depth int) any {
	if depth > 2 || rapid.IntRange(0, 9).Draw(rt, "leaf") == 0 {
		return rapid.SampledFrom([]any{true, false, map[string]any{}}).Draw(rt, "trivial")
	}
	s := map[string]any{}
	types := []string{"null", "boolean", "number", "integer", "string", "array", "object"}
	switch rapid.IntRange(0, 2).Draw(rt, "type form") {
	case 1:
		s["type"] = rapid.SampledFrom(types).Draw(rt, "type")
	case 2:
		pick := rapid.SliceOfNDistinct(rapid.SampledFrom(types), 1, 3, rapid.ID).Draw(rt, "types")
		list := make([]any, len(pick))
		for i, x := range pick {
			list[i] = x
		}
		s["type"] = list
	}
	for _, kw := range []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"} {
		if rapid.IntRange(0, 5).Draw(rt, kw) == 0 {
			s[kw] = float64(rapid.IntRange(0, 3).Draw(rt, kw+" value"))
		}
	}
	for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if rapid.IntRange(0, 5).Draw(rt, kw) == 0 {
			s[kw] = rapid.SampledFrom([]float64{-1, 0, 0.5, 1, 2.5}).Draw(rt, kw+" value")
		}
	}
	if rapid.IntRange(0, 5).Draw(rt, "pattern") == 0 {
		s["pattern"] = rapid.SampledFrom([]string{"^a", "b$", "[0-9]", "^$", "é"}).Draw(rt, "pattern value")
	}
	if rapid.IntRange(0, 5).Draw(rt, "enum") == 0 {
		s["enum"] = rapid.SliceOfN(rapid.SampledFrom([]any{nil, true, 1.0, 2.0, "a", "é"}), 1, 3).Draw(rt, "enum value")
	}
	if rapid.IntRange(0, 7).Draw(rt, "const") == 0 {
		s["const"] = rapid.SampledFrom([]any{nil, false, 1.0, "a"}).Draw(rt, "const value")
	}
	if rapid.IntRange(0, 3).Draw(rt, "properties") == 0 {
		s["properties"] = map[string]any{"x": drawSchema(rt, depth+1)}
		if rapid.Bool().Draw(rt, "required x") {
			s["required"] = []any{"x"}
		}
		switch rapid.IntRange(0, 2).Draw(rt, "additional") {
		case 1:
			s["additionalProperties"] = false
		case 2:
			s["additionalProperties"] = drawSchema(rt, depth+1)
		}
	}
	if rapid.IntRange(0, 3).Draw(rt, "items") == 0 {
		s["items"] = drawSchema(rt, depth+1)
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if rapid.IntRange(0, 5).Draw(rt, kw) == 0 {
			s[kw] = []any{drawSchema(rt, depth+1), drawSchema(rt, depth+1)}
		}
	}
	if rapid.IntRange(0, 7).Draw(rt, "not") == 0 {
		s["not"] = drawSchema(rt, depth+1)
	}
	if depth == 0 && rapid.IntRange(0, 5).Draw(rt, "ref") == 0 {
		s["$ref"] = "#/$defs/d"
	}
	if rapid.Bool().Draw(rt, "annotations") {
		s["description"], s["format"], s["x-sensitive"] = "d", "email", true
	}
	return s
}

// drawValue draws an argument value as encoding/json decodes one.
func drawValue(rt *rapid.T, depth int) any {
	kinds := 5
	if depth < 2 {
		kinds = 7
	}
	switch rapid.IntRange(0, kinds-1).Draw(rt, "kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(rt, "bool")
	case 2:
		return rapid.SampledFrom([]float64{-1, 0, 0.5, 1, 2, 2.5, 3, 1e300}).Draw(rt, "number")
	case 3, 4:
		return rapid.SampledFrom([]string{"", "a", "ab", "ba", "abc", "é", "1", "aé"}).Draw(rt, "string")
	case 5:
		n := rapid.IntRange(0, 3).Draw(rt, "len")
		out := make([]any, n)
		for i := range out {
			out[i] = drawValue(rt, depth+1)
		}
		return out
	}
	out := map[string]any{}
	for _, k := range []string{"x", "y"} {
		if rapid.Bool().Draw(rt, "has "+k) {
			out[k] = drawValue(rt, depth+1)
		}
	}
	return out
}
