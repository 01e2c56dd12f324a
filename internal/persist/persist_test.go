package persist

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

type item struct{ k, v string }

func itemKey(it item) string { return it.k }

// TestMapAndSortedBehaveLikeAMap applies random operations to both
// collections and to a plain Go map, and checks every old version too: an
// update must never change a version someone still reads.
func TestMapAndSortedBehaveLikeAMap(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		keys := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-e]{0,3}`), 1, 40, rapid.ID).Draw(rt, "keys")
		m := NewMap[string]()
		s := NewSorted(itemKey)
		ref := map[string]string{}
		type version struct {
			m   Map[string]
			s   Sorted[item]
			ref map[string]string
		}
		var versions []version
		for i := range rapid.IntRange(1, 300).Draw(rt, "ops") {
			k := rapid.SampledFrom(keys).Draw(rt, "key")
			if rapid.IntRange(0, 3).Draw(rt, "op") == 0 {
				m, s = m.Delete(k), s.Delete(k)
				delete(ref, k)
			} else {
				v := fmt.Sprint(i)
				m, s = m.Set(k, v), s.Upsert(item{k, v})
				ref[k] = v
			}
			versions = append(versions, version{m, s, maps.Clone(ref)})
		}
		for _, ver := range versions {
			check(rt, ver.m, ver.s, ver.ref, keys)
		}
	})
}

func check(rt *rapid.T, m Map[string], s Sorted[item], ref map[string]string, keys []string) {
	if m.Len() != len(ref) || s.Len() != len(ref) {
		rt.Fatalf("len: map %d, sorted %d, want %d", m.Len(), s.Len(), len(ref))
	}
	for _, k := range keys {
		v, ok := m.Get(k)
		want, wantOK := ref[k]
		if ok != wantOK || v != want {
			rt.Fatalf("Get(%q) = %q, %v; want %q, %v", k, v, ok, want, wantOK)
		}
	}
	var got []string
	s.All(func(it item) bool { got = append(got, it.k+"="+it.v); return true })
	var want []string
	for _, k := range slices.Sorted(maps.Keys(ref)) {
		want = append(want, k+"="+ref[k])
	}
	if !slices.Equal(got, want) {
		rt.Fatalf("All = %v, want %v", got, want)
	}
	seen := map[string]bool{}
	m.All(func(k, v string) bool { seen[k] = ref[k] == v; return true })
	if len(seen) != len(ref) {
		rt.Fatalf("Map.All saw %d keys, want %d", len(seen), len(ref))
	}
	for _, k := range keys {
		var from, before []string
		s.From(k, func(it item) bool { from = append(from, it.k); return true })
		s.Before(k, func(it item) bool { before = append(before, it.k); return true })
		var wantFrom, wantBefore []string
		for _, x := range slices.Sorted(maps.Keys(ref)) {
			if x >= k {
				wantFrom = append(wantFrom, x)
			} else {
				wantBefore = append([]string{x}, wantBefore...)
			}
		}
		if !slices.Equal(from, wantFrom) || !slices.Equal(before, wantBefore) {
			rt.Fatalf("From(%q) = %v, want %v; Before = %v, want %v", k, from, wantFrom, before, wantBefore)
		}
	}
}

func TestSortedStaysInChunksAtScale(t *testing.T) {
	s := NewSorted(itemKey)
	m := NewMap[int]()
	for i := range 20_000 {
		k := fmt.Sprintf("k%07d", (i*7919)%20_000)
		s = s.Upsert(item{k: k})
		m = m.Set(k, i)
	}
	for i := 0; i < 20_000; i += 2 {
		k := fmt.Sprintf("k%07d", i)
		s = s.Delete(k)
		m = m.Delete(k)
	}
	if s.Len() != 10_000 || m.Len() != 10_000 {
		t.Fatalf("len %d, %d", s.Len(), m.Len())
	}
	prev := ""
	n := 0
	s.All(func(it item) bool {
		if it.k <= prev {
			t.Fatalf("%q after %q", it.k, prev)
		}
		prev = it.k
		n++
		return true
	})
	checkNodes(t, s.root)
	if _, ok := m.Get("k0000001"); !ok {
		t.Fatal("k0000001 lost")
	}
}

func BenchmarkMapGet(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		m := NewMap[int]()
		ref := map[string]int{}
		keys := make([]string, n)
		for i := range n {
			keys[i] = fmt.Sprintf("mcp_server%d_tool_%d", i%50, i)
			m = m.Set(keys[i], i)
			ref[keys[i]] = i
		}
		b.Run(fmt.Sprint("persist/", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, ok := m.Get(keys[i%n]); !ok {
					b.Fatal("missing")
				}
				i += 7
			}
		})
		b.Run(fmt.Sprint("gomap/", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, ok := ref[keys[i%n]]; !ok {
					b.Fatal("missing")
				}
				i += 7
			}
		})
	}
}

// checkNodes fails unless every node is non-empty and within maxNode.
func checkNodes[T any](t *testing.T, n *bnode[T]) {
	t.Helper()
	if n.leaf() {
		if len(n.items) == 0 || len(n.items) > maxNode {
			t.Fatalf("a leaf of %d items", len(n.items))
		}
		return
	}
	if len(n.kids) == 0 || len(n.kids) > maxNode || n.maxKey != n.kids[len(n.kids)-1].maxKey {
		t.Fatalf("an inner node of %d children, max key %q", len(n.kids), n.maxKey)
	}
	for _, c := range n.kids {
		checkNodes(t, c)
	}
}
