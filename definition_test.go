package toolreg_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

func TestDefinitionMarshalsToTheOpenAIWireFormat(t *testing.T) {
	tests := []struct {
		name string
		def  toolreg.Definition
		want string
	}{
		{
			name: "the zero definition fills type, parameters type and properties",
			def:  toolreg.Definition{},
			want: `{"type":"function","function":{"name":"","description":"","parameters":{"type":"object","properties":{}}}}`,
		},
		{
			name: "an empty type is written as function",
			def:  toolreg.Definition{Function: toolreg.Function{Name: "get_weather", Description: "Weather now."}},
			want: `{"type":"function","function":{"name":"get_weather","description":"Weather now.","parameters":{"type":"object","properties":{}}}}`,
		},
		{
			name: "an explicit type is kept",
			def:  toolreg.Definition{Type: "function", Function: toolreg.Function{Name: "f"}},
			want: `{"type":"function","function":{"name":"f","description":"","parameters":{"type":"object","properties":{}}}}`,
		},
		{
			name: "strict is omitted when false",
			def:  toolreg.Definition{Function: toolreg.Function{Name: "f", Strict: false}},
			want: `{"type":"function","function":{"name":"f","description":"","parameters":{"type":"object","properties":{}}}}`,
		},
		{
			name: "strict is written between name and description when true",
			def: toolreg.Definition{Function: toolreg.Function{
				Name: "f", Strict: true,
				Parameters: toolreg.Parameters{AdditionalProperties: toolreg.Bool(false)},
			}},
			want: `{"type":"function","function":{"name":"f","strict":true,"description":"","parameters":{"type":"object","properties":{},"additionalProperties":false}}}`,
		},
		{
			name: "empty required and $defs are omitted",
			def: toolreg.Definition{Function: toolreg.Function{Name: "f", Parameters: toolreg.Parameters{
				Properties: map[string]any{}, Required: []string{}, Defs: map[string]any{},
			}}},
			want: `{"type":"function","function":{"name":"f","description":"","parameters":{"type":"object","properties":{}}}}`,
		},
		{
			name: "additionalProperties true is written, not dropped",
			def: toolreg.Definition{Function: toolreg.Function{Name: "f", Parameters: toolreg.Parameters{
				AdditionalProperties: toolreg.Bool(true),
			}}},
			want: `{"type":"function","function":{"name":"f","description":"","parameters":{"type":"object","properties":{},"additionalProperties":true}}}`,
		},
		{
			name: "every parameters field is written in wire order with sorted property keys",
			def: toolreg.Definition{Function: toolreg.Function{
				Name:        "search",
				Description: "Search the notes.",
				Parameters: toolreg.Parameters{
					Properties: map[string]any{
						"query": map[string]any{"type": "string"},
						"limit": map[string]any{"type": "integer"},
						"range": map[string]any{"$ref": "#/$defs/range"},
					},
					Required:             []string{"query", "limit", "range"},
					AdditionalProperties: toolreg.Bool(false),
					Defs:                 map[string]any{"range": map[string]any{"type": "object"}},
				},
			}},
			want: `{"type":"function","function":{"name":"search","description":"Search the notes.","parameters":{"type":"object",` +
				`"properties":{"limit":{"type":"integer"},"query":{"type":"string"},"range":{"$ref":"#/$defs/range"}},` +
				`"required":["query","limit","range"],"additionalProperties":false,"$defs":{"range":{"type":"object"}}}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.def)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestDefinitionMarshalsThroughPointersAndSlices(t *testing.T) {
	defs := []toolreg.Definition{{Function: toolreg.Function{Name: "a"}}}
	got, err := json.Marshal(defs)
	require.NoError(t, err)
	assert.Equal(t, `[{"type":"function","function":{"name":"a","description":"","parameters":{"type":"object","properties":{}}}}]`, string(got))

	got, err = json.Marshal(&defs[0])
	require.NoError(t, err)
	assert.Equal(t, `{"type":"function","function":{"name":"a","description":"","parameters":{"type":"object","properties":{}}}}`, string(got))
}

func TestDefinitionUnmarshalsTheWireFormat(t *testing.T) {
	const wire = `{
		"type": "function",
		"function": {
			"name": "get_weather",
			"strict": true,
			"description": "Weather for a city.",
			"parameters": {
				"type": "object",
				"properties": {
					"city": {"type": "string", "description": "City name"},
					"unit": {"type": ["string", "null"], "enum": ["c", "f", null]}
				},
				"required": ["city", "unit"],
				"additionalProperties": false,
				"$defs": {"unit": {"type": "string"}}
			}
		}
	}`
	var d toolreg.Definition
	require.NoError(t, json.Unmarshal([]byte(wire), &d))

	want := toolreg.Definition{
		Type: "function",
		Function: toolreg.Function{
			Name:        "get_weather",
			Strict:      true,
			Description: "Weather for a city.",
			Parameters: toolreg.Parameters{
				Type: "object",
				Properties: map[string]any{
					"city": map[string]any{"type": "string", "description": "City name"},
					"unit": map[string]any{"type": []any{"string", "null"}, "enum": []any{"c", "f", nil}},
				},
				Required:             []string{"city", "unit"},
				AdditionalProperties: toolreg.Bool(false),
				Defs:                 map[string]any{"unit": map[string]any{"type": "string"}},
			},
		},
	}
	assert.Equal(t, want, d)

	t.Run("and marshals it back to the same JSON", func(t *testing.T) {
		got, err := json.Marshal(d)
		require.NoError(t, err)
		assert.JSONEq(t, wire, string(got))
	})
}

func TestDefinitionRoundTripsThroughJSON(t *testing.T) {
	tests := []struct {
		name string
		def  toolreg.Definition
	}{
		{
			name: "a full definition comes back equal",
			def: toolreg.Definition{Type: "function", Function: toolreg.Function{
				Name: "f", Strict: true, Description: "d",
				Parameters: toolreg.Parameters{
					Type:                 "object",
					Properties:           map[string]any{"a": map[string]any{"type": "array", "items": map[string]any{"type": "number"}}},
					Required:             []string{"a"},
					AdditionalProperties: toolreg.Bool(false),
					Defs:                 map[string]any{"x": map[string]any{"type": "boolean"}},
				},
			}},
		},
		{
			name: "a definition with explicit defaults comes back equal",
			def: toolreg.Definition{Type: "function", Function: toolreg.Function{
				Name:       "g",
				Parameters: toolreg.Parameters{Type: "object", Properties: map[string]any{}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.def)
			require.NoError(t, err)
			var back toolreg.Definition
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tt.def, back)

			again, err := json.Marshal(back)
			require.NoError(t, err)
			assert.Equal(t, string(b), string(again))
		})
	}

	t.Run("a zero definition comes back with the wire defaults filled in", func(t *testing.T) {
		b, err := json.Marshal(toolreg.Definition{Function: toolreg.Function{Name: "z"}})
		require.NoError(t, err)
		var back toolreg.Definition
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, "function", back.Type)
		assert.Equal(t, "object", back.Function.Parameters.Type)
		assert.NotNil(t, back.Function.Parameters.Properties)
		assert.Empty(t, back.Function.Parameters.Properties)
		assert.Nil(t, back.Function.Parameters.Required)
		assert.Nil(t, back.Function.Parameters.AdditionalProperties)
		assert.Nil(t, back.Function.Parameters.Defs)
		assert.False(t, back.Function.Strict)
	})
}

func TestDefinitionsReturnsNormalizedDefinitions(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("bare", "ok", nil), "p")

	defs := r.Definitions(toolreg.Access{})
	require.Len(t, defs, 1)
	d := defs[0]
	assert.Equal(t, "function", d.Type, "an empty Type is stored as function")
	assert.Equal(t, "object", d.Function.Parameters.Type, "an empty Parameters.Type is stored as object")
	assert.NotNil(t, d.Function.Parameters.Properties, "nil Properties are stored as an empty map")
	assert.Empty(t, d.Function.Parameters.Properties)
	assert.Equal(t, "bare", d.Function.Name)
	assert.Equal(t, "test tool bare", d.Function.Description)

	b, err := json.Marshal(defs)
	require.NoError(t, err)
	assert.Equal(t, `[{"type":"function","function":{"name":"bare","description":"test tool bare","parameters":{"type":"object","properties":{}}}}]`, string(b))
}

func TestRegisterCopiesTheDefinition(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(tool *toolreg.RegisteredTool)
	}{
		{
			name:   "adding a property to the caller's map",
			mutate: func(tool *toolreg.RegisteredTool) { tool.Definition.Function.Parameters.Properties["extra"] = str() },
		},
		{
			name:   "deleting a property from the caller's map",
			mutate: func(tool *toolreg.RegisteredTool) { delete(tool.Definition.Function.Parameters.Properties, "city") },
		},
		{
			name: "changing a nested property schema",
			mutate: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Properties["city"].(map[string]any)["type"] = "integer"
			},
		},
		{
			name: "changing a nested slice in a property schema",
			mutate: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Properties["unit"].(map[string]any)["enum"].([]any)[0] = "kelvin"
			},
		},
		{
			name: "changing a schema inside a []map[string]any of a property schema",
			mutate: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Properties["unit"].(map[string]any)["anyOf"].([]map[string]any)[0]["type"] = "integer"
			},
		},
		{
			name:   "changing the caller's required slice",
			mutate: func(tool *toolreg.RegisteredTool) { tool.Definition.Function.Parameters.Required[0] = "unit" },
		},
		{
			name:   "flipping the caller's additionalProperties",
			mutate: func(tool *toolreg.RegisteredTool) { *tool.Definition.Function.Parameters.AdditionalProperties = true },
		},
		{
			name: "changing the caller's $defs",
			mutate: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Defs["d"].(map[string]any)["type"] = "number"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name+" after Register does not change Definitions", func(t *testing.T) {
			tool := newTool("weather", "ok", map[string]any{
				"city": str(),
				"unit": map[string]any{
					"type": "string", "enum": []any{"c", "f"},
					"anyOf": []map[string]any{{"type": "string"}, {"type": "null"}},
				},
			}, "city")
			tool.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
			tool.Definition.Function.Parameters.Defs = map[string]any{"d": map[string]any{"type": "string"}}

			r := toolreg.New()
			mustRegister(t, r, tool, "p")
			before, err := json.Marshal(r.Definitions(toolreg.Access{}))
			require.NoError(t, err)

			tt.mutate(&tool)

			after, err := json.Marshal(r.Definitions(toolreg.Access{}))
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after))

			// The stored copy still drives validation: city stays required
			// and extra stays unknown.
			_, code := failureOf(t, r.Execute(t.Context(), "weather", map[string]any{"extra": "x"}, toolreg.CallContext{}))
			assert.Equal(t, toolreg.CodeInvalidArguments, code)
			assert.Equal(t, "ok", r.Execute(t.Context(), "weather", map[string]any{"city": "Oslo"}, toolreg.CallContext{}))
		})
	}
}

func TestDefinitionsAreByteIdenticalWhateverTheRegistrationOrder(t *testing.T) {
	tools := []toolreg.RegisteredTool{
		newTool("zeta", "z", map[string]any{"b": str(), "a": str(), "c": map[string]any{"type": "integer"}}, "c", "a"),
		newTool("alpha", "a", nil),
		newTool("Mid-tool", "m", map[string]any{"q": str()}, "q"),
		newTool("beta_2", "b", map[string]any{"x": map[string]any{"type": "object", "properties": map[string]any{"y": str(), "w": str()}}}),
		newTool("beta-1", "b", nil),
	}
	orders := []struct {
		name  string
		order []int
	}{
		{name: "declared order", order: []int{0, 1, 2, 3, 4}},
		{name: "reversed order", order: []int{4, 3, 2, 1, 0}},
		{name: "shuffled order", order: []int{2, 0, 4, 1, 3}},
	}

	var want string
	for _, o := range orders {
		r := toolreg.New()
		for _, i := range o.order {
			mustRegister(t, r, tools[i], "p")
		}
		b, err := json.Marshal(r.Definitions(toolreg.Access{}))
		require.NoError(t, err)
		if want == "" {
			want = string(b)
			var names []string
			for _, d := range r.Definitions(toolreg.Access{}) {
				names = append(names, d.Function.Name)
			}
			require.Equal(t, []string{"Mid-tool", "alpha", "beta-1", "beta_2", "zeta"}, names, "definitions are sorted by name")
			continue
		}
		t.Run("the "+o.name+" gives the same bytes", func(t *testing.T) {
			assert.Equal(t, want, string(b))
		})
	}

	t.Run("replacing and re-adding a tool gives the same bytes", func(t *testing.T) {
		r := toolreg.New()
		for _, tool := range tools {
			mustRegister(t, r, tool, "p")
		}
		unregister := mustRegister(t, r, tools[1], "p")
		unregister()
		mustRegister(t, r, tools[1], "p")
		b, err := json.Marshal(r.Definitions(toolreg.Access{}))
		require.NoError(t, err)
		assert.Equal(t, want, string(b))
	})
}
