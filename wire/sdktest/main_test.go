package sdktest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolreg/toolreg"
)

// TestMain fails the package if any test leaves a goroutine behind. The
// one goroutine ignored is started by the init of go.opencensus.io, which the
// genai SDK imports, before any test runs.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

// person is the $defs entry of create_event.
var person = map[string]any{
	"type":                 "object",
	"properties":           map[string]any{"name": map[string]any{"type": "string"}, "email": map[string]any{"type": []any{"string", "null"}, "format": "email"}},
	"required":             []any{"name", "email"},
	"additionalProperties": false,
}

// fixture is a registry with tools of every shape the formats treat
// differently: plain, strict with $defs and nullable fields, without
// parameters, with 64-bit integers, failing, and one in a group.
func fixture(t testing.TB) *toolreg.Registry {
	t.Helper()
	reg := toolreg.New()
	add := func(tool toolreg.RegisteredTool) {
		t.Helper()
		_, err := reg.Register(tool, "fixture")
		require.NoError(t, err)
	}
	add(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name: "get_weather", Description: "Current weather in a city.",
			Parameters: toolreg.Parameters{
				Properties: map[string]any{
					"city":  map[string]any{"type": "string", "description": "City name"},
					"units": map[string]any{"type": "string", "enum": []any{"celsius", "fahrenheit"}},
				},
				Required: []string{"city"},
			},
		}},
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			return fmt.Sprintf(`{"city":%q,"temp":21}`, args["city"]), nil
		},
	})
	add(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name: "create_event", Description: "Create a calendar event.", Strict: true,
			Parameters: toolreg.Parameters{
				Properties: map[string]any{
					"title":     map[string]any{"type": "string"},
					"start":     map[string]any{"type": "string", "format": "date-time"},
					"attendees": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/Person"}},
				},
				Required:             []string{"title", "start", "attendees"},
				AdditionalProperties: toolreg.Bool(false),
				Defs:                 map[string]any{"Person": person},
			},
		}},
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			return fmt.Sprintf("created %q with %d attendees", args["title"], len(args["attendees"].([]any))), nil
		},
	})
	add(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "ping", Description: "Check the service."}},
		Handler:    func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "pong", nil },
	})
	add(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name: "get_order", Description: "Fetch an order by id.",
			Parameters: toolreg.Parameters{Properties: map[string]any{"id": map[string]any{"type": "integer"}}, Required: []string{"id"}},
		}},
		UseNumber: true,
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			return fmt.Sprintf("order %v", args["id"]), nil
		},
	})
	add(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "flaky", Description: "Always fails."}},
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			return "", fmt.Errorf("upstream timed out")
		},
	})
	add(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "gh_issue_list", Description: "List GitHub issues."}},
		Groups:     []string{"github"},
		Handler:    func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "[]", nil },
	})
	return reg
}

// fullAccess reaches every tool of the fixture.
var fullAccess = toolreg.Access{Groups: []string{toolreg.AllGroups}}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// parametersJSON returns a tool's parameters schema as the registry writes it.
func parametersJSON(t testing.TB, reg *toolreg.Registry, name string) string {
	t.Helper()
	for _, d := range reg.Definitions(fullAccess) {
		if d.Function.Name == name {
			return string(mustJSON(t, d.Function.Parameters))
		}
	}
	t.Fatalf("no tool %q", name)
	return ""
}

// replay is a loopback provider: it records each request body and answers
// with the next canned response.
type replay struct {
	mu        sync.Mutex
	requests  [][]byte
	responses []string
}

func (rp *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rp.mu.Lock()
	n := len(rp.requests)
	rp.requests = append(rp.requests, body)
	rp.mu.Unlock()
	if n >= len(rp.responses) {
		http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, rp.responses[n])
}

// serve starts rp on loopback; the server is closed when the test ends.
func serve(t *testing.T, rp *replay) *httptest.Server {
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv
}

// request decodes the i-th request body the replay received.
func (rp *replay) request(t *testing.T, i int) map[string]any {
	t.Helper()
	rp.mu.Lock()
	defer rp.mu.Unlock()
	require.Greater(t, len(rp.requests), i)
	var m map[string]any
	require.NoError(t, json.Unmarshal(rp.requests[i], &m))
	return m
}

// sameElements checks that two JSON arrays hold equal JSON values: what we
// produced and what an SDK wrote back after reading it.
func sameElements(t *testing.T, ours, sdk []byte) {
	t.Helper()
	var a, b []json.RawMessage
	require.NoError(t, json.Unmarshal(ours, &a))
	require.NoError(t, json.Unmarshal(sdk, &b))
	require.Len(t, b, len(a))
	for i := range a {
		assert.JSONEq(t, string(a[i]), string(b[i]), "the SDK writes back exactly what we produced")
	}
}
