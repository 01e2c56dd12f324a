package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// replay is an OpenAI-compatible endpoint on loopback: it answers each chat
// completion request with the next recorded response and keeps the requests.
type replay struct {
	t         *testing.T
	responses []json.RawMessage
	repeat    bool // answer every request with the first response

	mu       sync.Mutex
	requests []map[string]any
}

func newReplay(t *testing.T, path string) *replay {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rec struct {
		Responses []json.RawMessage `json:"responses"`
	}
	require.NoError(t, json.Unmarshal(b, &rec))
	require.NotEmpty(t, rec.Responses)
	return &replay{t: t, responses: rec.Responses}
}

func (rp *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/chat/completions" {
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rp.mu.Lock()
	rp.requests = append(rp.requests, body)
	n := len(rp.requests)
	rp.mu.Unlock()
	i := n - 1
	if rp.repeat {
		i = 0
	}
	if i >= len(rp.responses) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"the recording has no more responses","type":"invalid_request_error"}}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(rp.responses[i])
}

func (rp *replay) sent() []map[string]any {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.requests
}

// runAgainst runs the program against h with the given key and arguments and
// returns its exit status, stdout and stderr.
func runAgainst(t *testing.T, h http.Handler, key string, args ...string) (int, string, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	env := map[string]string{"OPENAI_API_KEY": key, "OPENAI_BASE_URL": srv.URL}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, func(k string) string { return env[k] }, &http.Client{Transport: transport}, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// toJSON renders a decoded request value for comparison.
func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

const wantTools = `[
	{"type":"function","function":{"name":"get_weather","description":"Current weather in a city.","strict":true,"parameters":{
		"type":"object",
		"properties":{
			"city":{"type":"string","description":"the city, for example Oslo"},
			"unit":{"type":["null","string"],"enum":["celsius","fahrenheit",null],"description":"the temperature unit; celsius when absent"}},
		"required":["city","unit"],"additionalProperties":false}}},
	{"type":"function","function":{"name":"lookup_order","description":"Status and items of an order.","parameters":{
		"type":"object",
		"properties":{"order_id":{"type":"integer","description":"the order number"}},
		"required":["order_id"],"additionalProperties":false}}}
]`

func TestLoopReplaysARecordedConversation(t *testing.T) {
	rp := newReplay(t, "testdata/conversation.json")
	code, stdout, stderr := runAgainst(t, rp, "test-key", "-model", "replay-model")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	assert.Equal(t, "Oslo: 26.6 °F with light snow. Order 9007199254740993 has shipped (wool socks, thermos). I have no weather data for Atlantis.\n", stdout)

	reqs := rp.sent()
	require.Len(t, reqs, 3, "one request per model turn")
	for i, req := range reqs {
		assert.Equal(t, "replay-model", req["model"], "request %d", i)
		assert.Equal(t, true, req["parallel_tool_calls"], "request %d", i)
		assert.JSONEq(t, wantTools, toJSON(t, req["tools"]), "request %d offers the registry's tools", i)
	}

	// Turn 1: the prompt.
	assert.JSONEq(t, toJSON(t, []map[string]any{
		{"role": "system", "content": systemPrompt},
		{"role": "user", "content": defaultPrompt},
	}), toJSON(t, reqs[0]["messages"]))

	// Turn 2: the model's two parallel calls, then their results in the same
	// order, each under its tool_call_id. The order id is exact: a float64
	// would have found order ...992, the umbrella.
	msgs := messages(t, reqs[1], 5)
	assert.Equal(t, "assistant", msgs[2]["role"])
	assert.JSONEq(t, `[
		{"id":"call_weather_oslo","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\",\"unit\":\"fahrenheit\"}"}},
		{"id":"call_order","type":"function","function":{"name":"lookup_order","arguments":"{\"order_id\":9007199254740993}"}}
	]`, toJSON(t, msgs[2]["tool_calls"]))
	assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_weather_oslo",
		"content": `{"city":"Oslo","temperature":26.6,"unit":"fahrenheit","conditions":"light snow"}`}, msgs[3])
	assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_order",
		"content": `{"order_id":9007199254740993,"status":"shipped","items":["wool socks","thermos"]}`}, msgs[4])

	// Turn 3: everything so far, the failing call and its error result.
	msgs = messages(t, reqs[2], 7)
	assert.Equal(t, toJSON(t, reqs[1]["messages"]), toJSON(t, msgs[:5]), "the history is sent again unchanged")
	assert.JSONEq(t, `[{"id":"call_weather_atlantis","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Atlantis\",\"unit\":null}"}}]`,
		toJSON(t, msgs[5]["tool_calls"]))
	assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_weather_atlantis",
		"content": `{"error":"no weather data for \"Atlantis\"; known cities: Lima, Oslo, Tokyo","code":"tool_error"}`}, msgs[6])

	// The tool calls are logged with their ids and outcomes.
	for _, line := range []string{
		`tool get_weather [call_weather_oslo] ok: {"city":"Oslo"`,
		`tool lookup_order [call_order] ok: {"order_id":9007199254740993`,
		`tool get_weather [call_weather_atlantis] tool_error: {"error":"no weather data for \"Atlantis\"`,
	} {
		assert.Contains(t, stderr, line)
	}
}

// messages returns the messages of a request, which must number n.
func messages(t *testing.T, req map[string]any, n int) []map[string]any {
	t.Helper()
	list, ok := req["messages"].([]any)
	require.True(t, ok, "messages is %T", req["messages"])
	require.Len(t, list, n)
	out := make([]map[string]any, n)
	for i, m := range list {
		out[i], ok = m.(map[string]any)
		require.True(t, ok, "message %d is %T", i, m)
	}
	return out
}

func TestLoopStopsAModelThatKeepsCallingTools(t *testing.T) {
	rp := newReplay(t, "testdata/conversation.json")
	rp.repeat = true
	code, stdout, stderr := runAgainst(t, rp, "test-key", "-max-turns", "2")
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "the model kept calling tools 2 times; stopping")
	assert.Len(t, rp.sent(), 2)
}

func TestLoopReportsEndpointErrors(t *testing.T) {
	rp := newReplay(t, "testdata/conversation.json")
	code, stdout, stderr := runAgainst(t, rp, "wrong-key")
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "chat completion:")
	assert.Contains(t, stderr, "401")
	assert.Contains(t, stderr, "Incorrect API key provided.")
}

func TestProgramExplainsWhatIsMissing(t *testing.T) {
	t.Run("without a key it says what to set", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), nil, func(string) string { return "" }, nil, &stdout, &stderr)
		assert.Equal(t, 2, code)
		assert.Empty(t, stdout.String())
		assert.Contains(t, stderr.String(), "OPENAI_API_KEY is not set")
		assert.Contains(t, stderr.String(), "OPENAI_BASE_URL")
	})
	t.Run("a bad flag is a usage error", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"-no-such-flag"}, func(string) string { return "k" }, nil, &stdout, &stderr)
		assert.Equal(t, 2, code)
		assert.True(t, strings.Contains(stderr.String(), "-no-such-flag"), stderr.String())
	})
	t.Run("max-turns below one is a usage error", func(t *testing.T) {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"-max-turns", "0"}, func(string) string { return "k" }, nil, io.Discard, &stderr)
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr.String(), "-max-turns must be at least 1")
	})
}
