package bench

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/toolreg/toolreg"
)

// mark3labs/mcp-go, dispatching in process: HandleMessage is what each of
// its transports calls with a JSON-RPC message it received. The server is
// given its cheapest configuration: the schema as raw bytes (no map to
// marshal at listing) and no input validation (its default).

// mcpgoCall is the tools/call request of the call benchmarks.
var mcpgoCall = json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` +
	callName + `","arguments":` + argsJSON + `}}`)

// mcpgoList is the tools/list request of the listing benchmark.
var mcpgoList = json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)

// mcpgoHandler adapts handle to mcp-go: the same arguments, the same answer
// as text content.
func mcpgoHandler(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := handle(ctx, req.GetArguments(), toolreg.CallContext{})
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(res), nil
}

// newMCPGoServer returns an mcp-go server of tools 0..n-1 of the catalog.
func newMCPGoServer(n int) *server.MCPServer {
	s := server.NewMCPServer("bench", "1.0.0", server.WithToolCapabilities(false))
	tools := make([]server.ServerTool, n)
	for i := range tools {
		tools[i] = server.ServerTool{
			Tool: mcp.Tool{
				Name:           toolName(i),
				Description:    toolDescription(i),
				RawInputSchema: json.RawMessage(schemaJSON),
			},
			Handler: mcpgoHandler,
		}
	}
	s.AddTools(tools...)
	return s
}

// mcpgoText returns the text of a tools/call response, or a description of
// what came back instead.
func mcpgoText(resp mcp.JSONRPCMessage) string {
	r, ok := resp.(mcp.JSONRPCResponse)
	if !ok {
		b, _ := json.Marshal(resp)
		return "not a result: " + string(b)
	}
	res, ok := r.Result.(*mcp.CallToolResult)
	if !ok || res.IsError || len(res.Content) != 1 {
		b, _ := json.Marshal(r.Result)
		return "not one text: " + string(b)
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		return "not text content"
	}
	return text.Text
}

// BenchmarkMCPGoCall is mcp-go's HandleMessage with a tools/call request of
// the same tool and arguments as BenchmarkExecuteJSON, and a cancelable
// context. The response is left as HandleMessage returns it, unmarshaled.
func BenchmarkMCPGoCall(b *testing.B) {
	s := newMCPGoServer(catalogSize)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checkAnswer(b, "mcp-go", mcpgoText(s.HandleMessage(ctx, mcpgoCall)))
	settle(b)
	var resp mcp.JSONRPCMessage
	for b.Loop() {
		resp = s.HandleMessage(ctx, mcpgoCall)
	}
	sink = resp
}

// mcpgoListed returns how many tools a marshaled tools/list response holds,
// or -1 if it is not one.
func mcpgoListed(body []byte) int {
	var r struct {
		Result struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &r) != nil || r.Result.NextCursor != "" {
		return -1
	}
	return len(r.Result.Tools)
}

// BenchmarkMCPGoList is mcp-go's HandleMessage with a tools/list request,
// then json.Marshal of the response: the wire bytes of the 1,000 tools, as
// BenchmarkDefinitionsJSONCached gives them.
func BenchmarkMCPGoList(b *testing.B) {
	s := newMCPGoServer(catalogSize)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, err := json.Marshal(s.HandleMessage(ctx, mcpgoList))
	if err != nil {
		b.Fatal(err)
	}
	if n := mcpgoListed(body); n != catalogSize {
		b.Fatalf("tools/list listed %d tools, want %d: %.200s", n, catalogSize, body)
	}
	settle(b)
	for b.Loop() {
		body, err = json.Marshal(s.HandleMessage(ctx, mcpgoList))
		if err != nil {
			b.Fatal(err)
		}
	}
	sink = body
}
