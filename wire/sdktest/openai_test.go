package sdktest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

func TestChatToolsAreOpenAIParams(t *testing.T) {
	reg := fixture(t)
	ours, err := wire.New(reg).ChatTools(fullAccess)
	require.NoError(t, err)
	b := mustJSON(t, ours)

	var params []openai.ChatCompletionToolUnionParam
	require.NoError(t, json.Unmarshal(b, &params))
	require.Len(t, params, len(ours))
	for i, p := range params {
		def := ours[i].Function
		require.NotNil(t, p.OfFunction, def.Name)
		fn := p.OfFunction.Function
		assert.Equal(t, def.Name, fn.Name)
		assert.Equal(t, def.Description, fn.Description.Value)
		assert.Equal(t, def.Strict, fn.Strict.Value, def.Name)
		assert.Equal(t, def.Strict, fn.Strict.Valid(), "strict is sent only for strict tools: %s", def.Name)
		assert.JSONEq(t, parametersJSON(t, reg, def.Name), string(mustJSON(t, fn.Parameters)), def.Name)
	}
	assert.JSONEq(t, string(b), string(mustJSON(t, params)), "the SDK writes back exactly what we produced")
}

func TestResponsesToolsAreOpenAIParams(t *testing.T) {
	reg := fixture(t)
	for _, tc := range []struct {
		name     string
		a        *wire.Adapter
		search   bool
		deferred []string
	}{
		{name: "plain", a: wire.New(reg)},
		{name: "deferred with the hosted tool search", a: wire.New(reg, wire.WithDeferred("get_order", "gh_issue_list")), search: true, deferred: []string{"get_order", "gh_issue_list"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, err := tc.a.ResponsesTools(fullAccess)
			require.NoError(t, err)
			b := mustJSON(t, ours)
			var params []responses.ToolUnionParam
			require.NoError(t, json.Unmarshal(b, &params))
			require.Len(t, params, len(ours))
			sameElements(t, b, mustJSON(t, params))
			if tc.search {
				require.NotNil(t, params[0].OfToolSearch)
				params = params[1:]
				ours = ours[1:]
			}
			for i, p := range params {
				fn := p.OfFunction
				require.NotNil(t, fn, ours[i].Name)
				assert.Equal(t, ours[i].Name, fn.Name)
				assert.Equal(t, ours[i].Description, fn.Description.Value)
				require.True(t, fn.Strict.Valid(), "strict is always sent")
				assert.Equal(t, *ours[i].Strict, fn.Strict.Value)
				assert.Equal(t, contains(tc.deferred, fn.Name), fn.DeferLoading.Value, fn.Name)
				assert.JSONEq(t, parametersJSON(t, reg, fn.Name), string(mustJSON(t, fn.Parameters)))
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// chatToolCalls is the SDK's own representation of a turn's calls,
// marshalled as the SDK marshals it.
func chatToolCalls(t *testing.T) []byte {
	calls := []openai.ChatCompletionMessageFunctionToolCall{
		{ID: "call_w", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "get_weather", Arguments: `{"city":"Oslo","units":"celsius"}`}},
		{ID: "call_o", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "get_order", Arguments: `{"id":9007199254740993}`}},
		{ID: "call_e", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "create_event", Arguments: `{"title":"Sync","start":"2026-01-02T10:00:00Z","attendees":[{"name":"Ana","email":null}]}`}},
		{ID: "call_f", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "flaky", Arguments: ``}},
		{ID: "call_x", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "get_weather", Arguments: `{"town":"Oslo"}`}},
	}
	return []byte(`{"role":"assistant","content":null,"tool_calls":` + string(mustJSON(t, calls)) + `}`)
}

// checkTurn checks the results of the fixture turn written by
// chatToolCalls (and its equivalents in the other formats).
func checkTurn(t *testing.T, calls []toolreg.ToolCall, results []toolreg.Result, ids ...string) {
	t.Helper()
	require.Len(t, calls, 5)
	require.Len(t, results, 5)
	for i, id := range ids {
		assert.Equal(t, id, calls[i].ID)
		assert.Equal(t, id, results[i].CallID)
		assert.Equal(t, calls[i].Name, results[i].Tool)
	}
	assert.Equal(t, `{"city":"Oslo","temp":21}`, results[0].Content)
	assert.Equal(t, `{"id":9007199254740993}`, calls[1].Arguments, "a 64-bit id reaches the registry exactly as the model wrote it")
	assert.Empty(t, results[1].Code)
	assert.Equal(t, `created "Sync" with 1 attendees`, results[2].Content)
	assert.Equal(t, toolreg.CodeToolError, results[3].Code)
	assert.Equal(t, toolreg.CodeInvalidArguments, results[4].Code)
}

func TestChatCallsFromOpenAITypes(t *testing.T) {
	reg := fixture(t)
	w := wire.New(reg)
	raw := chatToolCalls(t)

	var msg openai.ChatCompletionMessage
	require.NoError(t, json.Unmarshal(raw, &msg), "the recorded message is one the SDK reads")
	for name, form := range map[string][]byte{
		"the SDK's raw JSON":                []byte(msg.RawJSON()),
		"the SDK's assistant message param": mustJSON(t, msg.ToParam()),
	} {
		t.Run(name, func(t *testing.T) {
			calls, err := w.ChatCalls(form)
			require.NoError(t, err)
			results := reg.ExecuteBatch(context.Background(), calls, toolreg.CallContext{Access: fullAccess}, toolreg.BatchOptions{})
			checkTurn(t, calls, results, "call_w", "call_o", "call_e", "call_f", "call_x")

			var answers []openai.ChatCompletionMessageParamUnion
			require.NoError(t, json.Unmarshal(mustJSON(t, w.ChatResults(results)), &answers))
			require.Len(t, answers, len(results))
			for i, a := range answers {
				require.NotNil(t, a.OfTool, "a tool message")
				assert.Equal(t, results[i].CallID, a.OfTool.ToolCallID)
				assert.Equal(t, results[i].Content, a.OfTool.Content.OfString.Value)
			}
		})
	}
}

func TestResponsesCallsFromOpenAITypes(t *testing.T) {
	reg := fixture(t)
	w := wire.New(reg)
	var items []json.RawMessage
	for _, c := range []responses.ResponseFunctionToolCallParam{
		{ID: openai.String("fc_1"), CallID: "call_w", Name: "get_weather", Arguments: `{"city":"Oslo","units":"celsius"}`, Status: "completed"},
		{ID: openai.String("fc_2"), CallID: "call_o", Name: "get_order", Arguments: `{"id":9007199254740993}`, Status: "completed"},
		{ID: openai.String("fc_3"), CallID: "call_e", Name: "create_event", Arguments: `{"title":"Sync","start":"2026-01-02T10:00:00Z","attendees":[{"name":"Ana","email":null}]}`},
		{ID: openai.String("fc_4"), CallID: "call_f", Name: "flaky", Arguments: `{}`},
		{ID: openai.String("fc_5"), CallID: "call_x", Name: "get_weather", Arguments: `{"town":"Oslo"}`},
	} {
		items = append(items, mustJSON(t, c))
	}
	items = append([]json.RawMessage{json.RawMessage(`{"type":"reasoning","id":"rs_1","summary":[]}`)}, items...)
	raw := `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt","error":null,"output":` + string(mustJSON(t, items)) + `}`

	var resp responses.Response
	require.NoError(t, json.Unmarshal([]byte(raw), &resp), "the recorded response is one the SDK reads")
	require.Len(t, resp.Output, 6)
	assert.Equal(t, "call_w", resp.Output[1].AsFunctionCall().CallID)

	calls, err := w.ResponsesCalls([]byte(resp.RawJSON()))
	require.NoError(t, err)
	results := reg.ExecuteBatch(context.Background(), calls, toolreg.CallContext{Access: fullAccess}, toolreg.BatchOptions{})
	checkTurn(t, calls, results, "call_w", "call_o", "call_e", "call_f", "call_x")

	var input responses.ResponseInputParam
	require.NoError(t, json.Unmarshal(mustJSON(t, w.ResponsesResults(results)), &input))
	require.Len(t, input, len(results))
	for i, it := range input {
		out := it.OfFunctionCallOutput
		require.NotNil(t, out)
		assert.Equal(t, results[i].CallID, out.CallID.Value)
		assert.Equal(t, results[i].Content, out.Output.OfString.Value)
	}
}

// TestOpenAIChatLoop runs two turns with the real client against a loopback
// server replaying a recorded conversation.
func TestOpenAIChatLoop(t *testing.T) {
	reg := fixture(t)
	w := wire.New(reg)
	rp := &replay{responses: []string{
		`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"tool_calls","message":` + string(chatToolCalls(t)) + `}]}`,
		`{"id":"chatcmpl-2","object":"chat.completion","created":2,"model":"gpt-test","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"It is 21 degrees in Oslo."}}]}`,
	}}
	srv := serve(t, rp)
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))

	tools, err := w.ChatTools(fullAccess)
	require.NoError(t, err)
	params := openai.ChatCompletionNewParams{Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Oslo?")}}
	require.NoError(t, json.Unmarshal(mustJSON(t, tools), &params.Tools))

	ctx := context.Background()
	for turn := 0; ; turn++ {
		require.Less(t, turn, 3)
		completion, err := client.Chat.Completions.New(ctx, params)
		require.NoError(t, err)
		message := completion.Choices[0].Message
		calls, err := w.ChatCalls([]byte(message.RawJSON()))
		require.NoError(t, err)
		if len(calls) == 0 {
			assert.Equal(t, "It is 21 degrees in Oslo.", message.Content)
			break
		}
		params.Messages = append(params.Messages, message.ToParam())
		results := reg.ExecuteBatch(ctx, calls, toolreg.CallContext{Access: fullAccess, Platform: "openai"}, toolreg.BatchOptions{})
		var answers []openai.ChatCompletionMessageParamUnion
		require.NoError(t, json.Unmarshal(mustJSON(t, w.ChatResults(results)), &answers))
		params.Messages = append(params.Messages, answers...)
	}

	first := rp.request(t, 0)
	var sent []json.RawMessage
	require.NoError(t, json.Unmarshal(mustJSON(t, first["tools"]), &sent))
	var ours []json.RawMessage
	require.NoError(t, json.Unmarshal(mustJSON(t, tools), &ours))
	require.Len(t, sent, len(ours))
	for i := range ours {
		assert.JSONEq(t, string(ours[i]), string(sent[i]), "the client sends our tools unchanged")
	}
	second := rp.request(t, 1)
	msgs := second["messages"].([]any)
	require.Len(t, msgs, 7, "user, assistant with 5 calls, 5 tool messages")
	last := msgs[6].(map[string]any)
	assert.Equal(t, "tool", last["role"])
	assert.Equal(t, "call_x", last["tool_call_id"])
	assert.True(t, strings.Contains(last["content"].(string), "invalid_arguments"))
}

// TestOpenAIResponsesLoop does the same with the Responses API.
func TestOpenAIResponsesLoop(t *testing.T) {
	reg := fixture(t)
	w := wire.New(reg, wire.WithDeferred("gh_issue_list"))
	rp := &replay{responses: []string{
		`{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-test","error":null,"output":[
			{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Lima\"}","status":"completed"},
			{"type":"function_call","id":"fc_2","call_id":"call_2","name":"ping","arguments":"{}","status":"completed"}]}`,
		`{"id":"resp_2","object":"response","created_at":2,"status":"completed","model":"gpt-test","error":null,"output":[
			{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Sunny in Lima.","annotations":[]}]}]}`,
	}}
	srv := serve(t, rp)
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))

	tools, err := w.ResponsesTools(fullAccess)
	require.NoError(t, err)
	params := responses.ResponseNewParams{Model: "gpt-test", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Lima?")}}
	require.NoError(t, json.Unmarshal(mustJSON(t, tools), &params.Tools))

	ctx := context.Background()
	resp, err := client.Responses.New(ctx, params)
	require.NoError(t, err)
	calls, err := w.ResponsesCalls([]byte(resp.RawJSON()))
	require.NoError(t, err)
	require.Len(t, calls, 2)
	results := reg.ExecuteBatch(ctx, calls, toolreg.CallContext{Access: fullAccess}, toolreg.BatchOptions{})

	var input responses.ResponseInputParam
	require.NoError(t, json.Unmarshal(mustJSON(t, w.ResponsesResults(results)), &input))
	next := responses.ResponseNewParams{Model: "gpt-test", PreviousResponseID: openai.String(resp.ID), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}}
	final, err := client.Responses.New(ctx, next)
	require.NoError(t, err)
	assert.Equal(t, "Sunny in Lima.", final.OutputText())

	first := rp.request(t, 0)
	sent := first["tools"].([]any)
	assert.Equal(t, map[string]any{"type": "tool_search"}, sent[0])
	for _, s := range sent[1:] {
		tool := s.(map[string]any)
		assert.Equal(t, tool["name"] == "gh_issue_list", tool["defer_loading"] == true, tool["name"])
		assert.Contains(t, tool, "strict")
	}
	second := rp.request(t, 1)
	items := second["input"].([]any)
	require.Len(t, items, 2)
	assert.Equal(t, map[string]any{"type": "function_call_output", "call_id": "call_1", "output": `{"city":"Lima","temp":21}`}, items[0])
}
