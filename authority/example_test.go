package authority_test

import (
	"context"
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

// tool is a small tool for the examples.
func tool(name string, risk toolreg.Risk) toolreg.RegisteredTool {
	return toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: name, Description: "Example tool " + name + "."}},
		Risk:       risk,
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			return name + " done", nil
		},
	}
}

// Wiring an authority in: owners, levels, and a confirmer that asks a
// person (here, one who always says yes for the session).
func Example() {
	ctx := context.Background()
	olivia := authority.Identity{Platform: "terminal", UserID: "olivia"}
	sam := authority.Identity{Platform: "terminal", UserID: "sam"}
	a, err := authority.New(
		authority.WithOwners(olivia),
		authority.WithConfirmer("terminal", func(_ context.Context, r authority.ConfirmRequest) (authority.Answer, error) {
			fmt.Printf("  [asked: may %s run %s?]\n", r.Identity.UserID, r.Tool)
			return authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession}, nil
		}),
	)
	if err != nil {
		panic(err)
	}
	reg := toolreg.New()
	reg.Register(tool("read_notes", toolreg.RiskSafe), "notes")
	reg.Register(tool("delete_notes", toolreg.RiskDangerous), "notes")
	reg.SetExecutionGuard(a.Guard())

	as := func(id authority.Identity) toolreg.CallContext {
		return toolreg.CallContext{SessionID: "s1", Platform: id.Platform, UserID: id.UserID}
	}
	fmt.Println(reg.Execute(ctx, "read_notes", nil, as(sam)))
	fmt.Println(reg.Execute(ctx, "delete_notes", nil, as(sam)))
	fmt.Println(reg.Execute(ctx, "delete_notes", nil, as(olivia)))
	fmt.Println(reg.Execute(ctx, "delete_notes", nil, as(olivia))) // remembered for the session
	// Output:
	// read_notes done
	// {"error":"authority: tool \"delete_notes\" needs authority level 2","code":"denied"}
	//   [asked: may olivia run delete_notes?]
	// delete_notes done
	// delete_notes done
}

// Deferred approval: the call waits for a person who answers later.
func ExampleAuthority_Approve() {
	ctx := context.Background()
	olivia := authority.Identity{Platform: "web", UserID: "olivia"}
	pending := make(chan authority.Request, 1)
	a, err := authority.New(
		authority.WithOwners(olivia),
		authority.WithDeferredApproval("web"),
		authority.WithOnPending(func(r authority.Request) { pending <- r }),
	)
	if err != nil {
		panic(err)
	}
	reg := toolreg.New()
	reg.Register(tool("drop_table", toolreg.RiskDangerous), "db")
	reg.SetExecutionGuard(a.Guard())
	call := toolreg.CallContext{SessionID: "s1", Platform: "web", UserID: "olivia"}

	fmt.Println(reg.Call(ctx, "drop_table", nil, call).Code)
	r := <-pending // the host shows it on a page; the person clicks Approve
	if _, err := a.Approve(ctx, r.ID); err != nil {
		panic(err)
	}
	fmt.Println(reg.Execute(ctx, "drop_table", nil, call))
	fmt.Println(reg.Call(ctx, "drop_table", nil, call).Code) // consumed: asks again
	// Output:
	// confirmation_required
	// drop_table done
	// confirmation_required
}

// The authority as a layer: a caller is offered only what it may run.
func ExampleAuthority_Layer() {
	ctx := context.Background()
	a, err := authority.New(authority.WithDeny("tool:format_*"))
	if err != nil {
		panic(err)
	}
	friend := authority.Identity{Platform: "chat", UserID: "frank"}
	if err := a.SetLevel(ctx, friend, 1); err != nil {
		panic(err)
	}
	reg := toolreg.New()
	reg.Register(tool("read_notes", toolreg.RiskSafe), "notes")
	reg.Register(tool("read_mail", toolreg.RiskSensitive), "mail")
	reg.Register(tool("delete_notes", toolreg.RiskDangerous), "notes")
	reg.Register(tool("format_disk", toolreg.RiskSafe), "disk")

	for _, id := range []authority.Identity{{Platform: "chat", UserID: "sam"}, friend} {
		layer, err := a.Layer(ctx, id, "s1")
		if err != nil {
			panic(err)
		}
		var names []string
		for _, s := range reg.Summaries(toolreg.Access{Layers: []toolreg.Layer{layer}}) {
			names = append(names, s.Name)
		}
		fmt.Println(id.UserID, names)
	}
	// Output:
	// sam [read_notes]
	// frank [read_mail read_notes]
}

// Chaining: the authority runs after another guard that allows.
func ExampleAuthority_Guard() {
	a, err := authority.New()
	if err != nil {
		panic(err)
	}
	budget := func(_ context.Context, req toolreg.GuardRequest) error {
		if req.Name == "expensive" {
			return fmt.Errorf("budget: %q is over today's budget", req.Name)
		}
		return nil
	}
	reg := toolreg.New()
	reg.Register(tool("expensive", toolreg.RiskSafe), "demo")
	reg.Register(tool("read_mail", toolreg.RiskSensitive), "demo")
	reg.SetExecutionGuard(toolreg.ChainGuards(budget, a.Guard()))
	call := toolreg.CallContext{Platform: "chat", UserID: "sam"}
	fmt.Println(reg.Execute(context.Background(), "expensive", nil, call))
	fmt.Println(reg.Execute(context.Background(), "read_mail", nil, call))
	// Output:
	// {"error":"budget: \"expensive\" is over today's budget","code":"denied"}
	// {"error":"authority: tool \"read_mail\" needs authority level 1","code":"denied"}
}

// A file store keeps levels, grants and pending requests across restarts.
func ExampleOpenFileStore() {
	ctx := context.Background()
	path := tempPath()
	store, err := authority.OpenFileStore(path)
	if err != nil {
		panic(err)
	}
	a, _ := authority.New(authority.WithStore(store))
	a.SetLevel(ctx, authority.Identity{Platform: "chat", UserID: "frank"}, 1)

	// After a restart:
	store, err = authority.OpenFileStore(path)
	if err != nil {
		panic(err)
	}
	a, _ = authority.New(authority.WithStore(store))
	fmt.Println(a.Level(ctx, authority.Identity{Platform: "chat", UserID: "frank"}))
	// Output:
	// 1 <nil>
}
