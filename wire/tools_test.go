package wire_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// catalog is a small registry: two ungrouped tools and one in group "git".
func catalog(t testing.TB) *toolreg.Registry {
	return registry(t,
		tool("write_file", "Write a file.", map[string]any{"path": str("where"), "body": str("what")}),
		tool("read_file", "Read a file.", map[string]any{"path": str("where")}),
		tool("git_log", "Show commits.", map[string]any{"n": map[string]any{"type": "integer"}}, "git"),
	)
}

func names[T any](items []T, name func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, name(it))
	}
	return out
}

func responsesName(t wire.ResponsesTool) string {
	if t.Type != "function" {
		return t.Type
	}
	return t.Name
}
func anthropicName(t wire.AnthropicTool) string          { return t.Name }
func chatName(d toolreg.Definition) string               { return d.Function.Name }
func geminiName(d wire.GeminiFunctionDeclaration) string { return d.Name }

func TestToolsFollowTheAccess(t *testing.T) {
	reg := catalog(t)
	a := wire.New(reg)
	for _, tc := range []struct {
		acc  toolreg.Access
		want []string
	}{
		{toolreg.Access{}, []string{"read_file", "write_file"}},
		{toolreg.Access{Groups: []string{"git"}}, []string{"git_log", "read_file", "write_file"}},
		{toolreg.Access{Groups: []string{"*"}, Layers: []toolreg.Layer{toolreg.DenyList("policy", []string{"write_file"})}}, []string{"git_log", "read_file"}},
	} {
		chat, err := a.ChatTools(tc.acc)
		require.NoError(t, err)
		assert.Equal(t, tc.want, names(chat, chatName))
		assert.JSONEq(t, string(reg.DefinitionsJSON(tc.acc)), mustJSON(t, chat), "chat tools are the registry's definitions")

		resp, err := a.ResponsesTools(tc.acc)
		require.NoError(t, err)
		assert.Equal(t, tc.want, names(resp, responsesName))

		anth, err := a.AnthropicTools(tc.acc)
		require.NoError(t, err)
		assert.Equal(t, tc.want, names(anth, anthropicName))

		gem, err := a.GeminiTools(tc.acc)
		require.NoError(t, err)
		assert.Equal(t, tc.want, names(gem.FunctionDeclarations, geminiName))
	}
}

func TestToolShapes(t *testing.T) {
	reg := registry(t, toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name: "lookup", Description: "Look up a user.", Strict: true,
			Parameters: toolreg.Parameters{
				Properties:           map[string]any{"id": map[string]any{"type": "string"}, "who": map[string]any{"$ref": "#/$defs/Who"}},
				Required:             []string{"id", "who"},
				AdditionalProperties: toolreg.Bool(false),
				Defs:                 map[string]any{"Who": map[string]any{"type": "string", "enum": []any{"me", "them"}}},
			},
		}},
		Handler: tool("x", "", nil).Handler,
	}, tool("ping", "Ping.", nil))
	a := wire.New(reg)
	schema := `{"type":"object","properties":{"id":{"type":"string"},"who":{"$ref":"#/$defs/Who"}},"required":["id","who"],"additionalProperties":false,"$defs":{"Who":{"type":"string","enum":["me","them"]}}}`

	resp, err := a.ResponsesTools(toolreg.Access{})
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"type":"function","name":"lookup","description":"Look up a user.","parameters":`+schema+`,"strict":true},
		{"type":"function","name":"ping","description":"Ping.","parameters":{"type":"object","properties":{}},"strict":false}]`, mustJSON(t, resp))

	anth, err := a.AnthropicTools(toolreg.Access{})
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"name":"lookup","description":"Look up a user.","input_schema":`+schema+`,"strict":true},
		{"name":"ping","description":"Ping.","input_schema":{"type":"object","properties":{}}}]`, mustJSON(t, anth))

	gem, err := a.GeminiTools(toolreg.Access{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"functionDeclarations":[
		{"name":"lookup","description":"Look up a user.","parameters":{"type":"OBJECT","properties":{"id":{"type":"STRING"},"who":{"type":"STRING","format":"enum","enum":["me","them"]}},"required":["id","who"]}},
		{"name":"ping","description":"Ping."}]}`, mustJSON(t, gem))

	raw, err := wire.New(reg, wire.WithGeminiJSONSchema()).GeminiTools(toolreg.Access{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"functionDeclarations":[
		{"name":"lookup","description":"Look up a user.","parametersJsonSchema":`+schema+`},
		{"name":"ping","description":"Ping."}]}`, mustJSON(t, raw))
}

func TestToolsAreByteStable(t *testing.T) {
	tools := []toolreg.RegisteredTool{
		tool("b_tool", "B.", map[string]any{"z": str("z"), "a": str("a"), "m": map[string]any{"type": "object", "properties": map[string]any{"y": str("y"), "x": str("x")}}}),
		tool("a_tool", "A.", map[string]any{"q": str("q")}),
		tool("c_tool", "C.", nil),
	}
	forward := wire.New(registry(t, tools...), wire.WithDeferred("c_tool"))
	backward := wire.New(registry(t, tools[2], tools[1], tools[0]), wire.WithDeferred("c_tool"))
	listings := map[string]func(a *wire.Adapter) (any, error){
		"chat":      func(a *wire.Adapter) (any, error) { return a.ChatTools(toolreg.Access{}, "c_tool") },
		"responses": func(a *wire.Adapter) (any, error) { return a.ResponsesTools(toolreg.Access{}) },
		"anthropic": func(a *wire.Adapter) (any, error) { return a.AnthropicTools(toolreg.Access{}) },
		"gemini":    func(a *wire.Adapter) (any, error) { return a.GeminiTools(toolreg.Access{}, "c_tool") },
	}
	for name, list := range listings {
		t.Run(name, func(t *testing.T) {
			first, _ := list(forward)
			again, _ := list(forward)
			other, _ := list(backward)
			assert.Equal(t, mustJSON(t, first), mustJSON(t, again))
			assert.Equal(t, mustJSON(t, first), mustJSON(t, other), "registration order does not change the bytes")
		})
	}
}

func TestGeminiToolsReportToolsTheyCannotConvert(t *testing.T) {
	recursive := map[string]any{"$ref": "#/$defs/Node"}
	reg := registry(t,
		tool("1st_tool", "Starts with a digit.", nil),
		tool("-dash", "Starts with a dash.", nil),
		toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: "tree", Parameters: toolreg.Parameters{
				Properties: map[string]any{"root": recursive},
				Defs:       map[string]any{"Node": map[string]any{"type": "object", "properties": map[string]any{"kids": map[string]any{"type": "array", "items": recursive}}}},
			}}},
			Handler: tool("x", "", nil).Handler,
		},
		tool("fine", "Fine.", map[string]any{"a": str("a")}),
	)
	gem, err := wire.New(reg).GeminiTools(toolreg.Access{})
	require.Error(t, err)
	assert.Equal(t, []string{"fine"}, names(gem.FunctionDeclarations, geminiName), "the tools that convert are still offered")

	assert.ErrorIs(t, err, wire.ErrInvalidName)
	assert.ErrorIs(t, err, wire.ErrRecursiveSchema)
	var failed []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var te *wire.ToolError
		if errors.As(e, &te) {
			failed = append(failed, te.Tool)
			if te.Tool == "tree" {
				assert.Equal(t, "/properties/root/properties/kids/items", te.Path)
			}
		}
	}
	assert.ElementsMatch(t, []string{"1st_tool", "-dash", "tree"}, failed)
}

func TestNilRegistryOffersNothing(t *testing.T) {
	a := wire.New(nil, wire.WithDeferred("x"))
	chat, err := a.ChatTools(toolreg.Access{})
	require.NoError(t, err)
	assert.Empty(t, chat)
	gem, err := a.GeminiTools(toolreg.Access{})
	require.NoError(t, err)
	assert.Empty(t, gem.FunctionDeclarations)
}
