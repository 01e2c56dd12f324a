package toolsearch_test

import (
	"context"
	"sync"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

var (
	fuzzOnce sync.Once
	fuzzReg  *toolreg.Registry
	fuzzIx   *toolsearch.Index
)

// FuzzSearch checks that no query makes a search panic, return more than
// the limit, return a tool outside the Access or answer differently twice.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{
		"", "create github issue", "GitHub_Create_Issue", "listPullRequests", "calender evnt",
		"select:read_file,write_file", "select:", "\xff\xfe", "ec2 s3 v2beta1", "ÉCOLE Straße İstanbul",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a_b-c d.e/f",
	} {
		f.Add(q, 5)
	}
	fuzzOnce.Do(func() {
		fuzzReg = catalogRegistry(f, func(name string) []string {
			if len(name)%2 == 0 {
				return []string{"even"}
			}
			return nil
		})
		fuzzIx = toolsearch.New(fuzzReg)
	})
	f.Fuzz(func(t *testing.T, query string, limit int) {
		reach := listed(fuzzReg, toolreg.Access{})
		got := fuzzIx.Search(context.Background(), toolreg.Access{}, query, limit)
		if len(got) > 20 || (limit >= 1 && len(got) > limit) {
			t.Fatalf("%d matches for limit %d", len(got), limit)
		}
		for _, m := range got {
			if !reach[m.Name] {
				t.Fatalf("%q returned %q outside the Access", query, m.Name)
			}
		}
		again := fuzzIx.Search(context.Background(), toolreg.Access{}, query, limit)
		if len(again) != len(got) {
			t.Fatalf("%q: %d then %d matches", query, len(got), len(again))
		}
		for i := range got {
			if got[i].Name != again[i].Name {
				t.Fatalf("%q: %v then %v", query, names(got), names(again))
			}
		}
	})
}
