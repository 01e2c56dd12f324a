package toolsearch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

// bigRegistry registers n tools: copies of the catalog, each copy under a
// server prefix (as MCP hosts name tools) and with three made-up words in
// every description, so that the vocabulary grows with the catalog as it
// does when every server brings its own product names.
func bigRegistry(b *testing.B, n int) (*toolreg.Registry, []string) {
	b.Helper()
	base := catalog(b)
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		w := make([]byte, 5+rng.IntN(5))
		for i := range w {
			w[i] = letters[rng.IntN(len(letters))]
		}
		return string(w)
	}
	reg := toolreg.New()
	var all []string
	for copyN := 0; len(all) < n; copyN++ {
		server := fmt.Sprintf("srv%d", copyN)
		for _, d := range base {
			if len(all) == n {
				break
			}
			d.Function.Name = server + "_" + d.Function.Name
			if len(d.Function.Name) > 64 {
				d.Function.Name = d.Function.Name[:64]
			}
			d.Function.Description += " " + word() + " " + word() + " " + word()
			if _, err := reg.Register(toolreg.RegisteredTool{Definition: d, Handler: echo(d.Function.Name)}, server); err != nil {
				b.Fatal(err)
			}
			all = append(all, d.Function.Name)
		}
	}
	return reg, all
}

// BenchmarkSearch measures one search over 10,000 tools, cycling through
// the evaluation queries, under Access values of each kind: every tool; an
// allow list of 500 tools (a library layer, listing cached); a LayerFunc,
// whose listing the registry recomputes on every call.
func BenchmarkSearch(b *testing.B) {
	reg, all := bigRegistry(b, 10000)
	qs := evalQueries(b)
	accesses := []struct {
		name string
		a    toolreg.Access
	}{
		{"every tool", everything},
		{"allow list of 500", toolreg.Access{Groups: []string{toolreg.AllGroups}, Layers: []toolreg.Layer{toolreg.AllowList("agent", all[:500])}}},
		{"LayerFunc", toolreg.Access{Groups: []string{toolreg.AllGroups}, Layers: []toolreg.Layer{toolreg.LayerFunc("plan", func(t toolreg.ToolInfo) toolreg.Verdict {
			return toolreg.Verdict{Allowed: !strings.HasPrefix(t.Name, "srv3_")}
		})}}},
	}
	ix := toolsearch.New(reg)
	ix.Refresh()
	ctx := context.Background()
	for _, acc := range accesses {
		b.Run("10000 tools/"+acc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			loopCPU(b, func() {
				ix.Search(ctx, acc.a, qs[i%len(qs)].Query, 5)
				i++
			})
		})
	}
	b.Run("10000 tools/every tool/worst-case query", func(b *testing.B) {
		// 32 long misspelled words: the most typo expansion a query can ask.
		var q []string
		for i := range 32 {
			q = append(q, fmt.Sprintf("configuratoinxx%c%c", 'a'+i%26, 'a'+i/26))
		}
		query := strings.Join(q, " ")
		b.ReportAllocs()
		loopCPU(b, func() { ix.Search(ctx, everything, query, 5) })
	})
}

// BenchmarkRefresh measures keeping the index current over 10,000 tools
// when one tool changes between searches.
func BenchmarkRefresh(b *testing.B) {
	reg, _ := bigRegistry(b, 10000)
	ix := toolsearch.New(reg)
	ix.Refresh()
	b.ReportAllocs()
	i := 0
	loopCPU(b, func() {
		if _, err := reg.Register(tool("changing_tool", fmt.Sprint("version ", i)), "p"); err != nil {
			b.Fatal(err)
		}
		ix.Refresh()
		i++
	})
}

// BenchmarkBuild measures indexing 10,000 tools from scratch.
func BenchmarkBuild(b *testing.B) {
	reg, _ := bigRegistry(b, 10000)
	b.ReportAllocs()
	loopCPU(b, func() { toolsearch.New(reg).Refresh() })
}

// BenchmarkOffer measures one turn's offer over 10,000 tools for a session
// that discovered ten.
func BenchmarkOffer(b *testing.B) {
	reg, all := bigRegistry(b, 10000)
	ix := toolsearch.New(reg)
	if _, err := reg.Register(ix.Tool(), "toolsearch"); err != nil {
		b.Fatal(err)
	}
	ix.Discover("s", all[:10]...)
	b.ReportAllocs()
	loopCPU(b, func() { ix.OfferJSON("s", everything) })
}

// BenchmarkIndexMemory reports the heap an index of 10,000 tools holds
// beyond the registry's own, as "index-bytes".
func BenchmarkIndexMemory(b *testing.B) {
	reg, _ := bigRegistry(b, 10000)
	reg.Definitions(everything)
	var before, after runtime.MemStats
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		ix := toolsearch.New(reg)
		ix.Refresh()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(ix)
	}
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "index-bytes")
}
