package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/toolreg/toolreg/toolsearch"
)

// evalQuery is one query of testdata/queries.json: what a model might
// search for, and the tools that answer it (any one of them counts).
type evalQuery struct {
	Kind   string   `json:"kind"`
	Query  string   `json:"query"`
	Expect []string `json:"expect"`
}

func evalQueries(t testing.TB) []evalQuery {
	t.Helper()
	b, err := os.ReadFile("testdata/queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var qs []evalQuery
	if err := json.Unmarshal(b, &qs); err != nil {
		t.Fatal(err)
	}
	return qs
}

// recall is the share of queries whose expected tool is first (at1) and
// among the first five (at5).
type recall struct {
	n, at1, at5 int
	misses      []string
}

func (r recall) String() string {
	return fmt.Sprintf("recall@1 %.3f  recall@5 %.3f  (%d queries)", r.rate(r.at1), r.rate(r.at5), r.n)
}

func (r recall) rate(k int) float64 { return float64(k) / float64(r.n) }

func evaluate(ix *toolsearch.Index, qs []evalQuery) (all recall, byKind map[string]*recall) {
	byKind = map[string]*recall{}
	for _, q := range qs {
		got := names(ix.Search(context.Background(), everything, q.Query, 5))
		rank := slices.IndexFunc(got, func(n string) bool { return slices.Contains(q.Expect, n) })
		k := byKind[q.Kind]
		if k == nil {
			k = &recall{}
			byKind[q.Kind] = k
		}
		for _, r := range []*recall{&all, k} {
			r.n++
			if rank == 0 {
				r.at1++
			}
			if rank >= 0 {
				r.at5++
			}
		}
		switch {
		case rank < 0:
			all.misses = append(all.misses, fmt.Sprintf("%q: want %v, not in the first 5: %v", q.Query, q.Expect, got))
		case rank > 0:
			all.misses = append(all.misses, fmt.Sprintf("%q: want %v first, found at %d: %v", q.Query, q.Expect, rank+1, got))
		}
	}
	return all, byKind
}

// TestRecall measures the ranking on the committed evaluation set: 124
// queries, phrased as a model would (keywords, paraphrases, typos, case and
// underscore variants), over the 420-tool catalog. It fails below the
// floors; run it with -v to print the figures:
//
//	go test ./toolsearch -run TestRecall -v
func TestRecall(t *testing.T) {
	reg := catalogRegistry(t, nil)
	qs := evalQueries(t)
	if len(qs) < 60 {
		t.Fatalf("the evaluation set has %d queries, want at least 60", len(qs))
	}
	if n := len(reg.Definitions(everything)); n < 300 {
		t.Fatalf("the catalog has %d tools, want at least 300", n)
	}
	configs := []struct {
		name       string
		opts       []toolsearch.Option
		floor1     float64
		floor5     float64
		showMisses bool
	}{
		{name: "default (BM25F, synonyms, typos)", floor1: 0.75, floor5: 0.93, showMisses: true},
		{name: "without synonyms", opts: []toolsearch.Option{toolsearch.WithSynonyms(nil)}},
		{name: "without typo tolerance", opts: []toolsearch.Option{toolsearch.WithTypoTolerance(false)}},
		{name: "plain BM25F", opts: []toolsearch.Option{toolsearch.WithSynonyms(nil), toolsearch.WithTypoTolerance(false)}},
		{name: "hybrid, test embedder", opts: []toolsearch.Option{toolsearch.WithEmbedder(newFakeEmbedder())}, floor5: 0.9},
	}
	for _, c := range configs {
		all, byKind := evaluate(toolsearch.New(reg, c.opts...), qs)
		t.Logf("%-34s %s", c.name, all)
		kinds := make([]string, 0, len(byKind))
		for k := range byKind {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			t.Logf("    %-30s %s", k, *byKind[k])
		}
		if c.showMisses && testing.Verbose() {
			for _, m := range all.misses {
				t.Logf("    miss %s", m)
			}
		}
		if all.rate(all.at1) < c.floor1 || all.rate(all.at5) < c.floor5 {
			t.Errorf("%s: %s, below the floors recall@1 %.2f, recall@5 %.2f", c.name, all, c.floor1, c.floor5)
		}
	}
}
