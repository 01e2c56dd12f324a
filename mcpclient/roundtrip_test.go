package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/mcpclient"
	"github.com/toolreg/toolreg/mcpserver"
)

// TestRoundTrip serves registry A over streamable HTTP, imports it into
// registry B, serves B in memory and uses B with the SDK's client: the
// listing, the schemas, the results, the error flag and list_changed all
// survive both hops.
func TestRoundTrip(t *testing.T) {
	a := toolreg.New()
	add := toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "add",
			Description: "Add two numbers.",
			Parameters: toolreg.Parameters{
				Properties: map[string]any{
					"a": map[string]any{"type": "number", "description": "first"},
					"b": map[string]any{"type": "number", "description": "second"},
				},
				Required:             []string{"a", "b"},
				AdditionalProperties: toolreg.Bool(false),
			},
		}},
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			x, _ := args["a"].(float64)
			y, _ := args["b"].(float64)
			return fmt.Sprint(x + y), nil
		},
	}
	fail := toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "fail", Description: "Fails."}},
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			return "", errors.New("the disk is full")
		},
	}
	for _, rt := range []toolreg.RegisteredTool{add, fail} {
		_, err := a.Register(rt, "a")
		require.NoError(t, err)
	}
	srvA, err := mcpserver.New(a, mcpserver.WithNotifyDelay(5*time.Millisecond))
	require.NoError(t, err)
	defer srvA.Close()
	ts := httptest.NewServer(srvA.HTTPHandler(nil))
	defer ts.Close()

	b := toolreg.New()
	imp, err := mcpclient.New(t.Context(), b.Scope("from-a"), &mcpclient.HTTPTransport{URL: ts.URL, Client: ts.Client()},
		mcpclient.WithPrefix("a_"), mcpclient.WithRefreshDelay(5*time.Millisecond))
	require.NoError(t, err)
	defer imp.Close()
	srvB, err := mcpserver.New(b, mcpserver.WithNotifyDelay(5*time.Millisecond))
	require.NoError(t, err)
	defer srvB.Close()

	changed := make(chan struct{}, 10)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srvB.MCP().Connect(t.Context(), st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "user", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(t.Context(), ct, nil)
	require.NoError(t, err)
	defer func() {
		cs.Close()
		ss.Wait()
	}()

	listed, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, listed.Tools, 2)
	assert.Equal(t, "a_add", listed.Tools[0].Name)
	assert.Equal(t, "Add two numbers.", listed.Tools[0].Description)
	want, _ := json.Marshal(add.Definition.Function.Parameters)
	got, _ := json.Marshal(listed.Tools[0].InputSchema)
	assert.JSONEq(t, string(want), string(got))

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_add", Arguments: map[string]any{"a": 2, "b": 3}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, "5", res.Content[0].(*mcp.TextContent).Text)

	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_fail"})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	var outer struct{ Error, Code string }
	require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &outer))
	assert.Equal(t, toolreg.CodeToolError, outer.Code)
	assert.JSONEq(t, `{"error":"the disk is full","code":"tool_error"}`, outer.Error, "A's answer, carried as B's message")

	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_add", Arguments: map[string]any{"a": 2}})
	require.NoError(t, err)
	assert.True(t, res.IsError, "B validates before forwarding")

	// A registration in A reaches B's client as list_changed.
	_, err = a.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "late", Description: "Late."}},
		Handler:    func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "late", nil },
	}, "a")
	require.NoError(t, err)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("list_changed did not cross both hops")
		}
		listed, err = cs.ListTools(t.Context(), nil)
		require.NoError(t, err)
		if len(listed.Tools) == 3 {
			break
		}
	}
	assert.Equal(t, "a_late", listed.Tools[2].Name)
}
