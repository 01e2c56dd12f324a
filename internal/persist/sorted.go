package persist

import (
	"slices"
	"strings"
)

// maxNode is how many items a leaf, or children an inner node, holds at
// most; a node that grows past it splits in two.
const maxNode = 64

// Sorted is an immutable list of items kept sorted by a string key: a B+tree
// whose inner nodes remember the largest key below each child. An update
// copies one node per level (a few hundred bytes at any size) and leaves the
// old version intact. The zero Sorted is empty; give it a key func with
// NewSorted. Methods that change it return the new version.
type Sorted[T any] struct {
	key  func(T) string
	root *bnode[T]
	len  int
}

// bnode is a leaf (items) or an inner node (kids). maxKey is the largest key
// below it, kept in the node so that an update copies a parent's child
// pointers, not their keys. Nodes are never empty.
type bnode[T any] struct {
	items  []T
	kids   []*bnode[T]
	maxKey string
}

func (n *bnode[T]) leaf() bool { return n.kids == nil }

// NewSorted returns an empty list ordered by key.
func NewSorted[T any](key func(T) string) Sorted[T] {
	return Sorted[T]{key: key}
}

// Len returns the number of items.
func (s Sorted[T]) Len() int { return s.len }

// Upsert returns a list with item in its place, replacing an item with the
// same key.
func (s Sorted[T]) Upsert(item T) Sorted[T] {
	k := s.key(item)
	if s.root == nil {
		s.root = s.leafOf([]T{item})
		s.len = 1
		return s
	}
	left, right, added := s.upsert(s.root, item, k)
	if right != nil {
		left = &bnode[T]{kids: []*bnode[T]{left, right}, maxKey: right.maxKey}
	}
	s.root = left
	if added {
		s.len++
	}
	return s
}

// upsert returns the copy of n with item in it, split in two when it
// outgrew maxNode (right non-nil), and whether the key is new.
func (s Sorted[T]) upsert(n *bnode[T], item T, k string) (left, right *bnode[T], added bool) {
	if n.leaf() {
		i, found := slices.BinarySearchFunc(n.items, k, func(t T, k string) int { return strings.Compare(s.key(t), k) })
		items := make([]T, 0, len(n.items)+1)
		if found {
			items = append(append(append(items, n.items[:i]...), item), n.items[i+1:]...)
		} else {
			items = append(append(append(items, n.items[:i]...), item), n.items[i:]...)
		}
		left, right = s.splitLeaf(items)
		return left, right, !found
	}
	i := childFor(n, k)
	cl, cr, added := s.upsert(n.kids[i], item, k)
	kids := slices.Clone(n.kids)
	kids[i] = cl
	if cr != nil {
		kids = slices.Insert(kids, i+1, cr)
	}
	if len(kids) <= maxNode {
		return inner(kids), nil, added
	}
	h := len(kids) / 2
	return inner(kids[:h:h]), inner(kids[h:]), added
}

func inner[T any](kids []*bnode[T]) *bnode[T] {
	return &bnode[T]{kids: kids, maxKey: kids[len(kids)-1].maxKey}
}

func (s Sorted[T]) leafOf(items []T) *bnode[T] {
	return &bnode[T]{items: items, maxKey: s.key(items[len(items)-1])}
}

func (s Sorted[T]) splitLeaf(items []T) (left, right *bnode[T]) {
	if len(items) <= maxNode {
		return s.leafOf(items), nil
	}
	h := len(items) / 2
	return s.leafOf(items[:h:h]), s.leafOf(items[h:])
}

// childFor is the child of an inner node that holds, or would hold, k: the
// first whose largest key is k or after it, else the last.
func childFor[T any](n *bnode[T], k string) int {
	i, _ := slices.BinarySearchFunc(n.kids, k, func(c *bnode[T], k string) int { return strings.Compare(c.maxKey, k) })
	return min(i, len(n.kids)-1)
}

// Delete returns a list without the item whose key is k.
func (s Sorted[T]) Delete(k string) Sorted[T] {
	if s.root == nil {
		return s
	}
	root, removed := s.del(s.root, k)
	if !removed {
		return s
	}
	for root != nil && !root.leaf() && len(root.kids) == 1 {
		root = root.kids[0] // a root of one child steps down
	}
	s.root = root
	s.len--
	return s
}

// del returns the copy of n without k (nil once empty), and whether k was
// there.
func (s Sorted[T]) del(n *bnode[T], k string) (*bnode[T], bool) {
	if n.leaf() {
		i, found := slices.BinarySearchFunc(n.items, k, func(t T, k string) int { return strings.Compare(s.key(t), k) })
		if !found {
			return n, false
		}
		if len(n.items) == 1 {
			return nil, true
		}
		items := append(append(make([]T, 0, len(n.items)-1), n.items[:i]...), n.items[i+1:]...)
		return s.leafOf(items), true
	}
	i := childFor(n, k)
	child, removed := s.del(n.kids[i], k)
	if !removed {
		return n, false
	}
	kids := slices.Clone(n.kids)
	if child == nil {
		kids = slices.Delete(kids, i, i+1)
		if len(kids) == 0 {
			return nil, true
		}
	} else {
		kids[i] = child
	}
	return inner(kids), true
}

// All calls yield for every item in key order until yield returns false.
func (s Sorted[T]) All(yield func(T) bool) {
	if s.root != nil {
		all(s.root, yield)
	}
}

func all[T any](n *bnode[T], yield func(T) bool) bool {
	if n.leaf() {
		for _, t := range n.items {
			if !yield(t) {
				return false
			}
		}
		return true
	}
	for _, c := range n.kids {
		if !all(c, yield) {
			return false
		}
	}
	return true
}

// From calls yield for the items whose key is k or after it, in key order,
// until yield returns false.
func (s Sorted[T]) From(k string, yield func(T) bool) {
	if s.root != nil {
		s.from(s.root, k, yield)
	}
}

func (s Sorted[T]) from(n *bnode[T], k string, yield func(T) bool) bool {
	if n.leaf() {
		i, _ := slices.BinarySearchFunc(n.items, k, func(t T, k string) int { return strings.Compare(s.key(t), k) })
		for _, t := range n.items[i:] {
			if !yield(t) {
				return false
			}
		}
		return true
	}
	i, _ := slices.BinarySearchFunc(n.kids, k, func(c *bnode[T], k string) int { return strings.Compare(c.maxKey, k) })
	for j := i; j < len(n.kids); j++ {
		var ok bool
		if j == i {
			ok = s.from(n.kids[j], k, yield)
		} else {
			ok = all(n.kids[j], yield)
		}
		if !ok {
			return false
		}
	}
	return true
}

// Before calls yield for the items whose key is before k, nearest first,
// until yield returns false.
func (s Sorted[T]) Before(k string, yield func(T) bool) {
	if s.root != nil {
		s.before(s.root, k, yield)
	}
}

func (s Sorted[T]) before(n *bnode[T], k string, yield func(T) bool) bool {
	if n.leaf() {
		i, _ := slices.BinarySearchFunc(n.items, k, func(t T, k string) int { return strings.Compare(s.key(t), k) })
		for j := i - 1; j >= 0; j-- {
			if !yield(n.items[j]) {
				return false
			}
		}
		return true
	}
	i := childFor(n, k)
	for j := i; j >= 0; j-- {
		var ok bool
		if j == i {
			ok = s.before(n.kids[j], k, yield)
		} else {
			ok = allReverse(n.kids[j], yield)
		}
		if !ok {
			return false
		}
	}
	return true
}

func allReverse[T any](n *bnode[T], yield func(T) bool) bool {
	if n.leaf() {
		for j := len(n.items) - 1; j >= 0; j-- {
			if !yield(n.items[j]) {
				return false
			}
		}
		return true
	}
	for j := len(n.kids) - 1; j >= 0; j-- {
		if !allReverse(n.kids[j], yield) {
			return false
		}
	}
	return true
}
