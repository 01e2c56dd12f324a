package mcpclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

func TestParameters(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		want   string // the Parameters as JSON; "" when refused
		err    error
	}{
		{"a plain object schema", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`, nil},
		{"no schema at all accepts any object", ``, `{"type":"object","properties":{}}`, nil},
		{"null is no schema", `null`, `{"type":"object","properties":{}}`, nil},
		{"a missing type is object", `{"properties":{"a":{}}}`, `{"type":"object","properties":{"a":{}}}`, nil},
		{"annotations are dropped", `{"$schema":"x","title":"t","description":"d","type":"object","examples":[{}]}`,
			`{"type":"object","properties":{}}`, nil},
		{"$defs are kept", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`, nil},
		{"definitions become $defs and their refs follow", `{"type":"object","properties":{"a":{"items":[{"$ref":"#/definitions/A"}]}},"definitions":{"A":{"$ref":"#/definitions/B"},"B":{}}}`,
			`{"type":"object","properties":{"a":{"items":[{"$ref":"#/$defs/A"}]}},"$defs":{"A":{"$ref":"#/$defs/B"},"B":{}}}`, nil},
		{"additionalProperties true is kept", `{"type":"object","additionalProperties":true}`,
			`{"type":"object","properties":{},"additionalProperties":true}`, nil},
		{"a non-object type", `{"type":"array"}`, "", ErrUnsupportedSchema},
		{"a type list", `{"type":["object","null"]}`, "", ErrUnsupportedSchema},
		{"a top-level anyOf", `{"type":"object","anyOf":[{}]}`, "", ErrUnsupportedSchema},
		{"additionalProperties as a schema", `{"type":"object","additionalProperties":{"type":"string"}}`, "", ErrUnsupportedSchema},
		{"properties that are not an object", `{"type":"object","properties":[]}`, "", ErrUnsupportedSchema},
		{"required that is not a list of strings", `{"type":"object","required":[1]}`, "", ErrUnsupportedSchema},
		{"both $defs and definitions", `{"type":"object","$defs":{},"definitions":{}}`, "", ErrUnsupportedSchema},
		{"not an object", `[1]`, "", ErrUnsupportedSchema},
		{"too deep", `{"type":"object","properties":{"a":` + strings.Repeat(`{"items":`, 40) + `{}` + strings.Repeat(`}`, 40) + `}}`, "", ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parameters([]byte(tc.schema), DefaultMaxSchemaDepth)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Equal(t, toolreg.Parameters{}, p)
				return
			}
			require.NoError(t, err)
			got, err := json.Marshal(p)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(got))
		})
	}
}

func TestDepth(t *testing.T) {
	nest := func(n int) any {
		var v any = "leaf"
		for range n {
			v = []any{v}
		}
		return v
	}
	assert.Equal(t, 0, depth("x", 10))
	assert.Equal(t, 1, depth(map[string]any{}, 10))
	assert.Equal(t, 5, depth(nest(5), 10))
	assert.Equal(t, 10, depth(nest(1000), 10), "the walk stops at the limit")
}
