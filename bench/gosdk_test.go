package bench

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// modelcontextprotocol/go-sdk: a client calling a server over the SDK's
// in-memory transport, in one process. The server is given its cheapest
// configuration: Server.AddTool with the schema as raw bytes (no schema
// resolved, no input validation), and the client passes the model's
// arguments as raw bytes.

// gosdkHandler adapts handle to the go-sdk: it decodes the arguments, as a
// handler added with Server.AddTool must, and answers the same text.
func gosdkHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args map[string]any
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return nil, err
	}
	res, err := handle(ctx, args, toolreg.CallContext{})
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res}}}, nil
}

// gosdkSession is a connected client of a go-sdk server of the catalog.
type gosdkSession struct {
	client *mcp.ClientSession
	lists  *atomic.Int64 // tools/list requests the server received
}

// newGoSDKSession connects a client to a go-sdk server of tools 0..n-1 over
// the in-memory transport. Both ends are closed when tb ends.
func newGoSDKSession(tb testing.TB, n int) gosdkSession {
	tb.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	for i := range n {
		srv.AddTool(&mcp.Tool{
			Name:        toolName(i),
			Description: toolDescription(i),
			InputSchema: json.RawMessage(schemaJSON),
		}, gosdkHandler)
	}
	lists := new(atomic.Int64)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := cs.Close(); err != nil {
			tb.Errorf("closing the client: %v", err)
		}
		if err := ss.Wait(); err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
			tb.Errorf("server session ended with: %v", err)
		}
	})
	return gosdkSession{client: cs, lists: lists}
}

// call is one CallTool of the call tool, with the model's arguments as raw
// JSON.
func (s gosdkSession) call(ctx context.Context) (*mcp.CallToolResult, error) {
	return s.client.CallTool(ctx, &mcp.CallToolParams{Name: callName, Arguments: json.RawMessage(argsJSON)})
}

// gosdkText returns the text of a CallTool result, or a description of what
// came back instead.
func gosdkText(res *mcp.CallToolResult, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	if res.IsError || len(res.Content) != 1 {
		return "not one text content"
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "not text content"
	}
	return text.Text
}

// list lists every tool, following the cursor as a client must.
func (s gosdkSession) list(ctx context.Context) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for {
		res, err := s.client.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			return tools, nil
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}
