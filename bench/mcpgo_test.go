package bench

import (
	"context"
	"encoding/json"

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
