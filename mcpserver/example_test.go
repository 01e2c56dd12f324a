package mcpserver_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/mcpserver"
)

// An MCP client lists and calls the registry's tools. A grouped tool the
// server's Access does not enable is neither listed nor callable: the
// answer is the one an unknown name gets.
func Example() {
	reg := toolreg.New()
	greet := func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		return fmt.Sprintf("Hello, %v!", args["name"]), nil
	}
	params := toolreg.Parameters{
		Properties: map[string]any{"name": map[string]any{"type": "string"}},
		Required:   []string{"name"},
	}
	reg.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "greet", Description: "Greet someone.", Parameters: params}},
		Handler:    greet,
	}, "demo")
	reg.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "admin_greet", Description: "Greet loudly.", Parameters: params}},
		Handler:    greet,
		Groups:     []string{"admin"},
	}, "demo")

	srv, err := mcpserver.New(reg) // the zero Access: ungrouped tools only
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	// Connect the SDK's own client in memory; srv.ServeStdio or
	// srv.HTTPHandler serve real clients.
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range list.Tools {
		fmt.Println("listed:", t.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, "isError:", res.IsError)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, "isError:", res.IsError)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "admin_greet", Arguments: map[string]any{"name": "Ada"}})
	fmt.Println(err)
	// Output:
	// listed: greet
	// Hello, Ada! isError: false
	// {"error":"invalid arguments for tool \"greet\": missing required argument \"name\"","code":"invalid_arguments"} isError: true
	// calling "tools/call": unknown tool "admin_greet"
}
