package redisstore_test

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
	"github.com/toolreg/toolreg/authority/redisstore"
)

// Two replicas share approvals through Redis: the model's call lands on
// one, a person approves, and the retry runs on the other.
func Example() {
	ctx := context.Background()
	owner := authority.Identity{Platform: "web", UserID: "olivia"}
	prefix := newPrefix() // a fresh key space, as each run's
	pending := make(chan authority.Request, 1)
	replica := func() (*toolreg.Registry, *authority.Authority, func()) {
		client := redis.NewClient(&redis.Options{Addr: redisAddr})
		a, err := authority.New(
			authority.WithStore(redisstore.New(client, redisstore.WithPrefix(prefix))),
			authority.WithOwners(owner),
			authority.WithDeferredApproval("web"),
			authority.WithOnPending(func(r authority.Request) { pending <- r }), // tell a person
		)
		if err != nil {
			panic(err)
		}
		reg := toolreg.New()
		reg.Register(toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: "drop_table", Description: "Drop a table."}},
			Risk:       toolreg.RiskDangerous,
			Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
				return "dropped", nil
			},
		}, "db")
		reg.SetExecutionGuard(a.Guard())
		return reg, a, func() { client.Close() }
	}
	regA, authA, closeA := replica()
	defer closeA()
	regB, _, closeB := replica()
	defer closeB()

	call := toolreg.CallContext{SessionID: "s1", Platform: "web", UserID: "olivia"}
	res := regA.Call(ctx, "drop_table", nil, call)
	fmt.Println(res.Code)

	// The host shows the pending request to a person, who approves it.
	r := <-pending
	fmt.Println("approve", r.Tool, "for", r.Key.UserID, "?")
	if _, err := authA.Approve(ctx, r.ID); err != nil {
		panic(err)
	}
	fmt.Println(regB.Call(ctx, "drop_table", nil, call).Content)
	fmt.Println(regA.Call(ctx, "drop_table", nil, call).Code)
	// Output:
	// confirmation_required
	// approve drop_table for olivia ?
	// dropped
	// confirmation_required
}
