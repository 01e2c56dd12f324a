package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolreg/toolreg"
)

// params checks that s is a JSON Schema object, as the registry encodes
// toolreg.Parameters.
func params(t testing.TB, s string) json.RawMessage {
	t.Helper()
	var p toolreg.Parameters
	require.NoError(t, json.Unmarshal([]byte(s), &p))
	b, err := json.Marshal(p)
	require.NoError(t, err)
	return b
}

func TestGeminiParameters(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // JSON of the GeminiSchema; "null" when no parameters are sent
	}{
		{
			name: "plain types keep descriptions and required",
			in: `{"type":"object","properties":{
				"path":{"type":"string","description":"file path"},
				"limit":{"type":"integer","minimum":1,"maximum":100},
				"recursive":{"type":"boolean"}},"required":["path"]}`,
			want: `{"type":"OBJECT","properties":{
				"path":{"type":"STRING","description":"file path"},
				"limit":{"type":"INTEGER","minimum":1,"maximum":100},
				"recursive":{"type":"BOOLEAN"}},"required":["path"]}`,
		},
		{
			name: "a tool without properties sends no parameters",
			in:   `{"type":"object","properties":{}}`,
			want: `null`,
		},
		{
			name: "refs to $defs are inlined and their siblings refine them",
			in: `{"type":"object","properties":{
				"from":{"$ref":"#/$defs/Point","description":"start"},
				"to":{"$ref":"#/$defs/Point"}},
				"$defs":{"Point":{"type":"object","description":"a point","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}}}`,
			want: `{"type":"OBJECT","properties":{
				"from":{"type":"OBJECT","description":"start","properties":{"x":{"type":"NUMBER"},"y":{"type":"NUMBER"}},"required":["x","y"]},
				"to":{"type":"OBJECT","description":"a point","properties":{"x":{"type":"NUMBER"},"y":{"type":"NUMBER"}},"required":["x","y"]}}}`,
		},
		{
			name: "a ref to a ref is followed",
			in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},
				"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"type":"string","enum":["x","y"]}}}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"STRING","format":"enum","enum":["x","y"]}}}`,
		},
		{
			name: "a ref by JSON pointer to a property is inlined",
			in:   `{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a"}}}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"STRING"}}}`,
		},
		{
			name: "a nullable type array becomes nullable",
			in:   `{"type":"object","properties":{"s":{"type":["string","null"]}}}`,
			want: `{"type":"OBJECT","properties":{"s":{"type":"STRING","nullable":true}}}`,
		},
		{
			name: "anyOf with null collapses to one nullable schema",
			in:   `{"type":"object","properties":{"n":{"description":"count","anyOf":[{"type":"integer"},{"type":"null"}]}}}`,
			want: `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","description":"count","nullable":true}}}`,
		},
		{
			name: "oneOf becomes anyOf",
			in:   `{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
			want: `{"type":"OBJECT","properties":{"v":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}}}`,
		},
		{
			name: "several types become anyOf with the keywords of each",
			in:   `{"type":"object","properties":{"v":{"type":["string","array"],"description":"one or many","maxLength":5,"items":{"type":"string"}}}}`,
			want: `{"type":"OBJECT","properties":{"v":{"description":"one or many","anyOf":[{"type":"STRING","maxLength":5},{"type":"ARRAY","items":{"type":"STRING"}}]}}}`,
		},
		{
			name: "allOf is merged",
			in: `{"type":"object","properties":{"o":{"allOf":[
				{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
				{"properties":{"b":{"type":"integer"}},"required":["b"]}]}}}`,
			want: `{"type":"OBJECT","properties":{"o":{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"INTEGER"}},"required":["a","b"]}}}`,
		},
		{
			name: "keywords Gemini rejects are dropped",
			in: `{"type":"object","additionalProperties":false,"properties":{
				"u":{"type":"string","format":"uri","x-sensitive":true,"$comment":"c","examples":["a"]},
				"t":{"type":"string","format":"date-time"},
				"i":{"type":"integer","format":"int64","exclusiveMinimum":0,"multipleOf":2},
				"m":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			want: `{"type":"OBJECT","properties":{
				"u":{"type":"STRING"},
				"t":{"type":"STRING","format":"date-time"},
				"i":{"type":"INTEGER","format":"int64"},
				"m":{"type":"OBJECT"}}}`,
		},
		{
			name: "an array without items gets string items",
			in:   `{"type":"object","properties":{"tags":{"type":"array","maxItems":3}}}`,
			want: `{"type":"OBJECT","properties":{"tags":{"type":"ARRAY","maxItems":3,"items":{"type":"STRING"}}}}`,
		},
		{
			name: "enums that are not all strings are dropped, const becomes an enum",
			in:   `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2,3]},"k":{"const":"fixed"},"e":{"enum":["a",null]}}}`,
			want: `{"type":"OBJECT","properties":{"n":{"type":"INTEGER"},"k":{"type":"STRING","format":"enum","enum":["fixed"]},"e":{"type":"STRING","format":"enum","enum":["a"],"nullable":true}}}`,
		},
		{
			name: "a schema without type is inferred, or a string",
			in:   `{"type":"object","properties":{"any":{},"yes":true,"list":{"items":{"type":"integer"}},"num":{"minimum":0},"flag":{"enum":[true,false]}}}`,
			want: `{"type":"OBJECT","properties":{"any":{"type":"STRING"},"yes":{"type":"STRING"},"list":{"type":"ARRAY","items":{"type":"INTEGER"}},"num":{"type":"NUMBER","minimum":0},"flag":{"type":"BOOLEAN"}}}`,
		},
		{
			name: "a false schema property is left out of properties and required",
			in:   `{"type":"object","properties":{"a":{"type":"string"},"never":false},"required":["a","never","missing"]}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"required":["a"]}`,
		},
		{
			name: "defaults and titles are kept",
			in:   `{"type":"object","properties":{"n":{"type":"integer","default":10,"title":"N"}}}`,
			want: `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","default":10,"title":"N"}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := geminiParameters(params(t, tt.in), Limits{}.withDefaults())
			require.NoError(t, err)
			b, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

// chain builds $defs where each level refers twice to the next: inlined,
// the schema doubles at each level.
func chain(levels int) string {
	var defs []string
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/L%d"},"b":{"$ref":"#/$defs/L%d"}}}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":"string"}`, levels))
	return `{"type":"object","properties":{"root":{"$ref":"#/$defs/L0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
}

func nested(depth int) string {
	return `{"type":"object","properties":{"x":` + strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"string"}` + strings.Repeat(`}`, depth) + `}}`
}

func TestGeminiParametersRefusals(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		limits  Limits
		want    error
		message string
	}{
		{
			name:    "a self-recursive schema is refused",
			in:      `{"type":"object","properties":{"tree":{"$ref":"#/$defs/Node"}},"$defs":{"Node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`,
			want:    ErrRecursiveSchema,
			message: `#/$defs/Node -> #/$defs/Node`,
		},
		{
			name: "mutual recursion is refused",
			in:   `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}}}`,
			want: ErrRecursiveSchema,
		},
		{
			name: "a ref to the root is recursion",
			in:   `{"type":"object","properties":{"self":{"$ref":"#"}}}`,
			want: ErrRecursiveSchema,
		},
		{
			name: "a ref cycle without properties in between is refused",
			in:   `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`,
			want: ErrRecursiveSchema,
		},
		{
			name: "a ref to nothing is refused",
			in:   `{"type":"object","properties":{"a":{"$ref":"#/$defs/Missing"}}}`,
			want: ErrUnresolvedRef,
		},
		{
			name: "a remote ref is refused",
			in:   `{"type":"object","properties":{"a":{"$ref":"https://example.com/schema.json"}}}`,
			want: ErrUnresolvedRef,
		},
		{
			name: "exponential expansion stops at the node bound",
			in:   chain(30),
			want: ErrSchemaTooLarge,
		},
		{
			name:   "nesting beyond the depth bound is refused",
			in:     nested(40),
			want:   ErrSchemaTooLarge,
			limits: Limits{SchemaDepth: 16},
		},
		{
			name: "a $ref that is not a string is malformed",
			in:   `{"type":"object","properties":{"a":{"$ref":5}}}`,
			want: ErrInvalidSchema,
		},
		{
			name: "a schema that is a number is malformed",
			in:   `{"type":"object","properties":{"a":5}}`,
			want: ErrInvalidSchema,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := geminiParameters(params(t, tt.in), tt.limits.withDefaults())
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.want)
			var f *schemaFault
			require.True(t, errors.As(err, &f))
			if tt.message != "" {
				assert.Contains(t, err.Error(), tt.message)
			}
		})
	}
}

func TestGeminiParametersWithinBounds(t *testing.T) {
	t.Run("a moderate shared definition is inlined at every use", func(t *testing.T) {
		got, err := geminiParameters(params(t, chain(6)), Limits{}.withDefaults())
		require.NoError(t, err)
		depth := 0
		for s := got.Properties["root"]; s != nil && s.Properties != nil; s = s.Properties["a"] {
			depth++
		}
		assert.Equal(t, 6, depth)
	})
	t.Run("nesting at the depth bound converts", func(t *testing.T) {
		_, err := geminiParameters(params(t, nested(14)), Limits{SchemaDepth: 16}.withDefaults())
		require.NoError(t, err)
	})
}
