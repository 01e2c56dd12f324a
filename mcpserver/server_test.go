package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/mcpserver"
)

// offered returns the definitions an MCP client should see under a: those
// of reg.Definitions(a), less restricted tools unless they are served.
func offered(reg *toolreg.Registry, a toolreg.Access, restricted bool) []toolreg.Definition {
	var out []toolreg.Definition
	for _, d := range reg.Definitions(a) {
		info, _ := reg.Lookup(d.Function.Name)
		if restricted || info.Visibility != toolreg.VisibilityRestricted {
			out = append(out, d)
		}
	}
	return out
}

// requireListing checks that tools is exactly defs, in order, with full
// schemas and descriptions.
func requireListing(t *testing.T, defs []toolreg.Definition, tools []*mcp.Tool) {
	t.Helper()
	names := func() (want, got []string) {
		for _, d := range defs {
			want = append(want, d.Function.Name)
		}
		for _, tl := range tools {
			got = append(got, tl.Name)
		}
		return
	}
	want, got := names()
	require.Equal(t, want, got)
	for i, d := range defs {
		wantSchema, err := json.Marshal(d.Function.Parameters)
		require.NoError(t, err)
		gotSchema, err := json.Marshal(tools[i].InputSchema)
		require.NoError(t, err)
		assert.JSONEq(t, string(wantSchema), string(gotSchema), "schema of %s", d.Function.Name)
		assert.Equal(t, d.Function.Description, tools[i].Description)
	}
}

func TestListEqualsTheAccess(t *testing.T) {
	cases := []struct {
		name       string
		access     toolreg.Access
		restricted bool
	}{
		{"the zero Access lists ungrouped tools, restricted ones hidden", toolreg.Access{}, false},
		{"an enabled group adds its tools", toolreg.Access{Groups: []string{"web"}}, false},
		{"WithRestricted serves restricted tools too", toolreg.Access{Groups: []string{toolreg.AllGroups}}, true},
		{"a layer hides what it refuses", toolreg.Access{
			Groups: []string{"web"},
			Layers: []toolreg.Layer{toolreg.DenyList("plan", []string{"boom", "web_search"})},
		}, false},
		{"an empty allow list hides everything", toolreg.Access{
			Layers: []toolreg.Layer{toolreg.AllowList("agent", []string{})},
		}, true},
	}
	for _, tr := range transports {
		for _, tc := range cases {
			t.Run(tr.name+"/"+tc.name, func(t *testing.T) {
				reg := fixture(t)
				opts := []mcpserver.Option{mcpserver.WithAccess(tc.access)}
				if tc.restricted {
					opts = append(opts, mcpserver.WithRestricted())
				}
				c := tr.connect(t, newServer(t, reg, opts...), "")
				requireListing(t, offered(reg, tc.access, tc.restricted), c.list(t))
			})
		}
	}
}

// callErr calls name and returns the JSON-RPC error it failed with.
func callErr(t *testing.T, c *client, name string, args any) *jsonrpc.Error {
	t.Helper()
	_, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.Error(t, err)
	var we *jsonrpc.Error
	require.True(t, errors.As(err, &we), "want a JSON-RPC error, got %v", err)
	return we
}

func TestCall(t *testing.T) {
	cases := []struct {
		name      string
		tool      string
		args      any
		want      string // exact text, or the code for failures
		wantError bool
	}{
		{"a good call answers the handler's text", "add", map[string]any{"a": 2, "b": 3}, "5", false},
		{"missing arguments are invalid_arguments, with isError", "add", map[string]any{"a": 2}, toolreg.CodeInvalidArguments, true},
		{"unknown arguments are invalid_arguments", "add", map[string]any{"a": 2, "b": 3, "c": 4}, toolreg.CodeInvalidArguments, true},
		{"a handler error is tool_error", "fail", map[string]any{"s": "x"}, toolreg.CodeToolError, true},
		{"a panic is contained", "boom", map[string]any{"s": "x"}, toolreg.CodePanic, true},
		{"absent arguments are {}", "whoami", nil, "", false},
	}
	for _, tr := range transports {
		for _, tc := range cases {
			t.Run(tr.name+"/"+tc.name, func(t *testing.T) {
				c := tr.connect(t, newServer(t, fixture(t)), "")
				res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
				require.NoError(t, err)
				require.Len(t, res.Content, 1)
				text := res.Content[0].(*mcp.TextContent).Text
				assert.Equal(t, tc.wantError, res.IsError)
				if tc.wantError {
					var f struct{ Error, Code string }
					require.NoError(t, json.Unmarshal([]byte(text), &f), text)
					assert.Equal(t, tc.want, f.Code)
					assert.NotEmpty(t, f.Error)
				} else if tc.want != "" {
					assert.Equal(t, tc.want, text)
				}
			})
		}
	}
}

func TestAToolNotOfferedIsAnsweredAsAnUnknownName(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			reg := fixture(t)
			c := tr.connect(t, newServer(t, reg, mcpserver.WithAccess(toolreg.Access{
				Layers: []toolreg.Layer{toolreg.DenyList("plan", []string{"fail"})},
			})), "")
			unknown := callErr(t, c, "no_such_tool", map[string]any{"s": "x"})
			assert.Equal(t, int64(jsonrpc.CodeInvalidParams), unknown.Code)
			for _, name := range []string{
				"web_search", // group not enabled
				"secret",     // restricted
				"planned",    // reserved
				"fail",       // refused by a layer
			} {
				got := callErr(t, c, name, map[string]any{"s": "x"})
				assert.Equal(t, unknown.Code, got.Code, name)
				assert.Equal(t, strings.Replace(unknown.Message, "no_such_tool", name, 1), got.Message, name)
			}
		})
	}
}

func TestARevealingLayerExplainsItsRefusal(t *testing.T) {
	reveal := toolreg.LayerFunc("plan", func(ti toolreg.ToolInfo) toolreg.Verdict {
		if ti.Name == "add" {
			return toolreg.Verdict{Reason: "not in your plan", Reveal: true}
		}
		return toolreg.Verdict{Allowed: true}
	})
	c := connectInMemory(t, newServer(t, fixture(t), mcpserver.WithAccess(toolreg.Access{Layers: []toolreg.Layer{reveal}})), "")
	res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "not in your plan")
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, toolreg.CodeNotAvailable)
}

func TestTheCallContextComesFromTheSession(t *testing.T) {
	whoami := func(t *testing.T, c *client) []string {
		t.Helper()
		res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami"})
		require.NoError(t, err)
		require.False(t, res.IsError)
		return strings.Split(res.Content[0].(*mcp.TextContent).Text, "|")
	}
	t.Run("sessions without a transport id get one of their own, stable per session", func(t *testing.T) {
		srv := newServer(t, fixture(t), mcpserver.WithPermissionsFor(func(context.Context, mcpserver.Session) []string {
			return []string{"files:read"}
		}))
		a, b := connectInMemory(t, srv, ""), connectInMemory(t, srv, "")
		a1, a2, b1 := whoami(t, a), whoami(t, a), whoami(t, b)
		assert.Equal(t, []string{a1[0], "", mcpserver.Platform, "[files:read]"}, a1)
		assert.True(t, strings.HasPrefix(a1[0], "mcp-"), a1[0])
		assert.Equal(t, a1[0], a2[0])
		assert.NotEqual(t, a1[0], b1[0])
	})
	t.Run("streamable HTTP gives the Mcp-Session-Id and the bearer token's user", func(t *testing.T) {
		c := connectHTTP(t, newServer(t, fixture(t)), "token-alice")
		got := whoami(t, c)
		assert.Equal(t, c.ID(), got[0])
		assert.Equal(t, []string{"alice", mcpserver.Platform}, got[1:3])
	})
}

func TestAccessForGivesEachUserTheirOwnTools(t *testing.T) {
	reg := fixture(t)
	srv := newServer(t, reg, mcpserver.WithAccessFor(func(_ context.Context, s mcpserver.Session) toolreg.Access {
		if s.UserID == "alice" {
			return toolreg.Access{Groups: []string{"web"}}
		}
		return toolreg.Access{}
	}))
	alice, bob := connectHTTP(t, srv, "token-alice"), connectHTTP(t, srv, "token-bob")
	requireListing(t, offered(reg, toolreg.Access{Groups: []string{"web"}}, false), alice.list(t))
	requireListing(t, offered(reg, toolreg.Access{}, false), bob.list(t))

	res, err := alice.CallTool(t.Context(), &mcp.CallToolParams{Name: "web_search", Arguments: map[string]any{"s": "go"}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), callErr(t, bob, "web_search", map[string]any{"s": "go"}).Code)
}

func TestAPanickingAccessForRefusesEverything(t *testing.T) {
	srv := newServer(t, fixture(t), mcpserver.WithAccessFor(func(context.Context, mcpserver.Session) toolreg.Access {
		panic("bug")
	}))
	c := connectInMemory(t, srv, "")
	assert.Empty(t, c.list(t))
	callErr(t, c, "add", map[string]any{"a": 1, "b": 2})
}

func TestListChanged(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			reg := fixture(t)
			c := tr.connect(t, newServer(t, reg), "")
			c.list(t)

			undo, err := reg.Register(tool("late", "here"), "test")
			require.NoError(t, err)
			c.waitChanged(t)
			requireListing(t, offered(reg, toolreg.Access{}, false), c.list(t))
			res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: "late", Arguments: map[string]any{"s": "x"}})
			require.NoError(t, err)
			assert.Equal(t, "here", res.Content[0].(*mcp.TextContent).Text)

			c.drain()
			undo()
			c.waitChanged(t)
			requireListing(t, offered(reg, toolreg.Access{}, false), c.list(t))
			callErr(t, c, "late", map[string]any{"s": "x"})

			c.drain()
			changed := tool("add", "replaced")
			changed.Definition.Function.Description = "A new description."
			_, err = reg.Register(changed, "test")
			require.NoError(t, err)
			c.waitChanged(t)
			requireListing(t, offered(reg, toolreg.Access{}, false), c.list(t))
		})
	}
}

func TestABurstOfChangesIsOneUpdate(t *testing.T) {
	reg := fixture(t)
	srv, err := mcpserver.New(reg, mcpserver.WithNotifyDelay(time.Second))
	require.NoError(t, err)
	defer srv.Close()
	c := connectInMemory(t, srv, "")
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			_, err := reg.Register(tool(fmt.Sprintf("burst_%03d", i), "ok"), "burst")
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	require.Less(t, time.Since(start), time.Second, "the burst must fit in one delay for this test to mean anything")
	c.waitChanged(t)
	// One update follows the burst. The SDK gathers the tools it is given
	// within 10ms into one notification; on a loaded machine adding 100
	// tools can take longer, so a few notifications may come, all at once.
	time.Sleep(500 * time.Millisecond)
	assert.Less(t, len(c.changed), 10, "notifications after the first")
	requireListing(t, offered(reg, toolreg.Access{}, false), c.list(t))
}

func TestRefreshNotifiesEvenWithoutAChange(t *testing.T) {
	var mu sync.Mutex
	groups := []string{}
	srv := newServer(t, fixture(t), mcpserver.WithAccessFor(func(context.Context, mcpserver.Session) toolreg.Access {
		mu.Lock()
		defer mu.Unlock()
		return toolreg.Access{Groups: groups}
	}))
	c := connectInMemory(t, srv, "")
	assert.NotContains(t, names(c.list(t)), "web_search")
	mu.Lock()
	groups = []string{"web"}
	mu.Unlock()
	srv.Refresh()
	c.waitChanged(t)
	assert.Contains(t, names(c.list(t)), "web_search")
}

func TestAGroupChangeNotifiesSessionsThatMaySeeIt(t *testing.T) {
	reg := fixture(t)
	srv := newServer(t, reg, mcpserver.WithAccess(toolreg.Access{Groups: []string{"web"}}))
	c := connectInMemory(t, srv, "")
	assert.NotContains(t, names(c.list(t)), "moved")
	moved := tool("moved", "ok")
	moved.Groups = []string{"admin"}
	_, err := reg.Register(moved, "test")
	require.NoError(t, err)
	c.waitChanged(t) // the superset changed; this session still does not see it
	assert.NotContains(t, names(c.list(t)), "moved")
	c.drain()
	moved.Groups = []string{"web"} // same definition, new group
	_, err = reg.Register(moved, "test")
	require.NoError(t, err)
	c.waitChanged(t)
	assert.Contains(t, names(c.list(t)), "moved")
}

func names(tools []*mcp.Tool) []string {
	out := make([]string, len(tools))
	for i, tl := range tools {
		out[i] = tl.Name
	}
	return out
}

func TestAToolTheSDKRefusesIsLeftOutAlone(t *testing.T) {
	reg := fixture(t)
	bad := tool("bad_header", "ok")
	bad.Definition.Function.Parameters.Properties["s"] = map[string]any{"type": "object", "x-mcp-header": "X-Thing"}
	_, err := reg.Register(bad, "test")
	require.NoError(t, err)
	c := connectInMemory(t, newServer(t, reg), "")
	got := names(c.list(t))
	assert.NotContains(t, got, "bad_header")
	assert.Contains(t, got, "add")
	callErr(t, c, "bad_header", map[string]any{"s": map[string]any{}})
}

func TestHostileCalls(t *testing.T) {
	c := connectInMemory(t, newServer(t, fixture(t)), "")
	for _, name := range []string{strings.Repeat("n", 1<<20), "bad\xff\xfename", "", "add\x00"} {
		we := callErr(t, c, name, map[string]any{"a": 1, "b": 2})
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), we.Code)
	}
	// Arguments nested past the registry's bound reach it and are refused.
	// (Far deeper JSON, thousands of levels, makes the SDK end the session
	// before any tool is asked: only the offending client's.)
	deep := json.RawMessage(`{"a":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `,"b":1}`)
	res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: "add", Arguments: deep})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, toolreg.CodeInvalidArguments)
	res, err = c.CallTool(t.Context(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	require.NoError(t, err, "the session survives")
	assert.Equal(t, "3", res.Content[0].(*mcp.TextContent).Text)
}

func TestArgumentsThatAreNotAnObject(t *testing.T) {
	c := connectInMemory(t, newServer(t, fixture(t)), "")
	for _, args := range []any{json.RawMessage(`null`), json.RawMessage(`[1,2]`), json.RawMessage(`"x"`)} {
		res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami", Arguments: args})
		if err != nil {
			continue // the SDK may refuse it before the tool: also fine
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if string(args.(json.RawMessage)) == "null" {
			assert.False(t, res.IsError, text)
		} else {
			assert.True(t, res.IsError, text)
			assert.Contains(t, text, toolreg.CodeInvalidArguments)
		}
	}
}

func TestCloseEndsSessions(t *testing.T) {
	reg := fixture(t)
	srv, err := mcpserver.New(reg)
	require.NoError(t, err)
	c := connectInMemory(t, srv, "")
	srv.Close()
	srv.Close()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the client session did not end")
	}
	_, err = reg.Register(tool("after_close", "ok"), "test") // no follower left to notify
	require.NoError(t, err)
}

func TestNewRefusesBadInput(t *testing.T) {
	_, err := mcpserver.New(nil)
	require.Error(t, err)
	_, err = mcpserver.New(toolreg.New(), mcpserver.WithServerOptions(&mcp.ServerOptions{
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error { return nil },
	}))
	require.Error(t, err)
	srv, err := mcpserver.New(toolreg.New(), nil)
	require.NoError(t, err)
	srv.Close()
}

func TestCallsAreCanceledWithTheirRequest(t *testing.T) {
	reg := fixture(t)
	started := make(chan struct{})
	ended := make(chan error, 1)
	_, err := reg.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "slow", Description: "Waits."}},
		Handler: func(ctx context.Context, _ map[string]any, _ toolreg.CallContext) (string, error) {
			close(started)
			<-ctx.Done()
			ended <- ctx.Err()
			return "", ctx.Err()
		},
	}, "test")
	require.NoError(t, err)
	c := connectInMemory(t, newServer(t, reg), "")
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	_, err = c.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
	require.Error(t, err)
	select {
	case err := <-ended:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context was not canceled")
	}
}
