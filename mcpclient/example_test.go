package mcpclient_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/mcpclient"
)

// The tools of an MCP server join a registry under a prefix; the registry
// validates and runs them like its own, and Close takes them away again.
func Example() {
	// An MCP server with one tool. A real one would run in another process:
	// mcpclient.Command("server-binary") or mcpclient.HTTP(url).
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, nil)
	type in struct {
		City string `json:"city" jsonschema:"the city"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather."},
		func(_ context.Context, _ *mcp.CallToolRequest, args in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny in " + args.City}}}, nil, nil
		})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Wait()

	reg := toolreg.New()
	c, err := mcpclient.New(ctx, reg.Scope("weather"), ct,
		mcpclient.WithPrefix("weather_"), mcpclient.WithRisk(toolreg.RiskSafe))
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range reg.Definitions(toolreg.Access{}) {
		fmt.Println(d.Function.Name, "-", d.Function.Description, d.Function.Parameters.Required)
	}
	fmt.Println(reg.ExecuteJSON(ctx, "weather_forecast", `{"city":"Oslo"}`, toolreg.CallContext{}))
	fmt.Println(reg.ExecuteJSON(ctx, "weather_forecast", `{}`, toolreg.CallContext{}))

	c.Close()
	fmt.Println(len(reg.Definitions(toolreg.Access{})), "tools after Close")
	// Output:
	// weather_forecast - Tomorrow's weather. [city]
	// Sunny in Oslo
	// {"error":"invalid arguments for tool \"weather_forecast\": missing required argument \"city\"","code":"invalid_arguments"}
	// 0 tools after Close
}
