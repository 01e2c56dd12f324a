package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/mcpserver"
)

// TestMain fails the package if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// tool returns a tool named name with one required string argument "s",
// whose handler answers result.
func tool(name, result string) toolreg.RegisteredTool {
	return toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        name,
			Description: "test tool " + name,
			Parameters: toolreg.Parameters{
				Properties:           map[string]any{"s": map[string]any{"type": "string", "description": "any text"}},
				Required:             []string{"s"},
				AdditionalProperties: toolreg.Bool(false),
			},
		}},
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return result, nil },
	}
}

// fixture registers the tools most tests use:
//
//	add         ungrouped, safe: a+b
//	fail        ungrouped: returns an error
//	boom        ungrouped: panics
//	whoami      ungrouped: answers its CallContext as JSON
//	secret      ungrouped, sensitive (restricted)
//	web_search  group "web"
//	planned     reserved
func fixture(t *testing.T, opts ...toolreg.Option) *toolreg.Registry {
	t.Helper()
	reg := toolreg.New(opts...)
	add := toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "add",
			Description: "Add two numbers.",
			Parameters: toolreg.Parameters{
				Properties: map[string]any{
					"a": map[string]any{"type": "number"},
					"b": map[string]any{"type": "number"},
				},
				Required:             []string{"a", "b"},
				AdditionalProperties: toolreg.Bool(false),
			},
		}},
		Risk: toolreg.RiskSafe,
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			a, _ := args["a"].(float64)
			b, _ := args["b"].(float64)
			return fmt.Sprint(a + b), nil
		},
	}
	fail := tool("fail", "")
	fail.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		return "", errors.New("the disk is full")
	}
	boom := tool("boom", "")
	boom.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) { panic("bug") }
	whoami := toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "whoami", Description: "Who is calling."}},
		Handler: func(_ context.Context, _ map[string]any, call toolreg.CallContext) (string, error) {
			return fmt.Sprintf("%s|%s|%s|%v", call.SessionID, call.UserID, call.Platform, call.Permissions), nil
		},
	}
	secret := tool("secret", "the secret")
	secret.Risk = toolreg.RiskSensitive
	web := tool("web_search", "results")
	web.Groups = []string{"web"}
	for _, rt := range []toolreg.RegisteredTool{add, fail, boom, whoami, secret, web} {
		_, err := reg.Register(rt, "test")
		require.NoError(t, err)
	}
	_, err := reg.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "planned", Description: "Not yet."}}, "test")
	require.NoError(t, err)
	return reg
}

// newServer builds a server for reg and closes it when the test ends.
func newServer(t *testing.T, reg *toolreg.Registry, opts ...mcpserver.Option) *mcpserver.Server {
	t.Helper()
	srv, err := mcpserver.New(reg, append([]mcpserver.Option{mcpserver.WithNotifyDelay(5 * time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv
}

// client is a go-sdk client session plus the list_changed notifications it
// received.
type client struct {
	*mcp.ClientSession
	changed chan struct{}
}

// transport connects a go-sdk client to srv. token, when set, is sent as a
// bearer token (HTTP only).
type transport struct {
	name    string
	connect func(t *testing.T, srv *mcpserver.Server, token string) *client
}

var transports = []transport{
	{"in-memory", connectInMemory},
	{"streamable HTTP", connectHTTP},
}

func newClient() (*mcp.Client, chan struct{}) {
	changed := make(chan struct{}, 100)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	return c, changed
}

func connectInMemory(t *testing.T, srv *mcpserver.Server, _ string) *client {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	require.NoError(t, err)
	c, changed := newClient()
	cs, err := c.Connect(t.Context(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return &client{cs, changed}
}

// users maps the bearer tokens of the HTTP tests to user ids.
var users = map[string]string{"token-alice": "alice", "token-bob": "bob"}

func verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	if u, ok := users[token]; ok {
		return &auth.TokenInfo{UserID: u, Expiration: time.Now().Add(time.Hour)}, nil
	}
	return nil, auth.ErrInvalidToken
}

func connectHTTP(t *testing.T, srv *mcpserver.Server, token string) *client {
	t.Helper()
	h := srv.HTTPHandler(nil)
	if token != "" {
		h = auth.RequireBearerToken(verify, nil)(h)
	}
	ts := httptest.NewServer(h)
	hc := ts.Client()
	if token != "" {
		hc.Transport = bearer{token: token, base: hc.Transport}
	}
	c, changed := newClient()
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		cs.Close()
		ts.Close()
	})
	return &client{cs, changed}
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(req)
}

// waitChanged waits for a notifications/tools/list_changed.
func (c *client) waitChanged(t *testing.T) {
	t.Helper()
	select {
	case <-c.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed within 5s")
	}
}

// drain forgets notifications received so far.
func (c *client) drain() {
	for {
		select {
		case <-c.changed:
		default:
			return
		}
	}
}

// list returns every tool the server lists to c, following pages.
func (c *client) list(t *testing.T) []*mcp.Tool {
	t.Helper()
	var out []*mcp.Tool
	for tl, err := range c.Tools(t.Context(), nil) {
		require.NoError(t, err)
		out = append(out, tl)
	}
	return out
}
