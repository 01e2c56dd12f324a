package toolsearch

import (
	"hash/maphash"
	"slices"
	"unicode/utf8"
)

// A typo index finds the terms of the vocabulary within a small edit
// distance of a misspelled query term, without scanning the vocabulary.
//
// It stores, for every term of at least minTypoRunes-1 runes (a stem may
// be a rune shorter than the word typed), the hashes of
// the term with one rune deleted (symmetric deletion): two words one
// substitution, insertion, deletion or adjacent swap apart share such a
// deletion, or one is a deletion of the other. A query term is expanded
// with the deletions of its own; every candidate is then checked with the
// true distance, so hash collisions only cost a comparison.
type typoIndex struct {
	seed    maphash.Seed
	deletes map[uint64][]*term
}

// minTypoRunes is the shortest term that typo tolerance applies to: in
// shorter words one edit changes the meaning ("get", "set", "pet").
const minTypoRunes = 4

func newTypoIndex() *typoIndex {
	return &typoIndex{seed: maphash.MakeSeed(), deletes: map[uint64][]*term{}}
}

// add records t and its one-rune deletions.
func (x *typoIndex) add(t *term) {
	if utf8.RuneCountInString(t.text) < minTypoRunes-1 {
		return
	}
	x.insert(x.hash(t.text, "", ""), t)
	forDeletions(t.text, func(prefix, suffix string) {
		x.insert(x.hash(prefix, suffix, ""), t)
	})
}

func (x *typoIndex) insert(h uint64, t *term) {
	x.deletes[h] = append(x.deletes[h], t)
}

// remove forgets what add recorded for t.
func (x *typoIndex) remove(t *term) {
	if utf8.RuneCountInString(t.text) < minTypoRunes-1 {
		return
	}
	x.drop(x.hash(t.text, "", ""), t)
	forDeletions(t.text, func(prefix, suffix string) {
		x.drop(x.hash(prefix, suffix, ""), t)
	})
}

func (x *typoIndex) drop(h uint64, t *term) {
	list := x.deletes[h]
	for i, u := range list {
		if u == t {
			list[i] = list[len(list)-1]
			list[len(list)-1] = nil
			list = list[:len(list)-1]
			break
		}
	}
	if len(list) == 0 {
		delete(x.deletes, h)
	} else {
		x.deletes[h] = list
	}
}

// hash is the hash of a+b+c, computed without joining them.
func (x *typoIndex) hash(a, b, c string) uint64 {
	var h maphash.Hash
	h.SetSeed(x.seed)
	h.WriteString(a)
	h.WriteString(b)
	h.WriteString(c)
	return h.Sum64()
}

// forDeletions calls fn with each way of deleting one rune of s, as the
// parts before and after the deleted rune.
func forDeletions(s string, fn func(prefix, suffix string)) {
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		fn(s[:i], s[i+size:])
		i += size
	}
}

// maxEdits is the number of typos tolerated in a word of n runes: one from
// minTypoRunes, two from eight.
func maxEdits(n int) int {
	switch {
	case n < minTypoRunes:
		return 0
	case n < 8:
		return 1
	}
	return 2
}

// lookup calls fn with each distinct term within maxEdits(typed) of q (q
// itself excluded) and its distance; typed is the length of the word that
// q is the stem of.
//
// Every probe is a hash of pieces of q, looked up in one map that holds
// the terms and their one-rune deletions: q may be a deletion of a term (q
// lacks a rune), a deletion of q may be a term (q has an extra rune) or
// share a deletion with one (a substitution or a swap). For two edits the
// same is done with the deletions of q's deletions, which finds most, not
// all, pairs of edits.
func (x *typoIndex) lookup(q string, typed int, fn func(t *term, dist int)) {
	limit := maxEdits(typed)
	if limit == 0 || utf8.RuneCountInString(q) < minTypoRunes-1 || len(q) > maxTokenBytes {
		return
	}
	var seenArr [16]*term
	seen := seenArr[:0]
	probe := func(h uint64) {
		for _, t := range x.deletes[h] {
			if slices.Contains(seen, t) || t.text == q {
				continue
			}
			seen = append(seen, t)
			if d := editDistance(q, t.text, limit); d <= limit {
				fn(t, d)
			}
		}
	}
	probe(x.hash(q, "", ""))
	// i, j index the runes deleted; the second deletion is after the
	// first, so that each pair is probed once.
	for i := 0; i < len(q); {
		_, si := utf8.DecodeRuneInString(q[i:])
		probe(x.hash(q[:i], q[i+si:], ""))
		if limit >= 2 {
			for j := i + si; j < len(q); {
				_, sj := utf8.DecodeRuneInString(q[j:])
				probe(x.hash(q[:i], q[i+si:j], q[j+sj:]))
				j += sj
			}
		}
		i += si
	}
}

// editDistance returns the optimal string alignment distance between a and
// b (insertions, deletions, substitutions and swaps of adjacent runes), or
// limit+1 as soon as it is known to exceed limit.
func editDistance(a, b string, limit int) int {
	var bufA, bufB [maxTokenBytes]rune
	ra, rb := toRunes(bufA[:0], a), toRunes(bufB[:0], b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	// Three rows of the dynamic programme: two back for swaps. Terms fit
	// the arrays; longer strings get rows of their own.
	var rows [3][maxTokenBytes + 1]int
	var prev2, prev, cur []int
	if len(rb) <= maxTokenBytes {
		prev2, prev, cur = rows[0][:len(rb)+1], rows[1][:len(rb)+1], rows[2][:len(rb)+1]
	} else {
		prev2, prev, cur = make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// toRunes appends the runes of s to dst.
func toRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}
