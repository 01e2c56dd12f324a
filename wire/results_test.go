package wire_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

// loopRegistry has a tool answering JSON, one answering plain text, one
// failing, and one with no output.
func loopRegistry(t testing.TB) *toolreg.Registry {
	reg := registry(t)
	add := func(name string, h toolreg.Handler) {
		_, err := reg.Register(toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: name, Description: name,
				Parameters: toolreg.Parameters{Properties: map[string]any{"city": str("city")}}}},
			Handler: h,
		}, "test")
		require.NoError(t, err)
	}
	add("weather", func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		return `{"city":"` + args["city"].(string) + `","temp_c":21}`, nil
	})
	add("motto", func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "carpe diem", nil })
	add("broken", func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		return "", errors.New("backend down")
	})
	add("silent", func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "", nil })
	return reg
}

var turn = []call{
	{id: "c1", name: "weather", args: `{"city":"Oslo"}`},
	{id: "c2", name: "motto", args: `{}`},
	{id: "c3", name: "broken", args: `{}`},
	{id: "c4", name: "no_such_tool", args: `{}`},
	{id: "c5", name: "silent", args: `{}`},
}

// run parses raw with parse and executes the calls.
func run(t *testing.T, reg *toolreg.Registry, parse func(*wire.Adapter, []byte) ([]toolreg.ToolCall, error), raw string) []toolreg.Result {
	t.Helper()
	calls, err := parse(wire.New(reg), []byte(raw))
	require.NoError(t, err)
	results := reg.ExecuteBatch(context.Background(), calls, toolreg.CallContext{SessionID: "s"}, toolreg.BatchOptions{})
	require.Len(t, results, len(calls))
	return results
}

func TestChatResults(t *testing.T) {
	reg := loopRegistry(t)
	a := wire.New(reg)
	results := run(t, reg, (*wire.Adapter).ChatCalls, formats[0].response(turn...))
	msgs := a.ChatResults(results)
	require.Len(t, msgs, 5)
	for i, m := range msgs {
		assert.Equal(t, "tool", m.Role)
		assert.Equal(t, turn[i].id, m.ToolCallID)
		assert.Equal(t, results[i].Content, m.Content)
	}
	assert.JSONEq(t, `{"city":"Oslo","temp_c":21}`, msgs[0].Content)
	assert.JSONEq(t, `{"role":"tool","tool_call_id":"c2","content":"carpe diem"}`, mustJSON(t, msgs[1]))
}

func TestResponsesResults(t *testing.T) {
	reg := loopRegistry(t)
	results := run(t, reg, (*wire.Adapter).ResponsesCalls, formats[1].response(turn...))
	items := wire.New(reg).ResponsesResults(results)
	require.Len(t, items, 5)
	for i, it := range items {
		assert.Equal(t, "function_call_output", it.Type)
		assert.Equal(t, turn[i].id, it.CallID)
		assert.Equal(t, results[i].Content, it.Output)
	}
}

func TestAnthropicResults(t *testing.T) {
	reg := loopRegistry(t)
	results := run(t, reg, (*wire.Adapter).AnthropicCalls, formats[2].response(turn...))
	msg := wire.New(reg).AnthropicResults(results)
	assert.Equal(t, "user", msg.Role)
	require.Len(t, msg.Content, 5)
	for i, tr := range msg.Content {
		assert.Equal(t, "tool_result", tr.Type)
		assert.Equal(t, turn[i].id, tr.ToolUseID)
		assert.Equal(t, results[i].IsError(), tr.IsError, turn[i].name)
	}
	assert.Equal(t, []bool{false, false, true, true, false}, []bool{msg.Content[0].IsError, msg.Content[1].IsError, msg.Content[2].IsError, msg.Content[3].IsError, msg.Content[4].IsError})
	assert.JSONEq(t, `{"type":"tool_result","tool_use_id":"c2","content":[{"type":"text","text":"carpe diem"}]}`, mustJSON(t, msg.Content[1]))
	assert.JSONEq(t, `{"type":"tool_result","tool_use_id":"c5"}`, mustJSON(t, msg.Content[4]), "an empty result sends no empty text block")
	assert.Contains(t, msg.Content[2].Content[0].Text, "backend down")
}

func TestGeminiResults(t *testing.T) {
	reg := loopRegistry(t)
	results := run(t, reg, (*wire.Adapter).GeminiCalls, formats[3].response(turn...))
	c := wire.New(reg).GeminiResults(results)
	assert.Equal(t, "user", c.Role)
	require.Len(t, c.Parts, 5)
	want := []string{
		`{"output":{"city":"Oslo","temp_c":21}}`,
		`{"output":"carpe diem"}`,
		`{"error":"backend down","code":"tool_error"}`,
		"", // not_found: checked below
		`{"output":""}`,
	}
	for i, p := range c.Parts {
		fr := p.FunctionResponse
		require.NotNil(t, fr)
		assert.Equal(t, turn[i].id, fr.ID)
		assert.Equal(t, turn[i].name, fr.Name)
		if want[i] != "" {
			assert.JSONEq(t, want[i], string(fr.Response), turn[i].name)
		}
	}
	assert.Contains(t, string(c.Parts[3].FunctionResponse.Response), `"code":"not_found"`)

	t.Run("ids made for calls without one are not sent back", func(t *testing.T) {
		results := run(t, reg, (*wire.Adapter).GeminiCalls, formats[3].response(call{name: "motto", args: `{}`}))
		require.Len(t, results, 1)
		assert.NotEmpty(t, results[0].CallID)
		c := wire.New(reg).GeminiResults(results)
		assert.JSONEq(t, `{"role":"user","parts":[{"functionResponse":{"name":"motto","response":{"output":"carpe diem"}}}]}`, mustJSON(t, c))
	})
	t.Run("a result that is not UTF-8 is sent as a string", func(t *testing.T) {
		c := wire.New(reg).GeminiResults([]toolreg.Result{{CallID: "x", Tool: "t", Content: "\"\xff\""}})
		b := mustJSON(t, c)
		assert.Contains(t, b, `"output":"\"\ufffd\""`)
	})
}
