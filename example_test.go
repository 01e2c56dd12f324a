package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolreg/toolreg"
)

// greet is a small tool used by the examples.
func greet() toolreg.RegisteredTool {
	return toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "greet",
			Description: "Greet a person by name.",
			Parameters: toolreg.Parameters{
				Properties:           map[string]any{"name": map[string]any{"type": "string"}},
				Required:             []string{"name"},
				AdditionalProperties: toolreg.Bool(false),
			},
		}},
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			return fmt.Sprintf("Hello, %v!", args["name"]), nil
		},
	}
}

// The basic workflow: register a tool, offer its definition to the model,
// run the model's call.
func Example() {
	reg := toolreg.New()
	if _, err := reg.Register(greet(), "demo"); err != nil {
		panic(err)
	}

	tools, _ := json.Marshal(reg.Definitions(toolreg.Access{}))
	fmt.Println(string(tools))

	call := toolreg.CallContext{SessionID: "s1"}
	fmt.Println(reg.ExecuteJSON(context.Background(), "greet", `{"name":"Ada"}`, call))
	fmt.Println(reg.ExecuteJSON(context.Background(), "greet", `{"name":"Ada","age":36}`, call))
	fmt.Println(reg.ExecuteJSON(context.Background(), "gret", `{}`, call))
	// Output:
	// [{"type":"function","function":{"name":"greet","description":"Greet a person by name.","parameters":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}}}]
	// Hello, Ada!
	// {"error":"invalid arguments for tool \"greet\": unknown argument \"age\"; supported arguments: name","code":"invalid_arguments"}
	// {"error":"unknown tool \"gret\"; did you mean \"greet\"?","code":"not_found"}
}

// A guard authorizes calls and asks a human to confirm dangerous ones.
func ExampleRegistry_SetExecutionGuard() {
	reg := toolreg.New()
	drop := toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "drop_table", Description: "Drop a table."}},
		Risk:       toolreg.RiskDangerous, // restricted, confirm once per session
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			return "dropped", nil
		},
	}
	if _, err := reg.Register(drop, "db"); err != nil {
		panic(err)
	}
	confirmed := map[string]bool{} // session → confirmed; a real guard would lock it
	reg.SetExecutionGuard(func(_ context.Context, req toolreg.GuardRequest) error {
		if req.Visibility == toolreg.VisibilityRestricted && req.UserID != "owner" {
			return fmt.Errorf("%s may not run %s", req.UserID, req.Name)
		}
		if req.Confirm != toolreg.ConfirmNone && !confirmed[req.SessionID] && !req.SkipConfirm {
			return toolreg.NeedConfirmation("ask the user to approve " + req.Name)
		}
		return nil
	})

	ctx := context.Background()
	fmt.Println(reg.Execute(ctx, "drop_table", nil, toolreg.CallContext{SessionID: "s1", UserID: "guest"}))
	fmt.Println(reg.Execute(ctx, "drop_table", nil, toolreg.CallContext{SessionID: "s1", UserID: "owner"}))
	confirmed["s1"] = true // the human said yes
	fmt.Println(reg.Execute(ctx, "drop_table", nil, toolreg.CallContext{SessionID: "s1", UserID: "owner"}))
	// Output:
	// {"error":"guest may not run drop_table","code":"denied"}
	// {"error":"ask the user to approve drop_table","code":"confirmation_required"}
	// dropped
}

// Grouped tools are offered, and run, only in sessions that enable a group.
func ExampleAccess() {
	reg := toolreg.New()
	web := greet()
	web.Definition.Function.Name = "web_search"
	web.Groups = []string{"web"}
	for _, t := range []toolreg.RegisteredTool{greet(), web} {
		if _, err := reg.Register(t, "demo"); err != nil {
			panic(err)
		}
	}
	for _, groups := range [][]string{nil, {"web"}} {
		for _, d := range reg.Definitions(toolreg.Access{Groups: groups}) {
			fmt.Printf("%v offers %s\n", groups, d.Function.Name)
		}
	}
	noWeb := toolreg.CallContext{} // the zero Access: ungrouped tools only
	fmt.Println(reg.ExecuteJSON(context.Background(), "web_search", `{"name":"x"}`, noWeb))
	// Output:
	// [] offers greet
	// [web] offers greet
	// [web] offers web_search
	// {"error":"unknown tool \"web_search\"","code":"not_found"}
}

// A scope registers for one plugin and removes everything at Close.
func ExampleScope() {
	scope := toolreg.NewScope("greeter") // before any registry exists
	if _, err := scope.WithGroups("social").Register(greet()); err != nil {
		panic(err)
	}

	reg := toolreg.New()
	if err := scope.Bind(reg); err != nil {
		panic(err)
	}
	for _, t := range reg.All() {
		fmt.Println(t.Name, t.PluginName, t.Groups, t.Visibility)
	}
	scope.Close()
	fmt.Println(len(reg.All()), "tools left")
	// Output:
	// greet greeter [social] public
	// 0 tools left
}

// Subscribers see a start and an end event for every call, with sensitive
// arguments redacted.
func ExampleRegistry_Subscribe() {
	reg := toolreg.New()
	login := toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name: "login",
			Parameters: toolreg.Parameters{Properties: map[string]any{
				"user":     map[string]any{"type": "string"},
				"password": map[string]any{"type": "string", "x-sensitive": true},
			}},
		}},
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "welcome", nil },
	}
	if _, err := reg.Register(login, "auth"); err != nil {
		panic(err)
	}
	reg.Subscribe(func(ev toolreg.ExecuteEvent) {
		fmt.Println(ev.Phase, ev.CallID, ev.ToolName, ev.Args)
		if ev.Phase == toolreg.PhaseEnd {
			fmt.Println("result:", ev.Result)
		}
	})
	reg.ExecuteJSON(context.Background(), "login", `{"user":"ann","password":"hunter2"}`, toolreg.CallContext{})
	// Output:
	// start call_1 login map[password:[redacted] user:ann]
	// end call_1 login map[password:[redacted] user:ann]
	// result: welcome
}

// Register reports every problem of a registration at once.
func ExampleRegistry_Register() {
	reg := toolreg.New()
	bad := greet()
	bad.Definition.Function.Name = "greet.v2"
	bad.Risk = "extreme"
	_, err := reg.Register(bad, "demo")
	fmt.Println(errors.Is(err, toolreg.ErrInvalidName), errors.Is(err, toolreg.ErrInvalidPolicy))
	var re *toolreg.RegisterError
	if errors.As(err, &re) {
		for _, p := range re.Problems {
			fmt.Println("-", p)
		}
	}
	// Output:
	// true true
	// - name "greet.v2" does not match ^[a-zA-Z0-9_-]{1,64}$
	// - Risk "extreme" is not one of "safe", "sensitive", "dangerous" or empty
}
