package sdktest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

// geminiWant is the genai declaration of each fixture tool, written by hand
// from what Gemini accepts.
var geminiWant = map[string]*genai.FunctionDeclaration{
	"create_event": {Name: "create_event", Description: "Create a calendar event.", Parameters: &genai.Schema{
		Type: genai.TypeObject,
		Properties: map[string]*genai.Schema{
			"title": {Type: genai.TypeString},
			"start": {Type: genai.TypeString, Format: "date-time"},
			"attendees": {Type: genai.TypeArray, Items: &genai.Schema{
				Type: genai.TypeObject,
				Properties: map[string]*genai.Schema{
					"name":  {Type: genai.TypeString},
					"email": {Type: genai.TypeString, Nullable: genai.Ptr(true)},
				},
				Required: []string{"name", "email"},
			}},
		},
		Required: []string{"title", "start", "attendees"},
	}},
	"flaky":         {Name: "flaky", Description: "Always fails."},
	"gh_issue_list": {Name: "gh_issue_list", Description: "List GitHub issues."},
	"get_order": {Name: "get_order", Description: "Fetch an order by id.", Parameters: &genai.Schema{
		Type: genai.TypeObject, Properties: map[string]*genai.Schema{"id": {Type: genai.TypeInteger}}, Required: []string{"id"},
	}},
	"get_weather": {Name: "get_weather", Description: "Current weather in a city.", Parameters: &genai.Schema{
		Type: genai.TypeObject,
		Properties: map[string]*genai.Schema{
			"city":  {Type: genai.TypeString, Description: "City name"},
			"units": {Type: genai.TypeString, Format: "enum", Enum: []string{"celsius", "fahrenheit"}},
		},
		Required: []string{"city"},
	}},
	"ping": {Name: "ping", Description: "Check the service."},
}

func TestGeminiToolsAreSDKTypes(t *testing.T) {
	reg := fixture(t)
	ours, err := wire.New(reg).GeminiTools(fullAccess)
	require.NoError(t, err)
	b := mustJSON(t, ours)

	var tool genai.Tool
	require.NoError(t, json.Unmarshal(b, &tool))
	require.Len(t, tool.FunctionDeclarations, len(geminiWant))
	for _, d := range tool.FunctionDeclarations {
		assert.Equal(t, geminiWant[d.Name], d, d.Name)
	}
	assert.JSONEq(t, string(b), string(mustJSON(t, tool)), "the SDK writes back exactly what we produced")

	t.Run("as JSON Schema", func(t *testing.T) {
		ours, err := wire.New(reg, wire.WithGeminiJSONSchema()).GeminiTools(fullAccess)
		require.NoError(t, err)
		var tool genai.Tool
		require.NoError(t, json.Unmarshal(mustJSON(t, ours), &tool))
		for _, d := range tool.FunctionDeclarations {
			assert.Nil(t, d.Parameters)
			if geminiWant[d.Name].Parameters == nil {
				assert.Nil(t, d.ParametersJsonSchema, d.Name)
				continue
			}
			assert.JSONEq(t, parametersJSON(t, reg, d.Name), string(mustJSON(t, d.ParametersJsonSchema)), d.Name)
		}
	})
}

// geminiTurn is the SDK's response with a turn's function calls: some
// with ids, as recent models send them, some without.
func geminiTurn() *genai.GenerateContentResponse {
	weather := genai.NewPartFromFunctionCall("get_weather", map[string]any{"city": "Oslo", "units": "celsius"})
	weather.FunctionCall.ID = "fc_w"
	return &genai.GenerateContentResponse{
		ModelVersion: "gemini-test",
		Candidates: []*genai.Candidate{{
			FinishReason: genai.FinishReasonStop,
			Content: genai.NewContentFromParts([]*genai.Part{
				genai.NewPartFromText("Let me look."),
				weather,
				genai.NewPartFromFunctionCall("get_order", map[string]any{"id": json.Number("9007199254740993")}),
				genai.NewPartFromFunctionCall("create_event", map[string]any{"title": "Sync", "start": "2026-01-02T10:00:00Z", "attendees": []any{map[string]any{"name": "Ana", "email": nil}}}),
				genai.NewPartFromFunctionCall("flaky", nil),
				genai.NewPartFromFunctionCall("get_weather", map[string]any{"town": "Oslo"}),
			}, genai.RoleModel),
		}},
	}
}

func TestGeminiCallsFromSDKTypes(t *testing.T) {
	reg := fixture(t)
	w := wire.New(reg)
	raw := mustJSON(t, geminiTurn())

	calls, err := w.GeminiCalls(raw)
	require.NoError(t, err)
	require.Len(t, calls, 5)
	ids := []string{"fc_w", calls[1].ID, calls[2].ID, calls[3].ID, calls[4].ID}
	for _, id := range ids[1:] {
		assert.True(t, strings.HasPrefix(id, wire.GeminiGeneratedIDPrefix), id)
	}
	results := reg.ExecuteBatch(context.Background(), calls, toolreg.CallContext{Access: fullAccess}, toolreg.BatchOptions{})
	checkTurn(t, calls, results, ids...)

	var content genai.Content
	require.NoError(t, json.Unmarshal(mustJSON(t, w.GeminiResults(results)), &content))
	assert.Equal(t, genai.RoleUser, content.Role)
	require.Len(t, content.Parts, 5)
	for i, p := range content.Parts {
		fr := p.FunctionResponse
		require.NotNil(t, fr)
		assert.Equal(t, results[i].Tool, fr.Name)
		if i == 0 {
			assert.Equal(t, "fc_w", fr.ID, "a Gemini id is sent back")
		} else {
			assert.Empty(t, fr.ID, "a made-up id is not")
		}
	}
	assert.Equal(t, map[string]any{"output": map[string]any{"city": "Oslo", "temp": float64(21)}}, content.Parts[0].FunctionResponse.Response)
	assert.Equal(t, map[string]any{"error": "upstream timed out", "code": "tool_error"}, content.Parts[3].FunctionResponse.Response)
	assert.Equal(t, "invalid_arguments", content.Parts[4].FunctionResponse.Response["code"])
}

// TestGeminiLoop runs two turns with the real client against a loopback
// server replaying a recorded conversation.
func TestGeminiLoop(t *testing.T) {
	reg := fixture(t)
	w := wire.New(reg)
	final := &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{
		FinishReason: genai.FinishReasonStop,
		Content:      genai.NewContentFromText("All done.", genai.RoleModel),
	}}}
	rp := &replay{responses: []string{string(mustJSON(t, geminiTurn())), string(mustJSON(t, final))}}
	srv := serve(t, rp)

	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: "test", Backend: genai.BackendGeminiAPI, HTTPClient: srv.Client(),
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	require.NoError(t, err)

	ours, err := w.GeminiTools(fullAccess)
	require.NoError(t, err)
	var tool genai.Tool
	require.NoError(t, json.Unmarshal(mustJSON(t, ours), &tool))
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{&tool}}
	contents := []*genai.Content{genai.NewContentFromText("Weather, order and a meeting, please.", genai.RoleUser)}

	for turn := 0; ; turn++ {
		require.Less(t, turn, 3)
		resp, err := client.Models.GenerateContent(ctx, "gemini-test", contents, config)
		require.NoError(t, err)
		calls, err := w.GeminiCalls(mustJSON(t, resp))
		require.NoError(t, err)
		if len(calls) == 0 {
			assert.Equal(t, "All done.", resp.Text())
			break
		}
		assert.Len(t, resp.FunctionCalls(), len(calls))
		contents = append(contents, resp.Candidates[0].Content)
		results := reg.ExecuteBatch(ctx, calls, toolreg.CallContext{Access: fullAccess, Platform: "gemini"}, toolreg.BatchOptions{})
		var reply genai.Content
		require.NoError(t, json.Unmarshal(mustJSON(t, w.GeminiResults(results)), &reply))
		contents = append(contents, &reply)
	}

	first := rp.request(t, 0)
	sentTools := first["tools"].([]any)
	require.Len(t, sentTools, 1)
	var want map[string]any
	require.NoError(t, json.Unmarshal(mustJSON(t, ours), &want))
	assert.Equal(t, want, sentTools[0], "the client sends our declarations unchanged")

	second := rp.request(t, 1)
	sentContents := second["contents"].([]any)
	require.Len(t, sentContents, 3)
	reply := sentContents[2].(map[string]any)
	assert.Equal(t, "user", reply["role"])
	parts := reply["parts"].([]any)
	require.Len(t, parts, 5)
	assert.Equal(t, map[string]any{"functionResponse": map[string]any{"id": "fc_w", "name": "get_weather",
		"response": map[string]any{"output": map[string]any{"city": "Oslo", "temp": float64(21)}}}}, parts[0])
}
