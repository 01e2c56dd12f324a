package toolreg

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// maxSuggestions is how many near names an unknown-name result offers.
const maxSuggestions = 3

// notFoundMessage is the model's answer to a name it may not call: the same
// text whether the name does not exist or is outside the caller's groups, and
// suggestions drawn only from what the caller may call.
func (r *Registry) notFoundMessage(s *snapshot, name string, a *Access) string {
	msg := fmt.Sprintf("unknown tool %q", name)
	near := r.suggest(s, name, a)
	if len(near) == 0 {
		return msg
	}
	quoted := make([]string, len(near))
	for i, n := range near {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return msg + "; did you mean " + strings.Join(quoted, ", ") + "?"
}

// suggest ranks callable names by likeness to name: a case-insensitive match
// counts most, then a substring either way, then a typo (at most two edits),
// then each shared "_"/"-" token.
func (r *Registry) suggest(s *snapshot, name string, a *Access) []string {
	type scored struct {
		name  string
		score int
	}
	lower := strings.ToLower(name)
	tokens := nameTokens(lower)
	var found []scored
	for _, e := range s.sorted {
		if e.name() == name {
			continue
		}
		cand := strings.ToLower(e.name())
		score := 0
		if cand == lower {
			score += 10
		} else if strings.Contains(cand, lower) || strings.Contains(lower, cand) {
			score += 3
		} else if len(lower) >= 3 && editDistance(cand, lower) <= 2 {
			score += 2 // a typo
		}
		for _, t := range nameTokens(cand) {
			if slices.Contains(tokens, t) {
				score++
			}
		}
		if score > 0 {
			if out, _ := r.reach(e, a); out != reached {
				continue
			}
			found = append(found, scored{e.name(), score})
		}
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

func nameTokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' })
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
