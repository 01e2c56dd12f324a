package toolsearch

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
)

// FieldWeights sets how much a match in each part of a tool definition
// counts, relative to the others, in the BM25F ranking. A zero weight
// ignores that part. See [WithFieldWeights].
type FieldWeights struct {
	Name                  float64
	Description           float64
	ParameterNames        float64
	ParameterDescriptions float64
}

// defaultFieldWeights are the weights used unless [WithFieldWeights] sets
// others: a tool's name says most about it, its description next.
var defaultFieldWeights = FieldWeights{Name: 3, Description: 1, ParameterNames: 0.5, ParameterDescriptions: 0.4}

// BM25F parameters. k1 saturates repeated terms early: a definition that
// repeats "file" ten times is not ten times about files. b normalizes by
// field length, less for names, which are short and all alike.
const k1 = 1.2

var fieldB = [numFields]float64{fieldName: 0.3, fieldDescription: 0.75, fieldParamNames: 0.5, fieldParamDescriptions: 0.75}

// Weights of the ways a query term reaches a term of the index, relative to
// an exact match.
const (
	weightSynonym  = 0.5
	weightTypo1    = 0.7 // one edit
	weightTypo2    = 0.4 // two edits
	weightPrefix   = 0.4 // "repo" for "repository"
	maxTypoTerms   = 3   // per query term
	maxPrefixTerm  = 3   // per query term
	maxQueryTerms  = 32  // terms of a query that count; the rest is ignored
	maxTypoLookups = 8   // query terms per query that typo tolerance is tried for
	minPrefixLen   = 3   // runes
)

// variant is one reading of a query term: the index terms it stands for
// (several for a phrase synonym such as "pull request") and how much a
// match counts.
type variant struct {
	terms  []*term
	weight float64
	shared bool // an exact or synonym reading: scored with the group's idf
}

// group holds the readings of one query term. A document scores the best
// of them, so a term that is both exact and a synonym is not counted twice.
type group []variant

// rankConfig is what the ranking reads from the options.
type rankConfig struct {
	weights  [numFields]float64
	synonyms synonymTable
	typos    bool
}

// expand reads the terms of a query against the vocabulary.
func (e *engine) expand(terms []queryTerm, rc *rankConfig) []group {
	var groups []group
	seen := map[string]bool{}
	typoLookups := 0
	for _, qt := range terms {
		q := qt.text
		if seen[q] {
			continue
		}
		seen[q] = true
		if len(seen) > maxQueryTerms {
			break
		}
		var g group
		add := func(w float64, shared bool, ts ...*term) {
			for i := range g {
				if len(g[i].terms) == len(ts) && slices.Equal(g[i].terms, ts) {
					g[i].weight = max(g[i].weight, w)
					g[i].shared = g[i].shared || shared
					return
				}
			}
			g = append(g, variant{terms: ts, weight: w, shared: shared})
		}
		exact := e.vocab[q]
		if exact != nil {
			add(1, true, exact)
		}
		for _, seq := range rc.synonyms[q] {
			ts := make([]*term, 0, len(seq))
			for _, s := range seq {
				if t := e.vocab[s]; t != nil {
					ts = append(ts, t)
				}
			}
			if len(ts) == len(seq) {
				add(weightSynonym, true, ts...)
			}
		}
		if exact == nil && rc.typos && typoLookups < maxTypoLookups {
			typoLookups++
			for _, c := range e.typoCandidates(q, qt.typed) {
				add(c.weight, false, c.t)
			}
		}
		if utf8.RuneCountInString(q) >= minPrefixLen {
			for _, t := range e.prefixCandidates(q) {
				add(weightPrefix, false, t)
			}
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

type weighted struct {
	t      *term
	weight float64
	df     int
}

// typoCandidates returns up to maxTypoTerms terms near q, nearest and most
// common first; typed is the length of the word q was read from.
func (e *engine) typoCandidates(q string, typed int) []weighted {
	var out []weighted
	e.typos.lookup(q, typed, func(t *term, dist int) {
		w := weightTypo1
		if dist > 1 {
			w = weightTypo2
		}
		out = append(out, weighted{t: t, weight: w, df: len(t.postings)})
	})
	slices.SortFunc(out, byWeightThenDF)
	return out[:min(len(out), maxTypoTerms)]
}

// prefixCandidates returns up to maxPrefixTerm terms that q is a prefix
// of, the most common first.
func (e *engine) prefixCandidates(q string) []*term {
	var cands []weighted
	e.withPrefix(q, func(t *term) { cands = append(cands, weighted{t: t, df: len(t.postings)}) })
	slices.SortFunc(cands, byWeightThenDF)
	out := make([]*term, 0, min(len(cands), maxPrefixTerm))
	for _, c := range cands[:min(len(cands), maxPrefixTerm)] {
		out = append(out, c.t)
	}
	return out
}

func byWeightThenDF(a, b weighted) int {
	switch {
	case a.weight != b.weight:
		if a.weight > b.weight {
			return -1
		}
		return 1
	case a.df != b.df:
		return b.df - a.df
	}
	if a.t.text < b.t.text {
		return -1
	}
	return 1
}

// scratch holds the per-document accumulators of one query. Entries are
// zero between queries; touched lists say which to reset.
type scratch struct {
	total, best, acc []float64
	named, bestNamed []float64 // name terms matched, per reading and best
	cover            []float64 // name terms matched, per query
	touched, gTouch  []int32
	vTouch           []int32
	cands, top       []candidate
}

func (s *scratch) fit(n int) {
	if len(s.total) < n {
		s.total = make([]float64, n)
		s.best = make([]float64, n)
		s.acc = make([]float64, n)
		s.named = make([]float64, n)
		s.bestNamed = make([]float64, n)
		s.cover = make([]float64, n)
	}
}

// score adds the BM25F score of groups to s.total for every document that
// matches, and lists those documents in s.touched.
//
// The readings of a query term that mean the same (the term and its
// synonyms) share one idf, that of the most common of them, as if they
// were one term: otherwise a rare synonym ("make") would outweigh the word
// most tools use ("create"). A document then scores the best reading of
// each query term, and the sum over the query's terms is raised by the part
// of the tool's name the query covers, so that "read file" ranks read_file
// above google_drive_read_file.
func (e *engine) score(groups []group, s *scratch) {
	s.fit(len(e.docs))
	if e.live == 0 {
		return
	}
	n := float64(e.live)
	idf := func(df int) float64 {
		return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
	}
	for _, g := range groups {
		sharedDF := 0
		for _, v := range g {
			if v.shared {
				for _, t := range v.terms {
					sharedDF = max(sharedDF, len(t.postings))
				}
			}
		}
		for _, v := range g {
			for _, t := range v.terms {
				w := idf(len(t.postings))
				if v.shared {
					w = idf(sharedDF)
				}
				w *= v.weight
				for _, p := range t.postings {
					if p.sat == 0 {
						continue
					}
					if s.acc[p.doc] == 0 {
						s.vTouch = append(s.vTouch, p.doc)
					}
					s.acc[p.doc] += w * float64(p.sat)
					if p.tf[fieldName] > 0 {
						s.named[p.doc] += float64(p.tf[fieldName]) * min(v.weight, 1)
					}
				}
			}
			for _, d := range s.vTouch {
				if s.best[d] == 0 {
					s.gTouch = append(s.gTouch, d)
				}
				if s.acc[d] > s.best[d] {
					s.best[d] = s.acc[d]
					s.bestNamed[d] = s.named[d]
				}
				s.acc[d] = 0
				s.named[d] = 0
			}
			s.vTouch = s.vTouch[:0]
		}
		for _, d := range s.gTouch {
			if s.total[d] == 0 {
				s.touched = append(s.touched, d)
			}
			s.total[d] += s.best[d]
			s.cover[d] += s.bestNamed[d]
			s.best[d] = 0
			s.bestNamed[d] = 0
		}
		s.gTouch = s.gTouch[:0]
	}
	for _, d := range s.touched {
		if l := e.nameLens[d]; l > 0 {
			s.total[d] *= 1 + nameBonus*min(s.cover[d]/float64(l), 1)
		}
		s.cover[d] = 0
	}
}

// nameBonus is how much a query that covers a tool's whole name raises its
// score (0.5: by half).
const nameBonus = 0.5

// candidate is a scored document; def is its index in the caller's list of
// allowed definitions, or -1 while that is not known.
type candidate struct {
	doc   int32
	def   int32
	score float64
}

// better orders candidates best first, ties by name.
func (e *engine) better(a, b candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return e.names[a.doc] < e.names[b.doc]
}

// best returns the n best documents of the last score that allowed (sorted
// by name) holds, best first, and resets s for the next query.
//
// When allowed is shorter than the list of matching documents, it is walked
// and every candidate is known to be allowed. Otherwise the best k matches
// are selected and looked up in allowed; if fewer than n pass, k grows. An
// Access that reaches most tools thus costs one selection of n, and one
// that reaches few costs a walk of the few.
func (e *engine) best(s *scratch, allowed []toolreg.Definition, n int) []candidate {
	n = max(n, 1)
	cands := s.cands[:0]
	if len(allowed) < len(s.touched) {
		for i, def := range allowed {
			if id, ok := e.byName[def.Function.Name]; ok && usable(s.total[id]) {
				cands = append(cands, candidate{doc: id, def: int32(i), score: s.total[id]})
			}
		}
	} else {
		for _, id := range s.touched {
			if usable(s.total[id]) {
				cands = append(cands, candidate{doc: id, def: -1, score: s.total[id]})
			}
		}
	}
	for _, id := range s.touched {
		s.total[id] = 0
	}
	s.touched = s.touched[:0]
	s.cands = cands

	var out []candidate
	for k := n; ; k *= 4 {
		top := e.topK(cands, k, s)
		out = out[:0]
		for _, c := range top {
			if c.def < 0 {
				i, ok := slices.BinarySearchFunc(allowed, e.names[c.doc], func(d toolreg.Definition, name string) int {
					return strings.Compare(d.Function.Name, name)
				})
				if !ok {
					continue
				}
				c.def = int32(i)
			}
			if out = append(out, c); len(out) == n {
				return out
			}
		}
		if k >= len(cands) {
			return out
		}
	}
}

func usable(score float64) bool {
	return score > 0 && !math.IsInf(score, 0) && !math.IsNaN(score)
}

// topK returns the k best of cands, best first, in s.top. It keeps a heap
// of the best k seen so far, worst at the root, so that most candidates
// cost one comparison.
func (e *engine) topK(cands []candidate, k int, s *scratch) []candidate {
	h := s.top[:0]
	worse := func(a, b candidate) bool { return e.better(b, a) }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			m := l
			if r := l + 1; r < len(h) && worse(h[r], h[l]) {
				m = r
			}
			if !worse(h[m], h[i]) {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for _, c := range cands {
		switch {
		case len(h) < k:
			h = append(h, c)
			for i := len(h) - 1; i > 0; { // up
				p := (i - 1) / 2
				if !worse(h[i], h[p]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
		case e.better(c, h[0]):
			h[0] = c
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b candidate) int {
		if e.better(a, b) {
			return -1
		}
		return 1
	})
	s.top = h
	return h
}
