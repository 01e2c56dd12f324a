package mcpclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/mcpclient"
)

type greetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// remote returns an SDK server with the tools most tests import:
//
//	greet       typed: "Hello, <name>!"
//	fail        answers isError with a message
//	picture     answers an image and a text block
//	structured  answers structured content only
//	echo        answers its raw arguments
//	slow        waits for its context, and reports it on canceled
//	legacy      a draft-07 schema with "definitions" and "$ref"
func remote(canceled chan<- error) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greet someone."},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})
	object := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(&mcp.Tool{Name: "fail", Description: "Always fails.", InputSchema: object},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the printer is on fire"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "picture", InputSchema: object},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")},
				&mcp.TextContent{Text: "a tiny picture"},
			}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "structured", InputSchema: object},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"n": 1}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: object},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			if canceled != nil {
				canceled <- ctx.Err()
			}
			return nil, ctx.Err()
		})
	srv.AddTool(&mcp.Tool{Name: "legacy", InputSchema: json.RawMessage(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"title": "legacyArguments",
		"type": "object",
		"properties": {"where": {"$ref": "#/definitions/place"}},
		"required": ["where"],
		"additionalProperties": false,
		"definitions": {"place": {"type": "object", "properties": {"city": {"type": "string"}}}}
	}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	return srv
}

// connect imports srv's tools into scope over an in-memory transport and
// closes both ends when the test ends.
func connect(t *testing.T, srv *mcp.Server, scope *toolreg.Scope, opts ...mcpclient.Option) *mcpclient.Client {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	require.NoError(t, err)
	c, err := mcpclient.New(t.Context(), scope, ct, opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		c.Close()
		ss.Wait()
	})
	return c
}

// eventually waits up to 5s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func defNames(defs []toolreg.Definition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Function.Name
	}
	return out
}

func TestImportKeepsNamesDescriptionsAndSchemas(t *testing.T) {
	reg := toolreg.New()
	srv := remote(nil)
	c := connect(t, srv, reg.Scope("remote"))
	assert.Empty(t, c.Skipped())
	defs := reg.Definitions(toolreg.Access{})
	assert.Equal(t, []string{"mcp_echo", "mcp_fail", "mcp_greet", "mcp_legacy", "mcp_picture", "mcp_slow", "mcp_structured"}, defNames(defs))

	// Each schema is the one the server lists, less annotations, with
	// "definitions" renamed to "$defs".
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	require.NoError(t, err)
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	listed, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	byName := map[string]toolreg.Definition{}
	for _, d := range defs {
		byName[d.Function.Name] = d
	}
	for _, rt := range listed.Tools {
		d := byName["mcp_"+rt.Name]
		assert.Equal(t, rt.Description, d.Function.Description, rt.Name)
		want, _ := json.Marshal(rt.InputSchema)
		want = []byte(strings.NewReplacer(`"definitions"`, `"$defs"`, `#/definitions/`, `#/$defs/`).Replace(string(want)))
		var wantMap map[string]any
		require.NoError(t, json.Unmarshal(want, &wantMap))
		delete(wantMap, "$schema")
		delete(wantMap, "title")
		if wantMap["properties"] == nil {
			wantMap["properties"] = map[string]any{} // Parameters writes nil properties as {}
		}
		want, _ = json.Marshal(wantMap)
		got, _ := json.Marshal(d.Function.Parameters)
		assert.JSONEq(t, string(want), string(got), rt.Name)
	}

	tools := c.Tools()
	require.Len(t, tools, 7)
	assert.Equal(t, mcpclient.Tool{Name: "mcp_echo", Remote: "echo"}, tools[0])
	info, ok := reg.Lookup("mcp_greet")
	require.True(t, ok)
	assert.Equal(t, "remote", info.PluginName)
}

func TestCallsAreForwarded(t *testing.T) {
	reg := toolreg.New()
	connect(t, remote(nil), reg.Scope("remote"))
	cases := []struct {
		name, tool, args string
		want, code       string
	}{
		{"a good call answers the remote text", "mcp_greet", `{"name":"Ada"}`, "Hello, Ada!", ""},
		{"remote isError is tool_error with the remote text", "mcp_fail", `{}`, "the printer is on fire", toolreg.CodeToolError},
		{"other content is named, text kept", "mcp_picture", `{}`, "[image: image/png, 8 bytes]\na tiny picture", ""},
		{"structured content alone is its JSON", "mcp_structured", `{}`, `{"n":1}`, ""},
		{"the server's own validation is reported as its tool error", "mcp_greet", `{"name":5}`, "", toolreg.CodeToolError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.CallJSON(t.Context(), tc.tool, tc.args, toolreg.CallContext{})
			assert.Equal(t, tc.code, res.Code, res.Content)
			if tc.code == "" {
				assert.Equal(t, tc.want, res.Content)
			} else if tc.want != "" {
				var f struct{ Error string }
				require.NoError(t, json.Unmarshal([]byte(res.Content), &f))
				assert.Equal(t, tc.want, f.Error)
			}
		})
	}
}

func TestNumbersArriveExactly(t *testing.T) {
	reg := toolreg.New()
	connect(t, remote(nil), reg.Scope("remote"))
	res := reg.Call(t.Context(), "mcp_echo", map[string]any{"id": json.Number("9007199254740993")}, toolreg.CallContext{})
	assert.Equal(t, `{"id":9007199254740993}`, res.Content)
	// Imported tools decode the model's arguments with json.Number.
	res = reg.CallJSON(t.Context(), "mcp_echo", `{"id":9007199254740993}`, toolreg.CallContext{})
	assert.Equal(t, `{"id":9007199254740993}`, res.Content)
}

func TestACallHonorsItsContextAndTimeout(t *testing.T) {
	canceled := make(chan error, 2)
	reg := toolreg.New()
	connect(t, remote(canceled), reg.Scope("remote"), mcpclient.WithTimeout(100*time.Millisecond))

	res := reg.CallJSON(t.Context(), "mcp_slow", `{}`, toolreg.CallContext{})
	assert.Equal(t, toolreg.CodeTimeout, res.Code, res.Content)
	select {
	case err := <-canceled:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the remote handler was not canceled")
	}

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(10*time.Millisecond, cancel)
	res = reg.CallJSON(ctx, "mcp_slow", `{}`, toolreg.CallContext{})
	assert.Equal(t, toolreg.CodeCanceled, res.Code, res.Content)
	<-canceled
}

func TestTheImportFollowsListChanged(t *testing.T) {
	reg := toolreg.New()
	srv := remote(nil)
	connect(t, srv, reg.Scope("remote"), mcpclient.WithRefreshDelay(time.Millisecond))

	srv.AddTool(&mcp.Tool{Name: "late", Description: "v1", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil
		})
	eventually(t, "mcp_late is imported", func() bool { return reg.Has("mcp_late") })
	assert.Equal(t, "late", reg.ExecuteJSON(t.Context(), "mcp_late", `{}`, toolreg.CallContext{}))

	srv.AddTool(&mcp.Tool{Name: "late", Description: "v2", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "v2"}}}, nil
		})
	eventually(t, "mcp_late is updated", func() bool {
		info, _ := reg.Lookup("mcp_late")
		return info.Description == "v2"
	})

	srv.RemoveTools("late", "greet")
	eventually(t, "mcp_late and mcp_greet are removed", func() bool { return !reg.Has("mcp_late") && !reg.Has("mcp_greet") })
	assert.True(t, reg.Has("mcp_fail"))
}

func TestCloseRemovesEveryImportedTool(t *testing.T) {
	reg := toolreg.New()
	other := reg.Scope("remote") // the same plugin name: Close must leave its own tool alone
	_, err := other.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "local"}},
		Handler:    func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "", nil },
	})
	require.NoError(t, err)
	c := connect(t, remote(nil), reg.Scope("remote"))
	require.True(t, reg.Has("mcp_greet"))
	require.NoError(t, c.Close())
	require.NoError(t, c.Close())
	assert.Equal(t, []string{"local"}, defNames(reg.Definitions(toolreg.Access{})))
	assert.Empty(t, c.Tools())
	require.NoError(t, c.Wait())
}

func TestOptionsShapeTheRegistrations(t *testing.T) {
	reg := toolreg.New()
	connect(t, remote(nil), reg.Scope("remote").WithGroups("remote"),
		mcpclient.WithPrefix("r-"),
		mcpclient.WithRisk(toolreg.RiskSensitive),
		mcpclient.WithPermission("remote:call"),
		mcpclient.WithGroups("tools"),
		mcpclient.WithPrepare(func(rt *mcp.Tool, t *toolreg.RegisteredTool) bool {
			if rt.Name == "fail" {
				t.Risk = toolreg.RiskDangerous
			}
			return rt.Name != "slow"
		}),
	)
	assert.False(t, reg.Has("r-slow"))
	greet, ok := reg.Lookup("r-greet")
	require.True(t, ok)
	assert.Equal(t, toolreg.RiskSensitive, greet.Risk)
	assert.Equal(t, toolreg.VisibilityRestricted, greet.Visibility)
	assert.Equal(t, "remote:call", greet.Permission)
	assert.ElementsMatch(t, []string{"tools", "remote"}, greet.Groups)
	fail, _ := reg.Lookup("r-fail")
	assert.Equal(t, toolreg.RiskDangerous, fail.Risk)
}

func TestClashingNamesAreReportedNotImported(t *testing.T) {
	reg := toolreg.New()
	c := connect(t, remote(nil), reg.Scope("remote"), mcpclient.WithPrepare(func(rt *mcp.Tool, t *toolreg.RegisteredTool) bool {
		if rt.Name == "fail" || rt.Name == "greet" {
			t.Definition.Function.Name = "same"
		}
		return true
	}))
	skipped := c.Skipped()
	require.Len(t, skipped, 1)
	assert.Equal(t, "greet", skipped[0].Remote) // "fail" comes first
	assert.ErrorIs(t, skipped[0].Err, mcpclient.ErrNameClash)
	assert.True(t, reg.Has("same"))
}

func TestAnUnboundScopeImportsAtBind(t *testing.T) {
	scope := toolreg.NewScope("remote")
	connect(t, remote(nil), scope)
	reg := toolreg.New()
	require.NoError(t, scope.Bind(reg))
	assert.True(t, reg.Has("mcp_greet"))
}

func TestMaxToolsCutsTheListing(t *testing.T) {
	reg := toolreg.New()
	c := connect(t, remote(nil), reg.Scope("remote"), mcpclient.WithMaxTools(3))
	assert.Len(t, c.Tools(), 3)
	skipped := c.Skipped()
	require.Len(t, skipped, 1)
	assert.ErrorIs(t, skipped[0].Err, mcpclient.ErrTooLarge)
}

func TestNewRefusesBadInput(t *testing.T) {
	reg := toolreg.New()
	_, ct := mcp.NewInMemoryTransports()
	cases := []struct {
		name  string
		scope *toolreg.Scope
		tr    mcp.Transport
		opts  []mcpclient.Option
	}{
		{"a nil scope", nil, ct, nil},
		{"a nil transport", reg.Scope("x"), nil, nil},
		{"a prefix with a space", reg.Scope("x"), ct, []mcpclient.Option{mcpclient.WithPrefix("my tools")}},
		{"a prefix too long", reg.Scope("x"), ct, []mcpclient.Option{mcpclient.WithPrefix(strings.Repeat("p", 33))}},
		{"a command that does not exist", reg.Scope("x"), mcpclient.Command("/nonexistent/mcp-server"), nil},
		{"an HTTP endpoint that is not there", reg.Scope("x"), mcpclient.HTTP("http://127.0.0.1:1/mcp"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := mcpclient.New(t.Context(), tc.scope, tc.tr, tc.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.True(t, strings.HasPrefix(err.Error(), "mcpclient: "), err.Error())
		})
	}
	assert.Empty(t, reg.All())
}

func TestImportOverStreamableHTTP(t *testing.T) {
	srv := remote(nil)
	srv.AddTool(&mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("z", 64<<10)}}}, nil
		})
	for _, jsonResponse := range []bool{false, true} {
		name := "event stream"
		if jsonResponse {
			name = "JSON responses"
		}
		t.Run(name, func(t *testing.T) {
			ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
				&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
			defer ts.Close()
			reg := toolreg.New()
			c, err := mcpclient.New(t.Context(), reg.Scope("remote"), &mcpclient.HTTPTransport{URL: ts.URL, Client: ts.Client(), MaxMessageBytes: 32 << 10})
			require.NoError(t, err)
			defer c.Close()
			assert.Equal(t, "Hello, Ada!", reg.ExecuteJSON(t.Context(), "mcp_greet", `{"name":"Ada"}`, toolreg.CallContext{}))
			// A message over the bound fails the call, never the process.
			res := reg.CallJSON(t.Context(), "mcp_big", `{}`, toolreg.CallContext{})
			assert.Equal(t, toolreg.CodeToolError, res.Code, res.Content)
		})
	}
}

func TestConcurrentCallsAndRelistings(t *testing.T) {
	reg := toolreg.New()
	srv := remote(nil)
	c := connect(t, srv, reg.Scope("remote"), mcpclient.WithRefreshDelay(time.Millisecond))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				res := reg.CallJSON(t.Context(), "mcp_greet", `{"name":"x"}`, toolreg.CallContext{})
				if res.IsError() {
					assert.Contains(t, []string{toolreg.CodeNotFound, toolreg.CodeToolError}, res.Code, res.Content)
				}
			}
		})
		wg.Go(func() {
			name := string(rune('a' + i))
			srv.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
			assert.NoError(t, c.Refresh(t.Context()))
			c.Tools()
			c.Skipped()
		})
	}
	wg.Wait()
	eventually(t, "all tools imported", func() bool { return len(c.Tools()) == 15 })
}
