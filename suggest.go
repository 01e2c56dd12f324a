package toolreg

import (
	"cmp"
	"slices"
	"strings"
	"sync"
)

// maxSuggestions is how many near names an unknown-name result offers.
const maxSuggestions = 3

// Bounds of one suggestion search: however large the registry, an unknown
// name costs a bounded number of candidates.
const (
	maxPosting    = 256  // candidates taken from one token
	maxCandidates = 1024 // candidates scored in all
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
	tokens   map[string]map[*entry]struct{}
}

func (x *nameIndex) add(e *entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.lower == nil {
		x.lower, x.squashed, x.tokens = map[string][]*entry{}, map[string][]*entry{}, map[string]map[*entry]struct{}{}
	}
	x.lower[e.lower] = append(x.lower[e.lower], e)
	sq := squash(e.lower)
	x.squashed[sq] = append(x.squashed[sq], e)
	for _, t := range e.tokens {
		set := x.tokens[t]
		if set == nil {
			set = map[*entry]struct{}{}
			x.tokens[t] = set
		}
		set[e] = struct{}{}
	}
}

func (x *nameIndex) remove(e *entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	dropFrom(x.lower, e.lower, e)
	dropFrom(x.squashed, squash(e.lower), e)
	for _, t := range e.tokens {
		if set := x.tokens[t]; set != nil {
			delete(set, e)
			if len(set) == 0 {
				delete(x.tokens, t)
			}
		}
	}
}

func dropFrom(m map[string][]*entry, k string, e *entry) {
	list := slices.DeleteFunc(m[k], func(x *entry) bool { return x == e })
	if len(list) == 0 {
		delete(m, k)
	} else {
		m[k] = list
	}
}

// candidates gathers the entries that may be near the lower-case name q.
func (x *nameIndex) candidates(q string) []*entry {
	x.mu.RLock()
	defer x.mu.RUnlock()
	seen := map[*entry]struct{}{}
	var out []*entry
	take := func(e *entry) {
		if _, ok := seen[e]; !ok && len(out) < maxCandidates {
			seen[e] = struct{}{}
			out = append(out, e)
		}
	}
	for _, e := range x.lower[q] {
		take(e)
	}
	for _, e := range x.squashed[squash(q)] {
		take(e)
	}
	qt := nameTokens(q)
	for _, t := range qt {
		x.takePosting(t, take)
	}
	for vt := range x.tokens {
		if len(out) >= maxCandidates {
			break
		}
		for _, t := range qt {
			if vt != t && len(t) >= 3 && withinEdits(vt, t, typoBudget(t)) {
				x.takePosting(vt, take)
				break
			}
		}
	}
	return out
}

func (x *nameIndex) takePosting(t string, take func(*entry)) {
	n := 0
	for e := range x.tokens[t] {
		if n++; n > maxPosting {
			return
		}
		take(e)
	}
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
	for _, e := range r.names.candidates(lower) {
		if e.name() == name || s.byName[e.name()] != e {
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
	for i := 0; i < len(found) && i < maxSuggestions; i++ {
		out = append(out, found[i].name)
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
	case strings.Contains(cand, lower) || strings.Contains(lower, cand) || squash(cand) == squash(lower):
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
	return strings.NewReplacer("_", "", "-", "").Replace(s)
}

// withinEdits reports whether the byte strings a and b (at most 64 bytes
// each, as valid names are) are at most k edits apart. It allocates nothing.
func withinEdits(a, b string, k int) bool {
	if len(a) > 64 || len(b) > 64 {
		return false
	}
	if d := len(a) - len(b); d > k || -d > k {
		return false
	}
	var prevBuf, curBuf [65]int
	prev, cur := prevBuf[:len(b)+1], curBuf[:len(b)+1]
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
			best = min(best, cur[j])
		}
		if best > k {
			return false
		}
		prev, cur = cur, prev
	}
	return prev[len(b)] <= k
}
