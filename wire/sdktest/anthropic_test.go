package sdktest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

func TestAnthropicToolsAreSDKParams(t *testing.T) {
	reg := fixture(t)
	for _, tc := range []struct {
		name     string
		a        *wire.Adapter
		search   string // the server tool's type, "" for none
		deferred []string
	}{
		{name: "plain", a: wire.New(reg)},
		{name: "deferred with BM25 search", a: wire.New(reg, wire.WithDeferred("get_order", "gh_issue_list")), search: "tool_search_tool_bm25_20251119", deferred: []string{"get_order", "gh_issue_list"}},
		{name: "deferred with regex search", a: wire.New(reg, wire.WithDeferred("ping"), wire.WithSearch(wire.SearchRegex)), search: "tool_search_tool_regex_20251119", deferred: []string{"ping"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, err := tc.a.AnthropicTools(fullAccess)
			require.NoError(t, err)
			b := mustJSON(t, ours)
			var params []anthropic.ToolUnionParam
			require.NoError(t, json.Unmarshal(b, &params))
			require.Len(t, params, len(ours))
			sameElements(t, b, mustJSON(t, params))
			switch tc.search {
			case "tool_search_tool_bm25_20251119":
				s := params[0].OfToolSearchToolBm25_20251119
				require.NotNil(t, s)
				assert.Equal(t, tc.search, string(s.Type))
				assert.Equal(t, "tool_search_tool_bm25", string(s.Name))
			case "tool_search_tool_regex_20251119":
				s := params[0].OfToolSearchToolRegex20251119
				require.NotNil(t, s)
				assert.Equal(t, tc.search, string(s.Type))
				assert.Equal(t, "tool_search_tool_regex", string(s.Name))
			}
			if tc.search != "" {
				params, ours = params[1:], ours[1:]
			}
			for i, p := range params {
				tool := p.OfTool
				require.NotNil(t, tool, ours[i].Name)
				assert.Equal(t, ours[i].Name, tool.Name)
				assert.Equal(t, ours[i].Description, tool.Description.Value)
				assert.Equal(t, ours[i].Strict, tool.Strict.Value)
				assert.Equal(t, contains(tc.deferred, tool.Name), tool.DeferLoading.Value, tool.Name)

				var want map[string]any
				require.NoError(t, json.Unmarshal([]byte(parametersJSON(t, reg, tool.Name)), &want))
				assert.Equal(t, want["properties"], tool.InputSchema.Properties, tool.Name)
				assert.ElementsMatch(t, want["required"], tool.InputSchema.Required, tool.Name)
				assert.Equal(t, want["$defs"], tool.InputSchema.ExtraFields["$defs"], "$defs are kept for Anthropic")
				assert.Equal(t, want["additionalProperties"], tool.InputSchema.ExtraFields["additionalProperties"])
			}
		})
	}
}

// anthropicTurn is the SDK's representation of an assistant turn with tool
// calls, among text and thinking blocks.
func anthropicTurn(t *testing.T) anthropic.Message {
	raw := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use","stop_sequence":null,
		"usage":{"input_tokens":10,"output_tokens":20},
		"content":[
			{"type":"thinking","thinking":"The user wants several things.","signature":"sig"},
			{"type":"text","text":"On it."},
			{"type":"tool_use","id":"toolu_w","name":"get_weather","input":{"city":"Oslo","units":"celsius"}},
			{"type":"tool_use","id":"toolu_o","name":"get_order","input":{"id":9007199254740993}},
			{"type":"tool_use","id":"toolu_e","name":"create_event","input":{"title":"Sync","start":"2026-01-02T10:00:00Z","attendees":[{"name":"Ana","email":null}]}},
			{"type":"tool_use","id":"toolu_f","name":"flaky","input":{}},
			{"type":"tool_use","id":"toolu_x","name":"get_weather","input":{"town":"Oslo"}}]}`
	var msg anthropic.Message
	require.NoError(t, json.Unmarshal([]byte(raw), &msg), "the recorded message is one the SDK reads")
	require.Len(t, msg.Content, 7)
	assert.Equal(t, "toolu_w", msg.Content[2].AsToolUse().ID)
	return msg
}

func TestAnthropicCallsFromSDKTypes(t *testing.T) {
	reg := fixture(t)
	w := wire.New(reg)
	msg := anthropicTurn(t)
	for name, form := range map[string][]byte{
		"the SDK's raw JSON":                []byte(msg.RawJSON()),
		"the SDK's assistant message param": mustJSON(t, msg.ToParam()),
	} {
		t.Run(name, func(t *testing.T) {
			calls, err := w.AnthropicCalls(form)
			require.NoError(t, err)
			results := reg.ExecuteBatch(context.Background(), calls, toolreg.CallContext{Access: fullAccess}, toolreg.BatchOptions{})
			checkTurn(t, calls, results, "toolu_w", "toolu_o", "toolu_e", "toolu_f", "toolu_x")

			var reply anthropic.MessageParam
			require.NoError(t, json.Unmarshal(mustJSON(t, w.AnthropicResults(results)), &reply))
			require.NotNil(t, reply.OfUser, "a user message")
			require.Len(t, reply.OfUser.Content, len(results))
			for i, block := range reply.OfUser.Content {
				tr := block.OfToolResult
				require.NotNil(t, tr)
				assert.Equal(t, results[i].CallID, tr.ToolUseID)
				assert.Equal(t, results[i].IsError(), tr.IsError.Value)
				assert.Equal(t, results[i].IsError(), tr.IsError.Valid(), "is_error is sent only for errors")
				require.Len(t, tr.Content, 1)
				require.NotNil(t, tr.Content[0].OfText)
				assert.Equal(t, results[i].Content, tr.Content[0].OfText.Text)
			}
		})
	}
}

// TestAnthropicLoop runs two turns with the real client against a loopback
// server replaying a recorded conversation, with deferred tools.
func TestAnthropicLoop(t *testing.T) {
	reg := fixture(t)
	w := wire.New(reg, wire.WithDeferred("gh_issue_list"))
	msg := anthropicTurn(t)
	rp := &replay{responses: []string{
		msg.RawJSON(),
		`{"id":"msg_2","type":"message","role":"assistant","model":"claude-test","stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":5},"content":[{"type":"text","text":"Done."}]}`,
	}}
	srv := serve(t, rp)
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))

	tools, err := w.AnthropicTools(fullAccess)
	require.NoError(t, err)
	params := anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather, order and a meeting, please."))},
	}
	require.NoError(t, json.Unmarshal(mustJSON(t, tools), &params.Tools))

	ctx := context.Background()
	for turn := 0; ; turn++ {
		require.Less(t, turn, 3)
		resp, err := client.Messages.New(ctx, params)
		require.NoError(t, err)
		calls, err := w.AnthropicCalls([]byte(resp.RawJSON()))
		require.NoError(t, err)
		if len(calls) == 0 {
			assert.Equal(t, "Done.", resp.Content[0].Text)
			break
		}
		params.Messages = append(params.Messages, resp.ToParam())
		results := reg.ExecuteBatch(ctx, calls, toolreg.CallContext{Access: fullAccess, Platform: "anthropic"}, toolreg.BatchOptions{})
		var reply anthropic.MessageParam
		require.NoError(t, json.Unmarshal(mustJSON(t, w.AnthropicResults(results)), &reply))
		params.Messages = append(params.Messages, reply)
	}

	first := rp.request(t, 0)
	sent := first["tools"].([]any)
	assert.Equal(t, map[string]any{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}, sent[0])
	var ours []map[string]any
	require.NoError(t, json.Unmarshal(mustJSON(t, tools), &ours))
	for i := range ours {
		assert.Equal(t, ours[i], sent[i], "the client sends our tools unchanged")
	}
	second := rp.request(t, 1)
	msgs := second["messages"].([]any)
	require.Len(t, msgs, 3)
	reply := msgs[2].(map[string]any)
	assert.Equal(t, "user", reply["role"])
	blocks := reply["content"].([]any)
	require.Len(t, blocks, 5)
	assert.Equal(t, map[string]any{"type": "tool_result", "tool_use_id": "toolu_f", "is_error": true,
		"content": []any{map[string]any{"type": "text", "text": `{"error":"upstream timed out","code":"tool_error"}`}}}, blocks[3])
}
