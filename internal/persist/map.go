// Package persist holds the immutable, structurally shared collections
// behind the registry's snapshots: a string-keyed hash array mapped trie and
// a chunked sorted list. Every update returns a new version in time
// proportional to the logarithm (the map) or to a chunk (the list) and
// leaves the old version intact, so readers use a version without locks
// while a writer builds the next one.
package persist

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
)

const (
	bitsPerLevel = 5
	fanout       = 1 << bitsPerLevel
	maxShift     = 60 // below this the 64-bit hash is used up: collisions share a leaf list
)

// Map is an immutable map from string keys to V: a hash array mapped trie
// whose levels hold only their occupied slots (a 32-bit bitmap says which),
// with leaves kept inline in the slots. An update copies one node per level,
// in proportion to what it holds, and the zero Map is empty and ready to
// use. Methods that change it return the new version.
type Map[V any] struct {
	root *node[V]
	seed uint64
	len  int
}

type node[V any] struct {
	bitmap uint32
	slots  []slot[V] // the occupied slots, in bit order
}

// slot is a child level or a leaf. The leaf's hash sits in the slot, so a
// lookup that misses compares it without following the leaf pointer; more
// leaves chain from the leaf only when full 64-bit hashes collide.
type slot[V any] struct {
	child *node[V]
	hash  uint64
	leaf  *leaf[V]
}

type leaf[V any] struct {
	key  string
	hash uint64
	val  V
	next *leaf[V]
}

// NewMap returns an empty map with a fresh random hash seed.
func NewMap[V any]() Map[V] {
	return Map[V]{seed: newSeed()}
}

func newSeed() uint64 { return NewSeed() }

// NewSeed returns a random seed for Hash.
func NewSeed() uint64 { return maphash.Comparable(maphash.MakeSeed(), 0) | 1 }

// Hash is a fast seeded hash of a short string, such as a tool name: eight
// bytes at a time, then a full avalanche, so that every group of low bits
// is well mixed. The seed keeps layouts unpredictable from outside.
func Hash(seed uint64, k string) uint64 {
	h := seed ^ uint64(len(k))*0x9e3779b97f4a7c15
	for len(k) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64([]byte(k[:8]))) * 0xff51afd7ed558ccd
		h ^= h >> 32
		k = k[8:]
	}
	var tail uint64
	for i := len(k) - 1; i >= 0; i-- {
		tail = tail<<8 | uint64(k[i])
	}
	h = (h ^ tail) * 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// Len returns the number of keys.
func (m Map[V]) Len() int { return m.len }

// Get returns the value of k and whether it is present.
func (m Map[V]) Get(k string) (V, bool) {
	if n := m.root; n != nil {
		h := Hash(m.seed, k)
		for shift := uint(0); ; shift += bitsPerLevel {
			bit := uint32(1) << ((h >> shift) & (fanout - 1))
			if n.bitmap&bit == 0 {
				break
			}
			s := &n.slots[bits.OnesCount32(n.bitmap&(bit-1))]
			if s.child != nil {
				n = s.child
				continue
			}
			if s.hash == h {
				for l := s.leaf; l != nil; l = l.next {
					if l.key == k {
						return l.val, true
					}
				}
			}
			break
		}
	}
	var zero V
	return zero, false
}

// Set returns a map in which k maps to v.
func (m Map[V]) Set(k string, v V) Map[V] {
	if m.seed == 0 {
		m.seed = newSeed() // the zero Map
	}
	root, added := m.root.set(&leaf[V]{key: k, hash: Hash(m.seed, k), val: v}, 0)
	m.root = root
	if added {
		m.len++
	}
	return m
}

// set returns a copy of n (nil: empty) with l in it, and whether its key is
// new.
func (n *node[V]) set(l *leaf[V], shift uint) (*node[V], bool) {
	out := &node[V]{}
	if n != nil {
		out.bitmap = n.bitmap
		out.slots = append(make([]slot[V], 0, len(n.slots)+1), n.slots...)
	}
	bit := uint32(1) << ((l.hash >> shift) & (fanout - 1))
	i := bits.OnesCount32(out.bitmap & (bit - 1))
	if out.bitmap&bit == 0 {
		out.bitmap |= bit
		out.slots = slices.Insert(out.slots, i, slot[V]{hash: l.hash, leaf: l})
		return out, true
	}
	s := &out.slots[i]
	switch {
	case s.child != nil:
		child, added := s.child.set(l, shift+bitsPerLevel)
		s.child = child
		return out, added
	case s.hash == l.hash || shift >= maxShift:
		chain, added := replaceInChain(s.leaf, l)
		s.leaf = chain
		return out, added
	}
	// Another hash sits here: push both a level down.
	var child *node[V]
	for old := s.leaf; old != nil; old = old.next {
		child, _ = child.set(&leaf[V]{key: old.key, hash: old.hash, val: old.val}, shift+bitsPerLevel)
	}
	child, added := child.set(l, shift+bitsPerLevel)
	*s = slot[V]{child: child}
	return out, added
}

// replaceInChain returns a fresh chain: l first, then the other leaves of
// chain except the one with l's key, and whether l's key is new.
func replaceInChain[V any](chain, l *leaf[V]) (*leaf[V], bool) {
	var kept []*leaf[V]
	added := true
	for c := chain; c != nil; c = c.next {
		if c.key == l.key {
			added = false
			continue
		}
		kept = append(kept, c)
	}
	return rebuildChain(l, kept), added
}

// rebuildChain makes a fresh chain of first followed by rest.
func rebuildChain[V any](first *leaf[V], rest []*leaf[V]) *leaf[V] {
	var next *leaf[V]
	for i := len(rest) - 1; i >= 0; i-- {
		next = &leaf[V]{key: rest[i].key, hash: rest[i].hash, val: rest[i].val, next: next}
	}
	return &leaf[V]{key: first.key, hash: first.hash, val: first.val, next: next}
}

// Delete returns a map without k.
func (m Map[V]) Delete(k string) Map[V] {
	if m.root == nil {
		return m
	}
	root, removed := m.root.del(k, Hash(m.seed, k), 0)
	if removed {
		m.root = root
		m.len--
	}
	return m
}

// del returns a copy of n without k (nil once it is empty), and whether k
// was there. A level left with a single leaf folds into its parent.
func (n *node[V]) del(k string, h uint64, shift uint) (*node[V], bool) {
	bit := uint32(1) << ((h >> shift) & (fanout - 1))
	if n.bitmap&bit == 0 {
		return n, false
	}
	i := bits.OnesCount32(n.bitmap & (bit - 1))
	s := n.slots[i]
	var repl *slot[V]
	if s.child != nil {
		child, removed := s.child.del(k, h, shift+bitsPerLevel)
		if !removed {
			return n, false
		}
		switch {
		case child == nil:
		case len(child.slots) == 1 && child.slots[0].child == nil:
			repl = &child.slots[0] // fold a lone leaf up
		default:
			repl = &slot[V]{child: child}
		}
	} else {
		var kept []*leaf[V]
		found := false
		for c := s.leaf; c != nil; c = c.next {
			if c.hash == h && c.key == k {
				found = true
				continue
			}
			kept = append(kept, c)
		}
		if !found {
			return n, false
		}
		if len(kept) > 0 {
			repl = &slot[V]{hash: s.hash, leaf: rebuildChain(kept[0], kept[1:])}
		}
	}
	out := &node[V]{bitmap: n.bitmap, slots: slices.Clone(n.slots)}
	if repl != nil {
		out.slots[i] = *repl
		return out, true
	}
	out.bitmap &^= bit
	out.slots = slices.Delete(out.slots, i, i+1)
	if out.bitmap == 0 {
		return nil, true
	}
	return out, true
}

// All calls yield for every key and value, in no particular order, until
// yield returns false.
func (m Map[V]) All(yield func(string, V) bool) {
	m.root.all(yield)
}

func (n *node[V]) all(yield func(string, V) bool) bool {
	if n == nil {
		return true
	}
	for i := range n.slots {
		s := &n.slots[i]
		if s.child != nil {
			if !s.child.all(yield) {
				return false
			}
			continue
		}
		for l := s.leaf; l != nil; l = l.next {
			if !yield(l.key, l.val) {
				return false
			}
		}
	}
	return true
}
