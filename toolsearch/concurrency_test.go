package toolsearch_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

// TestConcurrentUse searches, offers, calls the search tool, embeds and
// changes the registry at once; run with -race.
func TestConcurrentUse(t *testing.T) {
	reg := catalogRegistry(t, func(name string) []string {
		if len(name)%3 == 0 {
			return []string{"g"}
		}
		return nil
	})
	ix := toolsearch.New(reg, toolsearch.WithEmbedder(newFakeEmbedder()), toolsearch.WithMaxSessions(8))
	if _, err := reg.Register(ix.Tool(), "toolsearch"); err != nil {
		t.Fatal(err)
	}
	qs := evalQueries(t)
	ctx := context.Background()
	accesses := []toolreg.Access{
		{}, everything,
		{Groups: []string{"g"}, Layers: []toolreg.Layer{toolreg.DenyList("deny", []string{"read_file", "write_file"})}},
		{Layers: []toolreg.Layer{toolreg.LayerFunc("odd", func(ti toolreg.ToolInfo) toolreg.Verdict {
			return toolreg.Verdict{Allowed: len(ti.Name)%2 == 1 || ti.Name == "search_tools"}
		})}},
	}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				a := accesses[(w+i)%len(accesses)]
				q := qs[(w*40+i)%len(qs)].Query
				session := fmt.Sprint("s", (w+i)%12)
				switch i % 4 {
				case 0:
					ix.Search(ctx, a, q, 5)
				case 1:
					reg.Call(ctx, "search_tools", map[string]any{"query": q}, toolreg.CallContext{SessionID: session, Access: a})
				case 2:
					ix.OfferJSON(session, a)
				case 3:
					_ = ix.Embed(ctx)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 60 {
			name := fmt.Sprintf("churn_%d", i%7)
			if _, err := reg.Register(tool(name, fmt.Sprintf("changing tool version %d", i), "arg"), "churn"); err != nil {
				t.Error(err)
			}
			if i%10 == 9 {
				reg.UnregisterByPlugin("churn")
			}
		}
	}()
	wg.Wait()
}
