package toolreg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// deepSchema nests object schemas n levels deep, each level required and
// closed, as a strict schema must be.
func deepSchema(n int) map[string]any {
	leaf := map[string]any{"type": "string"}
	for range n {
		leaf = map[string]any{"type": "object", "properties": map[string]any{"a": leaf},
			"required": []any{"a"}, "additionalProperties": false}
	}
	return map[string]any{"root": leaf}
}

func TestRegisterRefusesHostileSchemasFast(t *testing.T) {
	selfSchema := map[string]any{"type": "object"}
	selfSchema["properties"] = map[string]any{"again": selfSchema}
	wide := map[string]any{}
	for i := range 100_000 {
		wide[fmt.Sprintf("p%d", i)] = map[string]any{"type": "string"}
	}
	big := map[string]any{"blob": map[string]any{"type": "string", "description": strings.Repeat("x", 2<<20)}}
	tests := []struct {
		name   string
		props  map[string]any
		defs   map[string]any
		strict bool
		want   string
	}{
		{"a schema map that contains itself", map[string]any{"x": selfSchema}, nil, true, "nested deeper than 64"},
		{"nesting 2,000 levels deep", deepSchema(2000), nil, true, "nested deeper than 64"},
		{"100,000 properties", wide, nil, true, "holds more than 20000 values"},
		{"2 MB of description", big, nil, false, "more than the 1048576 allowed"},
		{"a $ref that only leads to itself", map[string]any{"x": map[string]any{"$ref": "#/$defs/a"}},
			map[string]any{"a": map[string]any{"$ref": "#/$defs/a"}}, false, "leads back to itself"},
		{"a $ref cycle through allOf", map[string]any{"x": map[string]any{"$ref": "#/$defs/a"}},
			map[string]any{"a": map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/b"}}}, "b": map[string]any{"anyOf": []any{map[string]any{"$ref": "#/$defs/a"}}}}, false, "leads back to itself"},
		{"a NaN in a schema", map[string]any{"x": map[string]any{"type": "number", "maximum": nanFloat()}}, nil, false, "not a JSON number"},
		{"a func in a schema", map[string]any{"x": map[string]any{"default": func() {}}}, nil, false, "no JSON form"},
	}
	for _, tc := range tests {
		for _, full := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				var opts []toolreg.Option
				if full {
					opts = append(opts, toolreg.WithSchemaValidation())
				}
				r := toolreg.New(opts...)
				tool := newTool("hostile", "", tc.props)
				tool.Definition.Function.Parameters.Defs = tc.defs
				tool.Definition.Function.Strict = tc.strict
				start := time.Now()
				_, err := r.Register(tool, "p")
				elapsed := time.Since(start)
				require.ErrorIs(t, err, toolreg.ErrInvalidSchema)
				assert.Contains(t, err.Error(), tc.want)
				assert.Less(t, len(err.Error()), 4096, "the error stays short")
				assert.Less(t, elapsed, 2*time.Second, "a liveness bound; BenchmarkRegisterHostileSchema has the figure")
				assert.Empty(t, r.All())
			})
		}
	}
}

func TestARecursiveSchemaThatDescendsIsFine(t *testing.T) {
	r := toolreg.New(toolreg.WithSchemaValidation())
	tool := newTool("tree", "ok", map[string]any{"node": map[string]any{"$ref": "#/$defs/node"}})
	tool.Definition.Function.Parameters.Defs = map[string]any{"node": map[string]any{"type": "object", "properties": map[string]any{
		"name": str(), "children": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/node"}}}}}
	mustRegister(t, r, tool, "p")
	assert.Equal(t, "ok", r.Execute(context.Background(), "tree", map[string]any{"node": map[string]any{"name": "a",
		"children": []any{map[string]any{"name": "b"}}}}, toolreg.CallContext{}))
	_, code := failureOf(t, r.Execute(context.Background(), "tree", map[string]any{"node": map[string]any{"name": 1.0}}, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeInvalidArguments, code)
}

func TestSchemaLimitsCanBeRaised(t *testing.T) {
	r := toolreg.New(toolreg.WithSchemaLimits(toolreg.SchemaLimits{MaxDepth: 300}))
	tool := newTool("deep", "ok", deepSchema(100), "root")
	tool.Definition.Function.Strict = true
	tool.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
	mustRegister(t, r, tool, "p")
	_, err := toolreg.New().Register(tool, "p")
	require.ErrorIs(t, err, toolreg.ErrInvalidSchema)
}

func TestStrictErrorsStayShortAtTheDepthLimit(t *testing.T) {
	bad := map[string]any{"type": "string"}
	for range 30 { // open objects: every level breaks the strict rules
		bad = map[string]any{"type": "object", "properties": map[string]any{"a": bad, "b": str()}}
	}
	tool := newTool("loose", "", map[string]any{"root": bad})
	tool.Definition.Function.Strict = true
	_, err := toolreg.New().Register(tool, "p")
	require.ErrorIs(t, err, toolreg.ErrInvalidSchema)
	assert.Less(t, len(err.Error()), 8192)
	assert.Contains(t, err.Error(), "more")
}

func TestUnknownNamesStayCheapAtScale(t *testing.T) {
	r := toolreg.New()
	for i := range 20_000 {
		mustRegister(t, r, newTool(fmt.Sprintf("svc%d_get_item_%d", i%50, i), "", nil), "p")
	}
	for _, name := range []string{"svc1_get_itme_1", "get", "totally_unrelated", strings.Repeat("x", 1<<20), "not valid!"} {
		start := time.Now()
		msg, code := failureOf(t, r.Execute(context.Background(), name, nil, toolreg.CallContext{}))
		assert.Less(t, time.Since(start), time.Second, "%.40s: a liveness bound; BenchmarkUnknownName has the figure", name)
		assert.Equal(t, toolreg.CodeNotFound, code)
		assert.Less(t, len(msg), 600)
	}
	msg, _ := failureOf(t, r.Execute(context.Background(), "svc1_get_item_1x", nil, toolreg.CallContext{}))
	assert.Contains(t, msg, `"svc1_get_item_1"`)
}

func TestBindReportsEveryRegistrationItCouldNotApply(t *testing.T) {
	s := toolreg.NewScope("late")
	_, err := s.Register(newTool("taken", "", nil))
	require.NoError(t, err)
	_, err = s.Register(newTool("free", "", nil))
	require.NoError(t, err)
	_, err = s.RegisterGroup(toolreg.GroupInfo{Name: "g"})
	require.NoError(t, err)
	r := toolreg.New(toolreg.WithRejectDuplicates())
	mustRegister(t, r, newTool("taken", "", nil), "other")
	mustGroup(t, r, toolreg.GroupInfo{Name: "g"}, "other")
	err = s.Bind(r)
	require.ErrorIs(t, err, toolreg.ErrDuplicate)
	assert.Contains(t, err.Error(), `"taken"`)
	assert.Contains(t, err.Error(), `group "g"`)
	assert.True(t, r.Has("free"), "what could be applied was applied")
}

func nanFloat() float64 { var zero float64; return zero / zero }
