package wire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

// weatherRegistry holds one tool, get_weather.
func weatherRegistry() *toolreg.Registry {
	reg := toolreg.New()
	_, err := reg.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "get_weather",
			Description: "Current weather in a city.",
			Parameters: toolreg.Parameters{
				Properties: map[string]any{"city": map[string]any{"type": "string"}},
				Required:   []string{"city"},
			},
		}},
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			return fmt.Sprintf(`{"city":%q,"temp_c":21}`, args["city"]), nil
		},
	}, "weather")
	if err != nil {
		panic(err)
	}
	return reg
}

func printJSON(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// One turn of an OpenAI chat completions loop: offer the tools, read the
// model's tool calls, run them together, answer with tool messages.
func Example() {
	reg := weatherRegistry()
	w := wire.New(reg)
	access := toolreg.Access{}

	tools, _ := w.ChatTools(access) // the request's "tools"
	printJSON(tools)

	// The assistant message of the response, as the API returned it.
	message := `{"role":"assistant","content":null,"tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}},
		{"id":"call_2","type":"function","function":{"name":"get_wether","arguments":"{}"}}]}`
	calls, err := w.ChatCalls([]byte(message))
	if err != nil {
		fmt.Println(err)
		return
	}
	results := reg.ExecuteBatch(context.Background(), calls, toolreg.CallContext{Access: access}, toolreg.BatchOptions{})
	msgs := w.ChatResults(results) // append these to the conversation
	printJSON(msgs[0])
	fmt.Println(msgs[1].ToolCallID, results[1].Code) // the content tells the model what went wrong
	// Output:
	// [{"type":"function","function":{"name":"get_weather","description":"Current weather in a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]
	// {"role":"tool","tool_call_id":"call_1","content":"{\"city\":\"Oslo\",\"temp_c\":21}"}
	// call_2 not_found
}

// Anthropic: the tool_use blocks of a message, and the user message of
// tool_result blocks that answers them, with is_error where a call failed.
func ExampleAdapter_AnthropicCalls() {
	reg := weatherRegistry()
	w := wire.New(reg)
	message := `{"id":"msg_1","type":"message","role":"assistant","stop_reason":"tool_use","content":[
		{"type":"text","text":"Checking."},
		{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Lima"}},
		{"type":"tool_use","id":"toolu_2","name":"get_weather","input":{}}]}`
	calls, err := w.AnthropicCalls([]byte(message))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(calls)
	results := reg.ExecuteBatch(context.Background(), calls, toolreg.CallContext{}, toolreg.BatchOptions{})
	for _, tr := range w.AnthropicResults(results).Content {
		fmt.Println(tr.ToolUseID, tr.IsError)
	}
	// Output:
	// [{toolu_1 get_weather {"city":"Lima"}} {toolu_2 get_weather {}}]
	// toolu_1 false
	// toolu_2 true
}

// Deferred tools with Anthropic's tool search: every tool the Access reaches
// is sent, the deferred ones with defer_loading, after the search tool.
func ExampleWithDeferred() {
	reg := weatherRegistry()
	_, _ = reg.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "get_forecast", Description: "Ten-day forecast."}},
		Handler:    func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "sunny", nil },
	}, "weather")
	w := wire.New(reg, wire.WithDeferred("get_forecast"))
	tools, _ := w.AnthropicTools(toolreg.Access{})
	for _, t := range tools {
		fmt.Printf("%s type=%q defer_loading=%v\n", t.Name, t.Type, t.DeferLoading)
	}

	// Chat completions has no tool search of its own: deferred tools wait
	// until the session discovered them through the search tool.
	chat, err := w.ChatTools(toolreg.Access{})
	fmt.Println(len(chat), err)
	// Output:
	// tool_search_tool_bm25 type="tool_search_tool_bm25_20251119" defer_loading=false
	// get_forecast type="" defer_loading=true
	// get_weather type="" defer_loading=false
	// 1 wire: 1 deferred tools cannot be found: search tool not offered: "search_tools" is not registered or not reached by this Access
}

// Gemini: $defs are inlined and types written the Gemini way; calls without
// ids get stable ones, which are not sent back.
func ExampleAdapter_GeminiTools() {
	reg := toolreg.New()
	_, _ = reg.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name: "route",
			Parameters: toolreg.Parameters{
				Properties: map[string]any{"from": map[string]any{"$ref": "#/$defs/Place"}, "to": map[string]any{"$ref": "#/$defs/Place"}},
				Defs:       map[string]any{"Place": map[string]any{"type": []any{"string", "null"}, "format": "uri"}},
			},
		}},
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "42 km", nil },
	}, "maps")
	w := wire.New(reg)
	tool, _ := w.GeminiTools(toolreg.Access{})
	printJSON(tool)

	calls, _ := w.GeminiCalls([]byte(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"route","args":{"from":"Bern","to":"Basel"}}}]}}]}`))
	fmt.Println(strings.HasPrefix(calls[0].ID, wire.GeminiGeneratedIDPrefix))
	results := reg.ExecuteBatch(context.Background(), calls, toolreg.CallContext{}, toolreg.BatchOptions{})
	printJSON(w.GeminiResults(results))
	// Output:
	// {"functionDeclarations":[{"name":"route","parameters":{"type":"OBJECT","properties":{"from":{"type":"STRING","nullable":true},"to":{"type":"STRING","nullable":true}}}}]}
	// true
	// {"role":"user","parts":[{"functionResponse":{"name":"route","response":{"output":"42 km"}}}]}
}
