package toolreg_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// TestConcurrentUse mixes registration, execution, listing, groups, guards
// and subscription; run it with -race.
func TestConcurrentUse(t *testing.T) {
	r := toolreg.New(toolreg.WithDefaultTimeout(time.Second))
	mustRegister(t, r, newTool("stable", "stable ok", map[string]any{"q": str()}, "q"), "base")
	var events atomic.Int64
	ctx := context.Background()
	const workers, rounds = 4, 200

	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { // registration churn
			for i := range rounds {
				tool := newTool(fmt.Sprintf("t%d_%d", w, i%10), "ok", nil)
				tool.Groups = []string{fmt.Sprintf("g%d", i%3)}
				unregister, err := r.Register(tool, fmt.Sprintf("plugin%d", w))
				if err != nil {
					t.Error(err)
					return
				}
				if i%2 == 0 {
					unregister()
				}
				ungroup, _ := r.RegisterGroup(toolreg.GroupInfo{Name: fmt.Sprintf("g%d", i%3)}, "groups")
				if i%5 == 0 {
					ungroup()
				}
			}
			r.UnregisterByPlugin(fmt.Sprintf("plugin%d", w))
		})
		wg.Go(func() { // execution, stable and churning names
			for i := range rounds {
				if got := r.ExecuteJSON(ctx, "stable", `{"q":"x"}`, toolreg.CallContext{Access: toolreg.Access{Groups: []string{"g1"}}}); got != "stable ok" {
					t.Errorf("stable tool answered %q", got)
					return
				}
				r.Execute(ctx, fmt.Sprintf("t%d_%d", (w+1)%workers, i%10), nil, toolreg.CallContext{})
			}
		})
		wg.Go(func() { // listing
			for i := range rounds {
				defs := r.Definitions(toolreg.Access{Groups: []string{fmt.Sprintf("g%d", i%3)}})
				for j := 1; j < len(defs); j++ {
					if defs[j-1].Function.Name >= defs[j].Function.Name {
						t.Errorf("definitions not sorted: %q before %q", defs[j-1].Function.Name, defs[j].Function.Name)
						return
					}
				}
				r.Summaries(toolreg.Access{Groups: []string{"*"}})
				r.All()
				r.Groups()
				r.Has("stable")
			}
		})
		wg.Go(func() { // subscription and guard churn
			for i := range rounds {
				stop := r.Subscribe(func(toolreg.ExecuteEvent) { events.Add(1) })
				stopChange := r.OnChange(func() {})
				if i%10 == 0 {
					r.SetExecutionGuard(func(context.Context, toolreg.GuardRequest) error { return nil })
				}
				stop()
				stopChange()
			}
		})
	}
	wg.Wait()

	assert.Equal(t, []string{"stable"}, names(r.Definitions(toolreg.Access{Groups: []string{"*"}})))
	assert.Equal(t, "stable ok", r.ExecuteJSON(ctx, "stable", `{"q":"x"}`, toolreg.CallContext{}))
}

// TestRegistryStaysResponsiveWhileCallsWaitInTheGuard holds twenty calls
// inside a guard, as a human confirmation would, and checks that the
// registry keeps serving everyone else meanwhile.
func TestRegistryStaysResponsiveWhileCallsWaitInTheGuard(t *testing.T) {
	r := toolreg.New()
	confirm := newTool("needs_human", "confirmed", nil)
	confirm.Confirm = toolreg.ConfirmAlways
	mustRegister(t, r, confirm, "p")
	mustRegister(t, r, newTool("quick", "quick ok", nil), "p")

	const waiting = 20
	release := make(chan struct{})
	var inGuard sync.WaitGroup
	inGuard.Add(waiting)
	r.SetExecutionGuard(func(ctx context.Context, req toolreg.GuardRequest) error {
		if req.Confirm == toolreg.ConfirmNone {
			return nil
		}
		inGuard.Done()
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})

	results := make(chan string, waiting)
	var calls sync.WaitGroup
	for range waiting {
		calls.Go(func() {
			results <- r.Execute(context.Background(), "needs_human", nil, toolreg.CallContext{})
		})
	}
	inGuard.Wait() // all twenty are blocked in the guard now

	done := make(chan struct{})
	go func() {
		defer close(done)
		unregister, err := r.Register(newTool("added_meanwhile", "", nil), "p")
		assert.NoError(t, err)
		assert.Contains(t, names(r.Definitions(toolreg.Access{})), "added_meanwhile")
		assert.Equal(t, "quick ok", r.Execute(context.Background(), "quick", nil, toolreg.CallContext{}))
		unregister()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Register, Definitions and Execute blocked while calls waited in the guard")
	}

	close(release)
	calls.Wait()
	close(results)
	n := 0
	for res := range results {
		require.Equal(t, "confirmed", res)
		n++
	}
	assert.Equal(t, waiting, n)
}
