package toolreg_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// validateCounted returns tool with a handler that counts its calls and
// records the arguments of the last one, answering "ok".
func validateCounted(tool toolreg.RegisteredTool) (toolreg.RegisteredTool, *atomic.Int32, *atomic.Pointer[map[string]any]) {
	var calls atomic.Int32
	var last atomic.Pointer[map[string]any]
	tool.Handler = func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		calls.Add(1)
		last.Store(&args)
		return "ok", nil
	}
	return tool, &calls, &last
}

// validateOutcome checks a call's result: with no fragments it succeeded and
// the handler ran once; otherwise it was refused as invalid_arguments with a
// message containing every fragment, and the handler never ran.
func validateOutcome(t *testing.T, res string, calls *atomic.Int32, fragments []string) {
	t.Helper()
	if len(fragments) == 0 {
		require.Equal(t, "ok", res)
		assert.EqualValues(t, 1, calls.Load())
		return
	}
	msg, code := failureOf(t, res)
	assert.Equal(t, toolreg.CodeInvalidArguments, code)
	for _, f := range fragments {
		assert.Contains(t, msg, f)
	}
	assert.Zero(t, calls.Load())
}

// validateObject is the JSON Schema of a closed object whose properties are
// all required, as strict mode wants it.
func validateObject(props map[string]any) map[string]any {
	var required []any
	for _, k := range slices.Sorted(maps.Keys(props)) {
		required = append(required, k)
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// validateStrict returns a strict tool over props, all of them required and
// no others allowed.
func validateStrict(name string, props map[string]any) toolreg.RegisteredTool {
	tool := newTool(name, "ok", props, slices.Sorted(maps.Keys(props))...)
	tool.Definition.Function.Strict = true
	tool.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
	return tool
}

// validateRegisterError asserts that err is a *RegisterError and returns it.
func validateRegisterError(t *testing.T, err error) *toolreg.RegisterError {
	t.Helper()
	require.Error(t, err)
	var re *toolreg.RegisterError
	require.ErrorAs(t, err, &re)
	return re
}

// validateProblemWith returns the first problem of re that wraps kind and
// contains every fragment, failing the test when there is none.
func validateProblemWith(t *testing.T, re *toolreg.RegisterError, kind error, fragments ...string) error {
	t.Helper()
next:
	for _, p := range re.Problems {
		if !errors.Is(p, kind) {
			continue
		}
		for _, f := range fragments {
			if !strings.Contains(p.Error(), f) {
				continue next
			}
		}
		return p
	}
	t.Fatalf("no problem wraps %v and contains %q; problems: %v", kind, fragments, re.Problems)
	return nil
}

func TestRegisterChecksTheToolName(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		valid bool
	}{
		{"a lowercase name is valid", "get_weather", true},
		{"letters, digits, underscores and dashes are valid", "Tool-2_b", true},
		{"a one-character name is valid", "x", true},
		{"a 64-character name is valid", strings.Repeat("a", 64), true},
		{"a 65-character name is invalid", strings.Repeat("a", 65), false},
		{"an empty name is invalid", "", false},
		{"a name with a dot is invalid", "files.read", false},
		{"a name with a space is invalid", "read file", false},
		{"a name with a slash is invalid", "fs/read", false},
		{"a name with a colon is invalid", "mcp:read", false},
		{"a name with a non-ASCII letter is invalid", "lüften", false},
		{"a name with a trailing newline is invalid", "read\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := toolreg.New()
			_, err := r.Register(newTool(tt.tool, "ok", nil), "p")
			if tt.valid {
				require.NoError(t, err)
				assert.True(t, r.Has(tt.tool))
				return
			}
			assert.ErrorIs(t, err, toolreg.ErrInvalidName)
			re := validateRegisterError(t, err)
			require.Len(t, re.Problems, 1)
			assert.Equal(t, tt.tool, re.Name)
			assert.Equal(t, "p", re.Plugin)
			validateProblemWith(t, re, toolreg.ErrInvalidName, "^[a-zA-Z0-9_-]{1,64}$")
			assert.Empty(t, r.All())
		})
	}

	t.Run("Reserve checks the name as well", func(t *testing.T) {
		r := toolreg.New()
		_, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "a.b"}}, "p")
		assert.ErrorIs(t, err, toolreg.ErrInvalidName)
		assert.Empty(t, r.All())
	})
}

func TestRegisterChecksTheDefinitionAndPolicy(t *testing.T) {
	tests := []struct {
		name      string
		modify    func(*toolreg.RegisteredTool)
		kind      error
		fragments []string
	}{
		{
			name:      "a nil handler is a missing handler",
			modify:    func(tool *toolreg.RegisteredTool) { tool.Handler = nil },
			kind:      toolreg.ErrMissingHandler,
			fragments: []string{"Handler", "Reserve"},
		},
		{
			name: "a required key that is not a property is an invalid schema",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Required = []string{"city", "country"}
			},
			kind:      toolreg.ErrInvalidSchema,
			fragments: []string{"required", `"country"`},
		},
		{
			name: "a property schema that is a string is an invalid schema",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Properties["unit"] = "string"
			},
			kind:      toolreg.ErrInvalidSchema,
			fragments: []string{"properties.unit"},
		},
		{
			name: "a property schema that is a number is an invalid schema",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Properties["unit"] = 3
			},
			kind:      toolreg.ErrInvalidSchema,
			fragments: []string{"properties.unit"},
		},
		{
			name: "a property schema that is nil is an invalid schema",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Properties["unit"] = nil
			},
			kind:      toolreg.ErrInvalidSchema,
			fragments: []string{"properties.unit"},
		},
		{
			name:      "a definition type other than function is an invalid schema",
			modify:    func(tool *toolreg.RegisteredTool) { tool.Definition.Type = "tool" },
			kind:      toolreg.ErrInvalidSchema,
			fragments: []string{`"tool"`, `"function"`},
		},
		{
			name:      "a parameters type other than object is an invalid schema",
			modify:    func(tool *toolreg.RegisteredTool) { tool.Definition.Function.Parameters.Type = "array" },
			kind:      toolreg.ErrInvalidSchema,
			fragments: []string{"parameters.type", `"array"`, `"object"`},
		},
		{
			name:      "an empty group name is an invalid name",
			modify:    func(tool *toolreg.RegisteredTool) { tool.Groups = []string{"files", ""} },
			kind:      toolreg.ErrInvalidName,
			fragments: []string{`group name ""`},
		},
		{
			name:      "a group name with a space is an invalid name",
			modify:    func(tool *toolreg.RegisteredTool) { tool.Groups = []string{"my files"} },
			kind:      toolreg.ErrInvalidName,
			fragments: []string{`"my files"`},
		},
		{
			name:      "a 65-character group name is an invalid name",
			modify:    func(tool *toolreg.RegisteredTool) { tool.Groups = []string{strings.Repeat("g", 65)} },
			kind:      toolreg.ErrInvalidName,
			fragments: []string{strings.Repeat("g", 65)},
		},
		{
			name:      "a negative timeout is an invalid policy",
			modify:    func(tool *toolreg.RegisteredTool) { tool.Timeout = -time.Second },
			kind:      toolreg.ErrInvalidPolicy,
			fragments: []string{"Timeout", "-1s"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := toolreg.New()
			tool := newTool("weather", "ok", map[string]any{"city": str(), "unit": str()}, "city")
			tt.modify(&tool)
			unregister, err := r.Register(tool, "p")
			assert.ErrorIs(t, err, tt.kind)
			re := validateRegisterError(t, err)
			require.Len(t, re.Problems, 1, "problems: %v", re.Problems)
			validateProblemWith(t, re, tt.kind, tt.fragments...)
			assert.True(t, strings.HasPrefix(err.Error(), "toolreg: "), "error %q is prefixed", err)
			assert.Contains(t, err.Error(), `"weather"`, "the error names the tool")

			require.NotNil(t, unregister)
			unregister() // a no-op, not a panic
			assert.False(t, r.Has("weather"))
			assert.Empty(t, r.All())
		})
	}

	t.Run("a boolean property schema is valid", func(t *testing.T) {
		r := toolreg.New()
		mustRegister(t, r, newTool("anything", "ok", map[string]any{"x": true}), "p")
		assert.Equal(t, "ok", r.Execute(t.Context(), "anything", map[string]any{"x": 1}, toolreg.CallContext{}))
	})

	t.Run("explicit function and object types are valid", func(t *testing.T) {
		r := toolreg.New()
		tool := newTool("explicit", "ok", nil)
		tool.Definition.Type = "function"
		tool.Definition.Function.Parameters.Type = "object"
		mustRegister(t, r, tool, "p")
		assert.True(t, r.Has("explicit"))
	})

	t.Run("a zero timeout is valid", func(t *testing.T) {
		r := toolreg.New()
		tool := newTool("t", "ok", nil)
		tool.Timeout = 0
		mustRegister(t, r, tool, "p")
		assert.True(t, r.Has("t"))
	})
}

func TestRegisterReportsEveryProblemTogether(t *testing.T) {
	tool := newTool("bad name", "ok", map[string]any{"city": "string"}, "city", "country")
	tool.Handler = nil
	tool.Groups = []string{""}
	tool.Timeout = -time.Minute
	tool.Risk = "extreme"
	tool.Definition.Type = "tool"

	r := toolreg.New()
	mustRegister(t, r, newTool("keep", "kept", nil), "p")
	version := r.Version()

	unregister, err := r.Register(tool, "plugin-x")
	for _, kind := range []error{toolreg.ErrInvalidName, toolreg.ErrMissingHandler, toolreg.ErrInvalidSchema, toolreg.ErrInvalidPolicy} {
		assert.ErrorIs(t, err, kind)
	}
	assert.NotErrorIs(t, err, toolreg.ErrDuplicate)

	re := validateRegisterError(t, err)
	assert.Equal(t, "bad name", re.Name)
	assert.Equal(t, "plugin-x", re.Plugin)
	// name, handler, type, property schema, required key, risk, group,
	// timeout: eight problems, each reported once.
	assert.Len(t, re.Problems, 8, "problems: %v", re.Problems)
	validateProblemWith(t, re, toolreg.ErrInvalidName, `"bad name"`)
	validateProblemWith(t, re, toolreg.ErrInvalidName, `group name ""`)
	validateProblemWith(t, re, toolreg.ErrMissingHandler)
	validateProblemWith(t, re, toolreg.ErrInvalidSchema, `"tool"`)
	validateProblemWith(t, re, toolreg.ErrInvalidSchema, "properties.city")
	validateProblemWith(t, re, toolreg.ErrInvalidSchema, `"country"`)
	validateProblemWith(t, re, toolreg.ErrInvalidPolicy, "Risk", `"extreme"`)
	validateProblemWith(t, re, toolreg.ErrInvalidPolicy, "Timeout")
	for _, p := range re.Problems {
		assert.Contains(t, err.Error(), p.Error(), "Error lists every problem")
	}

	t.Run("and registers nothing", func(t *testing.T) {
		unregister()
		assert.Equal(t, version, r.Version())
		all := r.All()
		require.Len(t, all, 1)
		assert.Equal(t, "keep", all[0].Name)
	})
}

func TestFailedRegisterLeavesTheExistingToolInPlace(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("weather", "old", map[string]any{"city": str()}), "old-plugin")
	before := r.Definitions(toolreg.Access{})
	version := r.Version()

	broken := newTool("weather", "new", map[string]any{"city": str()}, "country")
	_, err := r.Register(broken, "new-plugin")
	require.ErrorIs(t, err, toolreg.ErrInvalidSchema)

	assert.Equal(t, version, r.Version())
	assert.Equal(t, before, r.Definitions(toolreg.Access{}))
	assert.Equal(t, "old", r.Execute(t.Context(), "weather", nil, toolreg.CallContext{}))
	all := r.All()
	require.Len(t, all, 1)
	assert.Equal(t, "old-plugin", all[0].PluginName)
}

func TestRegisterChecksStrictModeRules(t *testing.T) {
	tests := []struct {
		name      string
		modify    func(*toolreg.RegisteredTool)
		fragments [][]string // one entry per expected problem
	}{
		{
			name:      "a strict tool without additionalProperties is rejected",
			modify:    func(tool *toolreg.RegisteredTool) { tool.Definition.Function.Parameters.AdditionalProperties = nil },
			fragments: [][]string{{"parameters.additionalProperties", "false"}},
		},
		{
			name: "a strict tool with additionalProperties true is rejected",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(true)
			},
			fragments: [][]string{{"parameters.additionalProperties", "false"}},
		},
		{
			name: "a strict tool with an optional property is rejected",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Required = []string{"query", "filter", "rows"}
			},
			fragments: [][]string{{"parameters.required", `"tags"`}},
		},
		{
			name: "a nested object without additionalProperties false is rejected",
			modify: func(tool *toolreg.RegisteredTool) {
				delete(tool.Definition.Function.Parameters.Properties["filter"].(map[string]any), "additionalProperties")
			},
			fragments: [][]string{{"parameters.properties.filter.additionalProperties"}},
		},
		{
			name: "a nested object with an optional property is rejected",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Properties["filter"].(map[string]any)["required"] = []any{"limit"}
			},
			fragments: [][]string{{"parameters.properties.filter.required", `"lang"`}},
		},
		{
			name: "an object in array items without additionalProperties false is rejected",
			modify: func(tool *toolreg.RegisteredTool) {
				rows := tool.Definition.Function.Parameters.Properties["rows"].(map[string]any)
				rows["items"].(map[string]any)["additionalProperties"] = true
			},
			fragments: [][]string{{"parameters.properties.rows.items.additionalProperties"}},
		},
		{
			name: "an object in array items with an optional property is rejected",
			modify: func(tool *toolreg.RegisteredTool) {
				rows := tool.Definition.Function.Parameters.Properties["rows"].(map[string]any)
				rows["items"].(map[string]any)["required"] = []string{}
			},
			fragments: [][]string{{"parameters.properties.rows.items.required", `"id"`}},
		},
		{
			name: "an object two levels down is checked too",
			modify: func(tool *toolreg.RegisteredTool) {
				filter := tool.Definition.Function.Parameters.Properties["filter"].(map[string]any)
				filter["properties"].(map[string]any)["range"] = map[string]any{
					"type":       "object",
					"properties": map[string]any{"from": str()},
				}
				filter["required"] = []any{"limit", "lang", "range"}
			},
			fragments: [][]string{
				{"parameters.properties.filter.properties.range.additionalProperties"},
				{"parameters.properties.filter.properties.range.required", `"from"`},
			},
		},
		{
			name: "an object in $defs is checked too",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Defs = map[string]any{
					"point": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "number"}}},
				}
			},
			fragments: [][]string{
				{"$defs.point.additionalProperties"},
				{"$defs.point.required", `"x"`},
			},
		},
		{
			name: "an object in an anyOf written as []map[string]any is checked too",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Properties["query"] = map[string]any{"anyOf": []map[string]any{
					{"type": "string"},
					{"type": "object", "properties": map[string]any{"q": str()}, "required": []string{"q"}},
				}}
			},
			fragments: [][]string{{"parameters.properties.query.anyOf[1].additionalProperties"}},
		},
		{
			name: "an object in an anyOf branch is checked too",
			modify: func(tool *toolreg.RegisteredTool) {
				tool.Definition.Function.Parameters.Properties["query"] = map[string]any{"anyOf": []any{
					map[string]any{"type": "string"},
					map[string]any{"type": "object", "properties": map[string]any{"q": str()}, "required": []any{"q"}},
				}}
			},
			fragments: [][]string{{"parameters.properties.query.anyOf[1].additionalProperties"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := validateStrictSearch()
			tt.modify(&tool)
			r := toolreg.New()
			_, err := r.Register(tool, "p")
			assert.ErrorIs(t, err, toolreg.ErrInvalidSchema)
			re := validateRegisterError(t, err)
			assert.Len(t, re.Problems, len(tt.fragments), "problems: %v", re.Problems)
			for _, f := range tt.fragments {
				p := validateProblemWith(t, re, toolreg.ErrInvalidSchema, f...)
				assert.Contains(t, p.Error(), "strict")
			}
			assert.False(t, r.Has("search"))
		})
	}

	t.Run("a schema that follows every rule registers", func(t *testing.T) {
		r := toolreg.New()
		mustRegister(t, r, validateStrictSearch(), "p")
		assert.True(t, r.Has("search"))
	})

	t.Run("a nullable nested object that follows the rules registers", func(t *testing.T) {
		tool := validateStrict("nullable", map[string]any{
			"opt": map[string]any{
				"type":                 []any{"object", "null"},
				"properties":           map[string]any{"a": str()},
				"required":             []any{"a"},
				"additionalProperties": false,
			},
		})
		r := toolreg.New()
		mustRegister(t, r, tool, "p")
		assert.Equal(t, "ok", r.Execute(t.Context(), "nullable", map[string]any{"opt": nil}, toolreg.CallContext{}))
	})

	t.Run("the same rules do not apply to a tool that is not strict", func(t *testing.T) {
		tool := validateStrictSearch()
		tool.Definition.Function.Strict = false
		tool.Definition.Function.Parameters.AdditionalProperties = nil
		tool.Definition.Function.Parameters.Required = nil
		delete(tool.Definition.Function.Parameters.Properties["filter"].(map[string]any), "additionalProperties")
		r := toolreg.New()
		mustRegister(t, r, tool, "p")
	})
}

// validateStrictSearch is a strict tool with a nested object, an array of
// strings and an array of objects, following every strict-mode rule.
func validateStrictSearch() toolreg.RegisteredTool {
	return validateStrict("search", map[string]any{
		"query": map[string]any{"type": "string", "minLength": 1},
		"filter": validateObject(map[string]any{
			"limit": map[string]any{"type": "integer", "minimum": 1},
			"lang":  map[string]any{"type": "string", "enum": []any{"en", "de"}},
		}),
		"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"rows": map[string]any{"type": "array", "items": validateObject(map[string]any{
			"id": map[string]any{"type": "integer"},
		})},
	})
}

// validateSearchArgs returns arguments that validateStrictSearch accepts.
func validateSearchArgs() map[string]any {
	return map[string]any{
		"query":  "go",
		"filter": map[string]any{"limit": float64(10), "lang": "en"},
		"tags":   []any{"a", "b"},
		"rows":   []any{map[string]any{"id": float64(1)}},
	}
}

func TestRegisterRejectsSchemasThatDoNotCompile(t *testing.T) {
	schemas := []struct {
		name      string
		schema    map[string]any
		fragments []string
	}{
		{name: "a type that is a number", schema: map[string]any{"type": 12}},
		{name: "a type that is not a JSON type", schema: map[string]any{"type": "strin"}},
		{name: "a pattern that is not a regular expression", schema: map[string]any{"type": "string", "pattern": "(unclosed"}},
		{name: "a minimum that is a string", schema: map[string]any{"type": "integer", "minimum": "one"}},
		{name: "a remote $ref", schema: map[string]any{"$ref": "https://example.com/schemas/x.json"}, fragments: []string{"example.com"}},
		{name: "a $ref to a file", schema: map[string]any{"$ref": "file:///etc/passwd"}, fragments: []string{"/etc/passwd"}},
		{name: "a local $ref to a missing definition", schema: map[string]any{"$ref": "#/$defs/missing"}},
	}
	modes := []struct {
		name string
		opts []toolreg.Option
		tool func(prop map[string]any) toolreg.RegisteredTool
	}{
		{
			name: "strict tool",
			tool: func(prop map[string]any) toolreg.RegisteredTool {
				return validateStrict("t", map[string]any{"x": prop})
			},
		},
		{
			name: "non-strict tool with WithSchemaValidation",
			opts: []toolreg.Option{toolreg.WithSchemaValidation()},
			tool: func(prop map[string]any) toolreg.RegisteredTool {
				return newTool("t", "ok", map[string]any{"x": prop})
			},
		},
	}
	for _, m := range modes {
		for _, s := range schemas {
			t.Run("a "+m.name+" with "+s.name+" is an invalid schema", func(t *testing.T) {
				r := toolreg.New(m.opts...)
				unregister, err := r.Register(m.tool(s.schema), "p")
				assert.ErrorIs(t, err, toolreg.ErrInvalidSchema)
				re := validateRegisterError(t, err)
				require.Len(t, re.Problems, 1, "problems: %v", re.Problems)
				validateProblemWith(t, re, toolreg.ErrInvalidSchema, s.fragments...)
				unregister()
				assert.False(t, r.Has("t"))
				assert.Empty(t, r.All())
			})
		}
	}

	t.Run("an invalid schema is reported on one line, as RegisterError.Error documents", func(t *testing.T) {
		r := toolreg.New()
		_, err := r.Register(validateStrict("t", map[string]any{"unit_kind": map[string]any{"type": 12}}), "p")
		require.ErrorIs(t, err, toolreg.ErrInvalidSchema)
		assert.NotContains(t, err.Error(), "\n")
	})

	t.Run("an invalid schema error names the property whose schema is wrong", func(t *testing.T) {
		r := toolreg.New()
		_, err := r.Register(validateStrict("t", map[string]any{
			"city":      str(),
			"unit_kind": map[string]any{"type": 12},
		}), "p")
		require.ErrorIs(t, err, toolreg.ErrInvalidSchema)
		assert.Contains(t, err.Error(), "unit_kind")
	})

	t.Run("a non-strict tool without WithSchemaValidation is not compiled", func(t *testing.T) {
		// Only the lightweight checks apply, so the schema is not looked at.
		r := toolreg.New()
		mustRegister(t, r, newTool("t", "ok", map[string]any{"x": map[string]any{"type": 12}}), "p")
		assert.Equal(t, "ok", r.Execute(t.Context(), "t", map[string]any{"x": "anything"}, toolreg.CallContext{}))
	})

	t.Run("a local $ref to an existing definition compiles", func(t *testing.T) {
		tool := validateStrict("t", map[string]any{"x": map[string]any{"$ref": "#/$defs/word"}})
		tool.Definition.Function.Parameters.Defs = map[string]any{"word": map[string]any{"type": "string"}}
		r := toolreg.New()
		mustRegister(t, r, tool, "p")
		assert.Equal(t, "ok", r.Execute(t.Context(), "t", map[string]any{"x": "w"}, toolreg.CallContext{}))
		msg, code := failureOf(t, r.Execute(t.Context(), "t", map[string]any{"x": 1}, toolreg.CallContext{}))
		assert.Equal(t, toolreg.CodeInvalidArguments, code)
		assert.Contains(t, msg, "x")
	})
}

func TestExecuteValidatesArgumentsLightly(t *testing.T) {
	open := newTool("weather", "ok", map[string]any{"city": str(), "unit": str()}, "city", "unit")
	closed := newTool("weather", "ok", map[string]any{"city": str(), "unit": str()}, "city")
	closed.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
	explicitOpen := newTool("weather", "ok", map[string]any{"city": str()})
	explicitOpen.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(true)
	noArgs := newTool("weather", "ok", nil)
	noArgs.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)

	tests := []struct {
		name      string
		tool      toolreg.RegisteredTool
		args      map[string]any
		fragments []string // empty: the call succeeds
		absent    []string
	}{
		{
			name: "all required arguments present run the handler",
			tool: open,
			args: map[string]any{"city": "Oslo", "unit": "c"},
		},
		{
			name:      "a missing required argument is named",
			tool:      open,
			args:      map[string]any{"city": "Oslo"},
			fragments: []string{`missing required argument "unit"`},
			absent:    []string{`"city"`},
		},
		{
			name:      "every missing required argument is named at once",
			tool:      open,
			args:      map[string]any{},
			fragments: []string{`missing required argument "city"`, `missing required argument "unit"`},
		},
		{
			name:      "nil arguments mean an empty object",
			tool:      open,
			args:      nil,
			fragments: []string{`missing required argument "city"`, `missing required argument "unit"`},
		},
		{
			name: "unknown arguments are allowed when additionalProperties is unset",
			tool: open,
			args: map[string]any{"city": "Oslo", "unit": "c", "extra": 1},
		},
		{
			name: "unknown arguments are allowed when additionalProperties is true",
			tool: explicitOpen,
			args: map[string]any{"extra": 1},
		},
		{
			name:      "an unknown argument is refused when additionalProperties is false and the supported ones are listed",
			tool:      closed,
			args:      map[string]any{"city": "Oslo", "town": "Oslo"},
			fragments: []string{`unknown argument "town"`, "supported arguments: city, unit"},
		},
		{
			name:      "every unknown argument is named at once",
			tool:      closed,
			args:      map[string]any{"city": "Oslo", "b": 1, "a": 2},
			fragments: []string{`unknown argument "a"`, `unknown argument "b"`, "supported arguments: city, unit"},
		},
		{
			name:      "missing and unknown arguments are reported together",
			tool:      closed,
			args:      map[string]any{"town": "Oslo"},
			fragments: []string{`missing required argument "city"`, `unknown argument "town"`, "city, unit"},
		},
		{
			name:      "a closed tool without properties says it takes no arguments",
			tool:      noArgs,
			args:      map[string]any{"x": 1},
			fragments: []string{`unknown argument "x"`, "takes no arguments"},
		},
		{
			name: "a closed tool without properties accepts nil arguments",
			tool: noArgs,
			args: nil,
		},
		{
			name: "argument types are not checked without full validation",
			tool: open,
			args: map[string]any{"city": 42, "unit": []any{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, calls, last := validateCounted(tt.tool)
			r := toolreg.New()
			mustRegister(t, r, tool, "p")
			res := r.Execute(t.Context(), "weather", tt.args, toolreg.CallContext{})
			if len(tt.fragments) == 0 {
				require.Equal(t, "ok", res)
				require.EqualValues(t, 1, calls.Load())
				got := *last.Load()
				assert.NotNil(t, got, "the handler never sees nil arguments")
				if tt.args != nil {
					assert.Equal(t, tt.args, got)
				}
				return
			}
			msg, code := failureOf(t, res)
			assert.Equal(t, toolreg.CodeInvalidArguments, code)
			assert.Contains(t, msg, `"weather"`, "the message names the tool")
			for _, f := range tt.fragments {
				assert.Contains(t, msg, f)
			}
			for _, f := range tt.absent {
				assert.NotContains(t, msg, f)
			}
			assert.Zero(t, calls.Load(), "the handler must not run")
		})
	}
}

func TestExecuteValidatesAgainstTheFullSchema(t *testing.T) {
	with := func(change func(args map[string]any)) map[string]any {
		args := validateSearchArgs()
		change(args)
		return args
	}
	tests := []struct {
		name      string
		args      map[string]any
		fragments []string // empty: the call succeeds
	}{
		{
			name: "valid arguments run the handler",
			args: validateSearchArgs(),
		},
		{
			name:      "a wrong type at the top level names the argument and the expected type",
			args:      with(func(a map[string]any) { a["query"] = 42.0 }),
			fragments: []string{"query", "string"},
		},
		{
			name:      "a wrong type in a nested object names the dotted path",
			args:      with(func(a map[string]any) { a["filter"].(map[string]any)["limit"] = "ten" }),
			fragments: []string{"filter.limit", "integer"},
		},
		{
			name:      "a number below the minimum names the path and the bound",
			args:      with(func(a map[string]any) { a["filter"].(map[string]any)["limit"] = 0.0 }),
			fragments: []string{"filter.limit", "1"},
		},
		{
			name:      "a value outside an enum names the path and the allowed values",
			args:      with(func(a map[string]any) { a["filter"].(map[string]any)["lang"] = "fr" }),
			fragments: []string{"filter.lang", "en", "de"},
		},
		{
			name:      "a wrong type in an array names the index",
			args:      with(func(a map[string]any) { a["tags"] = []any{"a", 7.0} }),
			fragments: []string{"tags[1]", "string"},
		},
		{
			name:      "a wrong type in an object inside an array names index and key",
			args:      with(func(a map[string]any) { a["rows"] = []any{map[string]any{"id": 1.0}, map[string]any{"id": "two"}} }),
			fragments: []string{"rows[1].id", "integer"},
		},
		{
			name:      "a missing nested key names its object and the key",
			args:      with(func(a map[string]any) { delete(a["filter"].(map[string]any), "lang") }),
			fragments: []string{"filter", "lang"},
		},
		{
			name:      "a missing top-level key is named",
			args:      with(func(a map[string]any) { delete(a, "tags") }),
			fragments: []string{"tags"},
		},
		{
			name:      "an unknown nested key is named",
			args:      with(func(a map[string]any) { a["filter"].(map[string]any)["sort"] = "asc" }),
			fragments: []string{"filter", "sort"},
		},
		{
			name: "every violation is reported at once",
			args: with(func(a map[string]any) {
				a["query"] = ""
				a["filter"].(map[string]any)["limit"] = "ten"
				a["tags"] = []any{"ok", true}
				a["rows"] = []any{map[string]any{"id": 1.5}}
			}),
			fragments: []string{"query", "filter.limit", "tags[1]", "rows[0].id"},
		},
		{
			name:      "nil arguments mean an empty object",
			args:      nil,
			fragments: []string{"query", "filter", "tags", "rows"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, calls, _ := validateCounted(validateStrictSearch())
			r := toolreg.New()
			mustRegister(t, r, tool, "p")
			res := r.Execute(t.Context(), "search", tt.args, toolreg.CallContext{})
			if len(tt.fragments) == 0 {
				require.Equal(t, "ok", res)
				assert.EqualValues(t, 1, calls.Load())
				return
			}
			msg, code := failureOf(t, res)
			assert.Equal(t, toolreg.CodeInvalidArguments, code)
			assert.Contains(t, msg, `"search"`, "the message names the tool")
			for _, f := range tt.fragments {
				assert.Contains(t, msg, f)
			}
			assert.Zero(t, calls.Load(), "the handler must not run")
		})
	}

	t.Run("the same invalid arguments always give the same message", func(t *testing.T) {
		// Results enter the conversation: like every JSON the registry
		// writes, they must be byte-stable for equal input.
		r := toolreg.New()
		mustRegister(t, r, validateStrictSearch(), "p")
		results := map[string]int{}
		for range 100 {
			args := validateSearchArgs()
			args["query"] = ""
			args["filter"].(map[string]any)["limit"] = "ten"
			args["tags"] = []any{"ok", true}
			results[r.Execute(t.Context(), "search", args, toolreg.CallContext{})]++
		}
		assert.Len(t, results, 1, "distinct results: %v", results)
	})

	t.Run("an unknown argument of a strict tool is refused and the supported ones are listed", func(t *testing.T) {
		r := toolreg.New()
		mustRegister(t, r, validateStrictSearch(), "p")
		args := validateSearchArgs()
		args["sort"] = "asc"
		msg, code := failureOf(t, r.Execute(t.Context(), "search", args, toolreg.CallContext{}))
		assert.Equal(t, toolreg.CodeInvalidArguments, code)
		assert.Contains(t, msg, "sort")
		assert.Contains(t, msg, "filter, query, rows, tags", "the model is told which arguments exist")
	})
}

func TestWithSchemaValidationChecksNonStrictTools(t *testing.T) {
	tool := newTool("count", "ok", map[string]any{
		"n":    map[string]any{"type": "integer", "minimum": 0},
		"tags": map[string]any{"type": "array", "items": str()},
	}, "n")
	tests := []struct {
		name      string
		opts      []toolreg.Option
		args      map[string]any
		fragments []string
	}{
		{name: "with the option a wrong type is refused", opts: []toolreg.Option{toolreg.WithSchemaValidation()}, args: map[string]any{"n": "three"}, fragments: []string{"n", "integer"}},
		{name: "with the option a wrong array item names its index", opts: []toolreg.Option{toolreg.WithSchemaValidation()}, args: map[string]any{"n": 1.0, "tags": []any{"a", "b", 3.0}}, fragments: []string{"tags[2]", "string"}},
		{name: "with the option a missing required key is still refused", opts: []toolreg.Option{toolreg.WithSchemaValidation()}, args: nil, fragments: []string{"n"}},
		{name: "with the option valid arguments pass", opts: []toolreg.Option{toolreg.WithSchemaValidation()}, args: map[string]any{"n": 3.0, "tags": []any{"a"}}},
		{name: "with the option unknown keys stay allowed on an open schema", opts: []toolreg.Option{toolreg.WithSchemaValidation()}, args: map[string]any{"n": 3.0, "other": true}},
		{name: "without the option a wrong type passes", args: map[string]any{"n": "three"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, calls, _ := validateCounted(tool)
			r := toolreg.New(tt.opts...)
			mustRegister(t, r, tool, "p")
			res := r.Execute(t.Context(), "count", tt.args, toolreg.CallContext{})
			validateOutcome(t, res, calls, tt.fragments)
		})
	}
}

func TestExecuteValidatesGoTypedArguments(t *testing.T) {
	type filter struct {
		Limit int    `json:"limit"`
		Lang  string `json:"lang"`
	}
	tests := []struct {
		name      string
		args      map[string]any
		fragments []string // empty: the call succeeds
	}{
		{
			name: "a []string, an int and a nested map[string]any pass",
			args: map[string]any{
				"query":  "go",
				"filter": map[string]any{"limit": 10, "lang": "de"},
				"tags":   []string{"a", "b"},
				"rows":   []map[string]any{{"id": int64(3)}},
			},
		},
		{
			name: "a struct for a nested object passes",
			args: map[string]any{
				"query":  "go",
				"filter": filter{Limit: 1, Lang: "en"},
				"tags":   []string{},
				"rows":   []any{},
			},
		},
		{
			name: "an int below the minimum is refused with its path",
			args: map[string]any{
				"query":  "go",
				"filter": map[string]any{"limit": 0, "lang": "de"},
				"tags":   []string{"a"},
				"rows":   []any{},
			},
			fragments: []string{"filter.limit"},
		},
		{
			name: "a []int where strings are expected is refused with the index",
			args: map[string]any{
				"query":  "go",
				"filter": filter{Limit: 1, Lang: "en"},
				"tags":   []int{1},
				"rows":   []any{},
			},
			fragments: []string{"tags[0]", "string"},
		},
		{
			name: "a float where an integer is expected is refused",
			args: map[string]any{
				"query":  "go",
				"filter": map[string]any{"limit": 2.5, "lang": "de"},
				"tags":   []string{},
				"rows":   []any{},
			},
			fragments: []string{"filter.limit", "integer"},
		},
		{
			name: "a value that cannot be encoded as JSON is refused, not panicked on",
			args: map[string]any{
				"query":  "go",
				"filter": map[string]any{"limit": 1, "lang": "de"},
				"tags":   []string{},
				"rows":   []any{},
				"ch":     make(chan int),
			},
			fragments: []string{"JSON"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, calls, _ := validateCounted(validateStrictSearch())
			r := toolreg.New()
			mustRegister(t, r, tool, "p")
			res := r.Execute(t.Context(), "search", tt.args, toolreg.CallContext{})
			validateOutcome(t, res, calls, tt.fragments)
		})
	}
}

func TestExecuteJSONParsesTheModelsArguments(t *testing.T) {
	tests := []struct {
		name      string
		argsJSON  string
		wantArgs  map[string]any // checked when fragments is empty
		fragments []string       // empty: the call succeeds
	}{
		{name: "an empty string means an empty object", argsJSON: "", wantArgs: map[string]any{}},
		{name: "only white space means an empty object", argsJSON: " \n\t\r ", wantArgs: map[string]any{}},
		{name: "an empty object is an empty object", argsJSON: "{}", wantArgs: map[string]any{}},
		{name: "an object with surrounding white space is read", argsJSON: "\n {\"city\": \"Oslo\"} \n", wantArgs: map[string]any{"city": "Oslo"}},
		{name: "numbers arrive as float64", argsJSON: `{"n": 3, "xs": [1, 2.5]}`, wantArgs: map[string]any{"n": 3.0, "xs": []any{1.0, 2.5}}},
		{
			name:      "a trailing comma is a syntax error with its byte offset",
			argsJSON:  `{"city":"Oslo",}`,
			fragments: []string{"not valid JSON", "byte offset 16"},
		},
		{
			name:      "a truncated object is a syntax error with its byte offset",
			argsJSON:  `{"city":`,
			fragments: []string{"not valid JSON", "byte offset 8"},
		},
		{
			name:      "single quotes are a syntax error with their byte offset",
			argsJSON:  `{'city': 'Oslo'}`,
			fragments: []string{"not valid JSON", "byte offset 2"},
		},
		{
			name:      "text after the object is a syntax error with its byte offset",
			argsJSON:  `{"city":"Oslo"} and more`,
			fragments: []string{"not valid JSON", "byte offset 17"},
		},
		{
			name:      "two objects are a syntax error",
			argsJSON:  `{}{}`,
			fragments: []string{"not valid JSON", "byte offset 3"},
		},
		{
			name:      "a misspelled literal is a syntax error",
			argsJSON:  `nul`,
			fragments: []string{"not valid JSON", "byte offset"},
		},
		{name: "null says it got null", argsJSON: "null", fragments: []string{"must be a JSON object", "got null"}},
		{name: "null with white space says it got null", argsJSON: "  null\n", fragments: []string{"must be a JSON object", "got null"}},
		{name: "an array says it got an array", argsJSON: `[{"city":"Oslo"}]`, fragments: []string{"must be a JSON object", "got an array"}},
		{name: "a string says it got a string", argsJSON: `"{\"city\":\"Oslo\"}"`, fragments: []string{"must be a JSON object", "got a string"}},
		{name: "a number says it got a number", argsJSON: "42", fragments: []string{"must be a JSON object", "got a number"}},
		{name: "a boolean says it got a boolean", argsJSON: "true", fragments: []string{"must be a JSON object", "got a boolean"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, calls, last := validateCounted(newTool("weather", "ok", nil))
			r := toolreg.New()
			mustRegister(t, r, tool, "p")
			res := r.ExecuteJSON(t.Context(), "weather", tt.argsJSON, toolreg.CallContext{})
			if len(tt.fragments) == 0 {
				require.Equal(t, "ok", res)
				require.EqualValues(t, 1, calls.Load())
				got := *last.Load()
				require.NotNil(t, got)
				assert.Equal(t, tt.wantArgs, got)
				return
			}
			msg, code := failureOf(t, res)
			assert.Equal(t, toolreg.CodeInvalidArguments, code)
			assert.Contains(t, msg, `"weather"`, "the message names the tool")
			for _, f := range tt.fragments {
				assert.Contains(t, msg, f)
			}
			assert.Zero(t, calls.Load(), "bad JSON must never run the handler as {}")
		})
	}

	t.Run("parsed arguments are validated like Execute's", func(t *testing.T) {
		tool, calls, _ := validateCounted(newTool("weather", "ok", map[string]any{"city": str()}, "city"))
		r := toolreg.New()
		mustRegister(t, r, tool, "p")
		msg, code := failureOf(t, r.ExecuteJSON(t.Context(), "weather", "", toolreg.CallContext{}))
		assert.Equal(t, toolreg.CodeInvalidArguments, code)
		assert.Contains(t, msg, `missing required argument "city"`)
		assert.Zero(t, calls.Load())
	})

	t.Run("JSON numbers validate as integers against a strict schema", func(t *testing.T) {
		tool, calls, _ := validateCounted(validateStrictSearch())
		r := toolreg.New()
		mustRegister(t, r, tool, "p")
		res := r.ExecuteJSON(t.Context(), "search", `{"query":"go","filter":{"limit":3,"lang":"en"},"tags":["a"],"rows":[{"id":1}]}`, toolreg.CallContext{})
		assert.Equal(t, "ok", res)
		assert.EqualValues(t, 1, calls.Load())

		msg, code := failureOf(t, r.ExecuteJSON(t.Context(), "search", `{"query":"go","filter":{"limit":3.5,"lang":"en"},"tags":["a"],"rows":[]}`, toolreg.CallContext{}))
		assert.Equal(t, toolreg.CodeInvalidArguments, code)
		assert.Contains(t, msg, "filter.limit")
		assert.EqualValues(t, 1, calls.Load())
	})

	t.Run("bad JSON for an unknown tool reads not_found", func(t *testing.T) {
		r := toolreg.New()
		_, code := failureOf(t, r.ExecuteJSON(t.Context(), "nope", "{", toolreg.CallContext{}))
		assert.Equal(t, toolreg.CodeNotFound, code)
	})
}

func TestARepeatedRequiredKeyDoesNotHideAnUnknownOne(t *testing.T) {
	tool, calls, _ := validateCounted(newTool("t", "ok", map[string]any{"a": str()}, "a", "a"))
	tool.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
	r := toolreg.New()
	mustRegister(t, r, tool, "p")

	res := r.Execute(t.Context(), "t", map[string]any{"a": "x", "sneaky": 1.0}, toolreg.CallContext{})
	validateOutcome(t, res, calls, []string{`unknown argument "sneaky"`})
}
