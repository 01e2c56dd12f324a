package wire_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

// call is one tool call to write into a provider response; args is JSON
// object text, or "" for none.
type call struct{ id, name, args string }

// format describes one provider's responses for the tests shared by all.
type format struct {
	name      string
	parse     func(*wire.Adapter, []byte) ([]toolreg.ToolCall, error)
	response  func(calls ...call) string // the whole response
	message   func(calls ...call) string // the message (or items) alone
	makesIDs  bool                       // calls without an id get one instead of an error
	errorBody string                     // the provider's error response
	wrongType string                     // a response with a field of the wrong JSON type
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func orEmptyObject(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}

var formats = []format{
	{
		name:  "openai-chat",
		parse: (*wire.Adapter).ChatCalls,
		message: func(calls ...call) string {
			var parts []string
			for _, c := range calls {
				parts = append(parts, fmt.Sprintf(`{"id":%s,"type":"function","function":{"name":%s,"arguments":%s}}`, quote(c.id), quote(c.name), quote(c.args)))
			}
			return `{"role":"assistant","content":null,"refusal":null,"tool_calls":[` + strings.Join(parts, ",") + `]}`
		},
		errorBody: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`,
		wrongType: `{"role":"assistant","tool_calls":"none"}`,
	},
	{
		name:  "openai-responses",
		parse: (*wire.Adapter).ResponsesCalls,
		message: func(calls ...call) string {
			parts := []string{`{"type":"reasoning","id":"rs_1","summary":[]}`}
			for i, c := range calls {
				parts = append(parts, fmt.Sprintf(`{"type":"function_call","id":"fc_%d","call_id":%s,"name":%s,"arguments":%s,"status":"completed"}`, i, quote(c.id), quote(c.name), quote(c.args)))
			}
			return `[` + strings.Join(parts, ",") + `]`
		},
		errorBody: `{"error":{"message":"The model does not exist","type":"invalid_request_error"}}`,
		wrongType: `{"object":"response","output":{"type":"function_call"}}`,
	},
	{
		name:  "anthropic",
		parse: (*wire.Adapter).AnthropicCalls,
		message: func(calls ...call) string {
			parts := []string{`{"type":"thinking","thinking":"…","signature":"s"}`, `{"type":"text","text":"Let me check."}`}
			for _, c := range calls {
				parts = append(parts, fmt.Sprintf(`{"type":"tool_use","id":%s,"name":%s,"input":%s}`, quote(c.id), quote(c.name), orEmptyObject(c.args)))
			}
			return `{"id":"msg_1","type":"message","role":"assistant","model":"claude","stop_reason":"tool_use","content":[` + strings.Join(parts, ",") + `]}`
		},
		errorBody: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		wrongType: `{"type":"message","content":[{"type":"tool_use","id":7}]}`,
	},
	{
		name:  "gemini",
		parse: (*wire.Adapter).GeminiCalls,
		message: func(calls ...call) string {
			parts := []string{`{"text":"Checking."}`}
			for _, c := range calls {
				id := ""
				if c.id != "" {
					id = `"id":` + quote(c.id) + `,`
				}
				parts = append(parts, fmt.Sprintf(`{"functionCall":{%s"name":%s,"args":%s}}`, id, quote(c.name), orEmptyObject(c.args)))
			}
			return `{"role":"model","parts":[` + strings.Join(parts, ",") + `]}`
		},
		makesIDs:  true,
		errorBody: `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}`,
		wrongType: `{"candidates":[{"content":{"parts":[{"functionCall":{"name":["x"]}}]}}]}`,
	},
}

func init() {
	for i := range formats {
		f := &formats[i]
		switch f.name {
		case "openai-chat":
			f.response = func(calls ...call) string {
				return `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt","choices":[{"index":0,"finish_reason":"tool_calls","message":` + f.message(calls...) + `}]}`
			}
		case "openai-responses":
			f.response = func(calls ...call) string {
				return `{"id":"resp_1","object":"response","status":"completed","error":null,"output":` + f.message(calls...) + `}`
			}
		case "anthropic":
			f.response = f.message
		case "gemini":
			f.response = func(calls ...call) string {
				return `{"candidates":[{"content":` + f.message(calls...) + `,"finishReason":"STOP"}],"modelVersion":"gemini"}`
			}
		}
	}
}

func TestCallsAreRead(t *testing.T) {
	two := []call{
		{id: "call_1", name: "read_file", args: `{"path":"/etc/hosts"}`},
		{id: "call_2", name: "search", args: `{"q":"go","limit":3}`},
	}
	want := []toolreg.ToolCall{
		{ID: "call_1", Name: "read_file", Arguments: `{"path":"/etc/hosts"}`},
		{ID: "call_2", Name: "search", Arguments: `{"q":"go","limit":3}`},
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			a := wire.New(nil)
			for form, raw := range map[string]string{"response": f.response(two...), "message": f.message(two...)} {
				got, err := f.parse(a, []byte(raw))
				require.NoError(t, err, form)
				assert.Equal(t, want, got, form)
			}

			got, err := f.parse(a, []byte(f.response()))
			require.NoError(t, err)
			assert.Empty(t, got, "a response without calls yields none")

			big := `{"id":12345678901234567890,"x":1.000000000000000000001,"s":"\u00e9"}`
			got, err = f.parse(a, []byte(f.response(call{id: "c", name: "t", args: big})))
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, big, got[0].Arguments, "numbers and escapes reach the registry exactly as sent")

			got, err = f.parse(a, []byte(f.response(call{id: "c", name: "t"})))
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Contains(t, []string{"", "{}"}, got[0].Arguments, "no arguments mean an empty object")
		})
	}
}

func TestCallsRefuseHostileResponses(t *testing.T) {
	deep := strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100)
	tests := []struct {
		name   string
		limits wire.Limits
		raw    func(f format) string
		want   error
		index  int // of the offending call, -1 for the whole response
	}{
		{name: "malformed JSON", raw: func(f format) string { r := f.response(call{"a", "t", `{}`}); return r[:len(r)-3] }, want: wire.ErrMalformed, index: -1},
		{name: "null", raw: func(format) string { return `null` }, want: wire.ErrMalformed, index: -1},
		{name: "a number", raw: func(format) string { return `42` }, want: wire.ErrMalformed, index: -1},
		{name: "empty input", raw: func(format) string { return `` }, want: wire.ErrMalformed, index: -1},
		{name: "a field of the wrong type", raw: func(f format) string { return f.wrongType }, want: wire.ErrMalformed, index: -1},
		{name: "an object of another kind", raw: func(format) string { return `{"object":"list","data":[]}` }, want: wire.ErrMalformed, index: -1},
		{name: "the provider's error object", raw: func(f format) string { return f.errorBody }, want: wire.ErrProviderError, index: -1},
		{
			name: "invalid UTF-8",
			raw: func(f format) string {
				return strings.Replace(f.response(call{"a", "tMARK", `{}`}), "MARK", "\xff\xfe", 1)
			},
			want: wire.ErrInvalidUTF8, index: -1,
		},
		{
			name: "a response over the size bound", limits: wire.Limits{ResponseBytes: 64},
			raw:  func(f format) string { return f.response(call{"a", "t", `{"x":"` + strings.Repeat("y", 100) + `"}`}) },
			want: wire.ErrTooLarge, index: -1,
		},
		{
			name: "arguments over their bound", limits: wire.Limits{ArgumentBytes: 32},
			raw: func(f format) string {
				return f.response(call{"a", "t", `{}`}, call{"b", "t", `{"x":"` + strings.Repeat("y", 100) + `"}`})
			},
			want: wire.ErrTooLarge, index: 1,
		},
		{
			name: "arguments nested too deeply",
			raw:  func(f format) string { return f.response(call{"a", "t", `{"x":` + deep + `}`}) },
			want: wire.ErrTooDeep, index: 0,
		},
		{
			name: "too many calls", limits: wire.Limits{Calls: 2},
			raw:  func(f format) string { return f.response(call{"a", "t", ``}, call{"b", "t", ``}, call{"c", "t", ``}) },
			want: wire.ErrTooManyCalls, index: -1,
		},
		{
			name: "an id over its bound", limits: wire.Limits{IDBytes: 8},
			raw:  func(f format) string { return f.response(call{strings.Repeat("i", 9), "t", ``}) },
			want: wire.ErrTooLarge, index: 0,
		},
		{
			name: "duplicate ids",
			raw:  func(f format) string { return f.response(call{"same", "a", ``}, call{"same", "b", ``}) },
			want: wire.ErrDuplicateID, index: 1,
		},
	}
	for _, f := range formats {
		for _, tt := range tests {
			t.Run(f.name+"/"+tt.name, func(t *testing.T) {
				calls, err := f.parse(wire.New(nil, wire.WithLimits(tt.limits)), []byte(tt.raw(f)))
				require.Error(t, err)
				assert.Nil(t, calls)
				assert.ErrorIs(t, err, tt.want)
				var pe *wire.ParseError
				require.True(t, errors.As(err, &pe))
				assert.Equal(t, f.name, pe.Format)
				assert.Equal(t, tt.index, pe.Index)
				assert.True(t, strings.HasPrefix(err.Error(), "wire: "+f.name+": "), err.Error())
			})
		}
	}
}

func TestCallsWithoutID(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			raw := []byte(f.response(call{"", "first", `{}`}, call{"", "second", `{"a":1}`}))
			calls, err := f.parse(wire.New(nil), raw)
			if !f.makesIDs {
				assert.ErrorIs(t, err, wire.ErrMissingID)
				var pe *wire.ParseError
				require.True(t, errors.As(err, &pe))
				assert.Equal(t, 0, pe.Index)
				return
			}
			require.NoError(t, err)
			require.Len(t, calls, 2)
			assert.NotEqual(t, calls[0].ID, calls[1].ID)
			for _, c := range calls {
				assert.True(t, strings.HasPrefix(c.ID, wire.GeminiGeneratedIDPrefix), c.ID)
			}
			again, err := f.parse(wire.New(nil), raw)
			require.NoError(t, err)
			assert.Equal(t, calls, again, "the same response yields the same ids")

			other, err := f.parse(wire.New(nil), []byte(f.response(call{"", "first", `{"b":2}`})))
			require.NoError(t, err)
			assert.NotEqual(t, calls[0].ID, other[0].ID, "another response yields other ids")
		})
	}
}

func TestChatCallsAcceptVariants(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []toolreg.ToolCall
	}{
		{
			name: "arguments sent as an object",
			raw:  `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":{"a":1}}}]}`,
			want: []toolreg.ToolCall{{ID: "c1", Name: "t", Arguments: `{"a":1}`}},
		},
		{
			name: "malformed arguments are passed on for the registry to refuse",
			raw:  `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":"{\"a\":"}}]}`,
			want: []toolreg.ToolCall{{ID: "c1", Name: "t", Arguments: `{"a":`}},
		},
		{
			name: "a custom tool call keeps its free-form input",
			raw:  `{"role":"assistant","tool_calls":[{"id":"c1","type":"custom","custom":{"name":"grammar","input":"SELECT 1"}}]}`,
			want: []toolreg.ToolCall{{ID: "c1", Name: "grammar", Arguments: `SELECT 1`}},
		},
		{
			name: "no choices",
			raw:  `{"id":"x","choices":[]}`,
		},
		{
			name: "a message without tool calls",
			raw:  `{"role":"assistant","content":"hi"}`,
		},
		{
			name: "a null tool_calls",
			raw:  `{"role":"assistant","content":"hi","tool_calls":null}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wire.New(nil).ChatCalls([]byte(tt.raw))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCallsSkipUnknownParts(t *testing.T) {
	tests := []struct {
		name  string
		parse func(*wire.Adapter, []byte) ([]toolreg.ToolCall, error)
		raw   string
	}{
		{"anthropic", (*wire.Adapter).AnthropicCalls, `[{"type":"server_tool_use","id":"srv","name":"tool_search_tool_bm25","input":{"query":"x"}},{"type":"tool_search_tool_result","tool_use_id":"srv","content":{}},{"type":"hologram","payload":[1,2]},{"type":"tool_use","id":"c","name":"t","input":{}}]`},
		{"openai-responses", (*wire.Adapter).ResponsesCalls, `[{"type":"tool_search_call","id":"ts","arguments":{}},{"type":"web_search_call","id":"ws"},{"type":"message","content":[]},{"type":"function_call","call_id":"c","name":"t","arguments":"{}"}]`},
		{"gemini", (*wire.Adapter).GeminiCalls, `[{"thought":true,"text":"hm"},{"executableCode":{"code":"1"}},{"functionCall":{"id":"c","name":"t","args":{}}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.parse(wire.New(nil), []byte(tt.raw))
			require.NoError(t, err)
			assert.Equal(t, []toolreg.ToolCall{{ID: "c", Name: "t", Arguments: "{}"}}, got)
		})
	}
}

func TestGeminiCallsAcceptVariants(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []toolreg.ToolCall
	}{
		{name: "a blocked prompt has no candidates", raw: `{"promptFeedback":{"blockReason":"SAFETY"}}`},
		{name: "a candidate without content", raw: `{"candidates":[{"finishReason":"SAFETY"}]}`},
		{name: "no candidates", raw: `{"candidates":[]}`},
		{
			name: "only the first candidate is read",
			raw:  `{"candidates":[{"content":{"parts":[{"functionCall":{"id":"a","name":"t","args":{"n":1}}}]}},{"content":{"parts":[{"functionCall":{"id":"b","name":"u"}}]}}]}`,
			want: []toolreg.ToolCall{{ID: "a", Name: "t", Arguments: `{"n":1}`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wire.New(nil).GeminiCalls([]byte(tt.raw))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
