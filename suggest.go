package toolreg

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// maxSuggestions is how many near names an unknown-name result offers.
const maxSuggestions = 3

// Bounds of one suggestion search: however large the registry, an unknown
// name costs a bounded number of candidates.
const (
	maxPosting    = 64  // a token shared by more names adds none of them
	maxCandidates = 256 // candidates scored in all
)

// notFoundMessage is the model's answer to a name it may not call: the same
// text whether the name does not exist or the caller's Access does not
// reach it, and suggestions drawn only from what that Access reaches.
func (r *Registry) notFoundMessage(s *snapshot, name string, a *Access) string {
	msg := "unknown tool " + quote(name)
	near := r.suggest(s, name, a)
	if len(near) == 0 {
		return msg
	}
	quoted := make([]string, len(near))
	for i, n := range near {
		quoted[i] = quote(n)
	}
	return msg + "; did you mean " + strings.Join(quoted, ", ") + "?"
}

// nameIndex finds registered names near an unknown one without looking at
// every tool: by lower-case name, by name without separators, and by the
// "_"/"-" tokens of names, typos of a token included. Writers keep it
// current under the registry's lock; readers take its own read lock.
type nameIndex struct {
	mu       sync.RWMutex
	lower    map[string][]*entry // lower-case name
	squashed map[string][]*entry // lower-case name without "_" and "-"
	tokens   map[string]*posting
	byLen    [maxNameLen + 1][]*posting // tokens with a letter, by length: where typos are looked for
}

// maxNameLen is the longest valid tool name.
const maxNameLen = 64

// posting is the set of entries that share a token, with the token's
// character mask, for a cheap bound on how many edits two tokens are apart,
// and its place in byLen (-1: not there).
type posting struct {
	token   string
	mask    uint64
	idx     int
	entries map[*entry]struct{}
}

// charMask sets one bit per distinct character class of s: an edit changes
// at most two bits, so masks more than 2k bits apart mean more than k edits.
func charMask(s string) uint64 {
	var m uint64
	for i := 0; i < len(s); i++ {
		m |= 1 << (s[i] % 64)
	}
	return m
}

func (x *nameIndex) add(e *entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.lower == nil {
		x.lower, x.squashed, x.tokens = map[string][]*entry{}, map[string][]*entry{}, map[string]*posting{}
	}
	x.lower[e.lower] = append(x.lower[e.lower], e)
	x.squashed[e.squashed] = append(x.squashed[e.squashed], e)
	for _, t := range e.tokens {
		p := x.tokens[t]
		if p == nil {
			p = &posting{token: t, mask: charMask(t), idx: -1, entries: map[*entry]struct{}{}}
			x.tokens[t] = p
			if len(t) <= maxNameLen && strings.ContainsFunc(t, isLetter) {
				p.idx = len(x.byLen[len(t)])
				x.byLen[len(t)] = append(x.byLen[len(t)], p)
			}
		}
		p.entries[e] = struct{}{}
	}
}

func (x *nameIndex) remove(e *entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	dropFrom(x.lower, e.lower, e)
	dropFrom(x.squashed, e.squashed, e)
	for _, t := range e.tokens {
		if p := x.tokens[t]; p != nil {
			delete(p.entries, e)
			if len(p.entries) == 0 {
				delete(x.tokens, t)
				x.dropLen(p)
			}
		}
	}
}

// dropLen takes p out of its length bucket, moving the last one into its place.
func (x *nameIndex) dropLen(p *posting) {
	if p.idx < 0 {
		return
	}
	bucket := x.byLen[len(p.token)]
	last := bucket[len(bucket)-1]
	bucket[p.idx], last.idx = last, p.idx
	x.byLen[len(p.token)] = bucket[:len(bucket)-1]
}

func isLetter(r rune) bool { return 'a' <= r && r <= 'z' }

func dropFrom(m map[string][]*entry, k string, e *entry) {
	list := slices.DeleteFunc(m[k], func(x *entry) bool { return x == e })
	if len(list) == 0 {
		delete(m, k)
	} else {
		m[k] = list
	}
}

// candidates gathers, deterministically, the entries that may be near the
// lower-case name q: the same name in another case or without separators; a
// name that q starts with; q with one token corrected (a typo) or dropped;
// every name that shares a token with q, for tokens shared by at most
// maxPosting names (a commoner token says little); and the names sorted
// next to q.
func (x *nameIndex) candidates(q string) []*entry {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var c candidateSet
	x.takeName(q, &c)
	for _, e := range x.squashed[squash(q)] {
		c.take(e)
	}
	for i := len(q) - 1; i > 0; i-- {
		x.takeName(q[:i], &c)
	}
	spans := tokenSpans(q)
	for _, sp := range spans {
		t := q[sp[0]:sp[1]]
		x.takeName(dropSpan(q, sp), &c)
		if x.tokens[t] == nil && len(t) >= 3 {
			for _, v := range x.typosOf(t) {
				x.takeName(q[:sp[0]]+v+q[sp[1]:], &c)
			}
		}
	}
	for _, sp := range spans {
		if p := x.tokens[q[sp[0]:sp[1]]]; p != nil && len(p.entries) <= maxPosting {
			for _, e := range p.sorted() {
				c.take(e)
			}
		}
	}
	return c.distinct()
}

func (x *nameIndex) takeName(name string, c *candidateSet) {
	for _, e := range x.lower[name] {
		c.take(e)
	}
}

// tokenSpans returns the byte ranges of q's "_"/"-" tokens.
func tokenSpans(q string) [][2]int {
	var spans [][2]int
	start := -1
	for i := 0; i <= len(q); i++ {
		if i == len(q) || q[i] == '_' || q[i] == '-' {
			if start >= 0 {
				spans = append(spans, [2]int{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return spans
}

// dropSpan removes one token and the separator before it (or after it, for
// the first token).
func dropSpan(q string, sp [2]int) string {
	switch {
	case sp[0] > 0:
		return q[:sp[0]-1] + q[sp[1]:]
	case sp[1] < len(q):
		return q[sp[1]+1:]
	}
	return ""
}

// typosOf returns the known tokens a typo away from t, in a stable order.
func (x *nameIndex) typosOf(t string) []string {
	k, mask := typoBudget(t), charMask(t)
	var out []string
	for n := max(1, len(t)-k); n <= min(maxNameLen, len(t)+k); n++ {
		for _, p := range x.byLen[n] {
			if bits.OnesCount64(p.mask^mask) <= 2*k && withinEdits(p.token, t, k) {
				out = append(out, p.token)
			}
		}
	}
	slices.Sort(out)
	if len(out) > maxTypos {
		out = out[:maxTypos]
	}
	return out
}

// maxTypos bounds the corrections tried for one token.
const maxTypos = 16

// sorted returns the posting's entries by name.
func (p *posting) sorted() []*entry {
	out := make([]*entry, 0, len(p.entries))
	for e := range p.entries {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *entry) int { return strings.Compare(a.name(), b.name()) })
	return out
}

// candidateSet collects candidates up to maxCandidates.
type candidateSet struct {
	out []*entry
}

func (c *candidateSet) full() bool { return len(c.out) >= maxCandidates }

func (c *candidateSet) take(e *entry) {
	if !c.full() {
		c.out = append(c.out, e)
	}
}

// distinct drops repeated candidates, keeping the first of each.
func (c *candidateSet) distinct() []*entry {
	seen := make(map[*entry]struct{}, len(c.out))
	return slices.DeleteFunc(c.out, func(e *entry) bool {
		_, dup := seen[e]
		seen[e] = struct{}{}
		return dup
	})
}

func typoBudget(t string) int {
	if len(t) <= 4 {
		return 1
	}
	return 2
}

// suggest ranks the names near name that a reaches: a case-insensitive
// match counts most, then a substring either way, then a typo (at most two
// edits), then each shared "_"/"-" token. A name that cannot be valid gets
// no search.
func (r *Registry) suggest(s *snapshot, name string, a *Access) []string {
	if !validName(name) {
		return nil
	}
	type scored struct {
		name  string
		score int
	}
	lower := strings.ToLower(name)
	tokens := nameTokens(lower)
	var found []scored
	for _, e := range append(r.names.candidates(lower), s.neighbours(name, lower)...) {
		if e.name() == name || s.lookup(e.name()) != e {
			continue // the name itself, or no longer in this snapshot
		}
		score := likeness(e, lower, tokens)
		if score == 0 {
			continue
		}
		if out, _ := r.reach(e, a); out != reached {
			continue
		}
		found = append(found, scored{e.name(), score})
	}
	slices.SortFunc(found, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.name, b.name))
	})
	out := make([]string, 0, maxSuggestions)
	for _, f := range found {
		if len(out) == maxSuggestions {
			break
		}
		if !slices.Contains(out, f.name) {
			out = append(out, f.name)
		}
	}
	return out
}

// maxNeighbours is how many names on each side of an unknown name's place
// in the sorted order are looked at: names that share its prefix.
const maxNeighbours = 8

// neighbours returns the tools sorted next to name and to its lower-case
// form: a typo late in a name keeps it near its intended place.
func (s *snapshot) neighbours(name, lower string) []*entry {
	var out []*entry
	for _, q := range []string{name, lower} {
		n := 0
		s.sorted.Before(q, func(e *entry) bool { out = append(out, e); n++; return n < maxNeighbours })
		n = 0
		s.sorted.From(q, func(e *entry) bool { out = append(out, e); n++; return n < maxNeighbours })
	}
	return out
}

// likeness scores a candidate against the lower-case query and its tokens.
func likeness(e *entry, lower string, tokens []string) int {
	cand := e.lower
	score := 0
	switch {
	case cand == lower:
		score += 10
	case strings.Contains(cand, lower) || strings.Contains(lower, cand) || e.squashed == squash(lower):
		score += 3
	case len(lower) >= 3 && withinEdits(cand, lower, 2):
		score += 2 // a typo
	}
	for _, t := range e.tokens {
		if slices.Contains(tokens, t) {
			score++
		}
	}
	return score
}

func nameTokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' })
}

// squash drops the separators of a lower-case name.
func squash(s string) string {
	if !strings.ContainsAny(s, "_-") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '_' && s[i] != '-' {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// withinEdits reports whether the byte strings a and b (at most 64 bytes
// each, as valid names are) are at most k edits apart, an edit being an
// insertion, a deletion, a substitution or the swap of two neighbours. It
// allocates nothing.
func withinEdits(a, b string, k int) bool {
	if len(a) > maxNameLen || len(b) > maxNameLen {
		return false
	}
	if d := len(a) - len(b); d > k || -d > k {
		return false
	}
	var rows [3][maxNameLen + 1]int
	prev2, prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > k {
			return false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)] <= k
}
