package toolreg

import "github.com/toolreg/toolreg/internal/persist"

// nameSeed seeds nameHash for the life of the process, so that a hash
// computed once at Register matches the tables the library's layers build.
var nameSeed = persist.NewSeed()

// nameHash hashes a tool name. Each registered tool keeps its own, so the
// library's layers look a tool up without hashing its name on every call.
func nameHash(s string) uint64 { return persist.Hash(nameSeed, s) }

// nameTable is an immutable open-addressing table from tool names to V,
// probed with a precomputed nameHash. A layer builds one at construction.
type nameTable[V any] struct {
	slots []nameSlot[V]
	mask  uint64
}

type nameSlot[V any] struct {
	hash uint64
	name string
	val  V
	used bool
}

// newNameTable builds a table of the pairs; a later pair for the same name
// wins.
func newNameTable[V any](names []string, val func(i int) V) nameTable[V] {
	size := 8
	for size < 2*len(names) {
		size *= 2
	}
	t := nameTable[V]{slots: make([]nameSlot[V], size), mask: uint64(size - 1)}
	for i, n := range names {
		h := nameHash(n)
		for j := h & t.mask; ; j = (j + 1) & t.mask {
			s := &t.slots[j]
			if !s.used || s.hash == h && s.name == n {
				*s = nameSlot[V]{hash: h, name: n, val: val(i), used: true}
				break
			}
		}
	}
	return t
}

// get returns the value of name, whose nameHash is h.
func (t *nameTable[V]) get(name string, h uint64) (V, bool) {
	if len(t.slots) > 0 {
		for j := h & t.mask; ; j = (j + 1) & t.mask {
			s := &t.slots[j]
			if !s.used {
				break
			}
			if s.hash == h && s.name == name {
				return s.val, true
			}
		}
	}
	var zero V
	return zero, false
}

// nameSet builds a nameTable that only says whether a name is in it.
func nameSet(names []string) nameTable[struct{}] {
	return newNameTable(names, func(int) struct{} { return struct{}{} })
}
