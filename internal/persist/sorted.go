package persist

import (
	"slices"
	"strings"
)

// chunkSize is how many items a chunk of a Sorted holds at most; a chunk
// that grows past it splits in two.
const chunkSize = 256

// Sorted is an immutable list of items kept sorted by a string key, stored
// in chunks so that an update copies one chunk and the chunk index, never
// the whole list. The zero Sorted is empty; give it a key func with
// NewSorted. Methods that change it return the new version.
type Sorted[T any] struct {
	key    func(T) string
	chunks [][]T // each sorted and non-empty; together sorted
	len    int
}

// NewSorted returns an empty list ordered by key.
func NewSorted[T any](key func(T) string) Sorted[T] {
	return Sorted[T]{key: key}
}

// Len returns the number of items.
func (s Sorted[T]) Len() int { return s.len }

// find returns the chunk that holds, or would hold, k, and the position in
// it, and whether an item with key k is there.
func (s Sorted[T]) find(k string) (ci, i int, found bool) {
	ci, _ = slices.BinarySearchFunc(s.chunks, k, func(c []T, k string) int {
		return strings.Compare(s.key(c[len(c)-1]), k)
	})
	if ci == len(s.chunks) {
		if ci == 0 {
			return 0, 0, false
		}
		ci-- // after the last item: append to the last chunk
		return ci, len(s.chunks[ci]), false
	}
	i, found = slices.BinarySearchFunc(s.chunks[ci], k, func(t T, k string) int { return strings.Compare(s.key(t), k) })
	return ci, i, found
}

// Upsert returns a list with item in its place, replacing an item with the
// same key.
func (s Sorted[T]) Upsert(item T) Sorted[T] {
	k := s.key(item)
	if len(s.chunks) == 0 {
		s.chunks = [][]T{{item}}
		s.len = 1
		return s
	}
	ci, i, found := s.find(k)
	c := s.chunks[ci]
	var nc []T
	if found {
		nc = slices.Clone(c)
		nc[i] = item
	} else {
		nc = make([]T, 0, len(c)+1)
		nc = append(append(append(nc, c[:i]...), item), c[i:]...)
		s.len++
	}
	chunks := make([][]T, 0, len(s.chunks)+1)
	chunks = append(chunks, s.chunks[:ci]...)
	if len(nc) > chunkSize {
		half := len(nc) / 2
		chunks = append(chunks, nc[:half:half], nc[half:])
	} else {
		chunks = append(chunks, nc)
	}
	s.chunks = append(chunks, s.chunks[ci+1:]...)
	return s
}

// Delete returns a list without the item whose key is k.
func (s Sorted[T]) Delete(k string) Sorted[T] {
	if len(s.chunks) == 0 {
		return s
	}
	ci, i, found := s.find(k)
	if !found {
		return s
	}
	c := s.chunks[ci]
	nc := append(append(make([]T, 0, len(c)-1), c[:i]...), c[i+1:]...)
	chunks := make([][]T, 0, len(s.chunks))
	chunks = append(chunks, s.chunks[:ci]...)
	if ci > 0 && len(nc)+len(chunks[ci-1]) <= chunkSize/2 {
		chunks[ci-1] = slices.Concat(chunks[ci-1], nc) // keep chunks from thinning out
	} else if len(nc) > 0 {
		chunks = append(chunks, nc)
	}
	s.chunks = append(chunks, s.chunks[ci+1:]...)
	s.len--
	return s
}

// All calls yield for every item in key order until yield returns false.
func (s Sorted[T]) All(yield func(T) bool) {
	for _, c := range s.chunks {
		for _, t := range c {
			if !yield(t) {
				return
			}
		}
	}
}

// From calls yield for the items whose key is k or after it, in key order,
// until yield returns false.
func (s Sorted[T]) From(k string, yield func(T) bool) {
	if len(s.chunks) == 0 {
		return
	}
	ci, i, _ := s.find(k)
	for ; ci < len(s.chunks); ci, i = ci+1, 0 {
		for _, t := range s.chunks[ci][i:] {
			if !yield(t) {
				return
			}
		}
	}
}

// Before calls yield for the items whose key is before k, nearest first,
// until yield returns false.
func (s Sorted[T]) Before(k string, yield func(T) bool) {
	if len(s.chunks) == 0 {
		return
	}
	ci, i, _ := s.find(k)
	for ; ci >= 0; ci-- {
		c := s.chunks[ci]
		if i > len(c) {
			i = len(c)
		}
		for j := i - 1; j >= 0; j-- {
			if !yield(c[j]) {
				return
			}
		}
		if ci > 0 {
			i = len(s.chunks[ci-1])
		}
	}
}
