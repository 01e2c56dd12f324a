package toolsearch

import (
	"math"
	"slices"
	"unicode/utf8"
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
	weightSynonym = 0.5
	weightTypo1   = 0.7 // one edit
	weightTypo2   = 0.4 // two edits
	weightPrefix  = 0.4 // "repo" for "repository"
	maxTypoTerms  = 3   // per query term
	maxPrefixTerm = 3   // per query term
	maxQueryTerms = 32  // terms of a query that count; the rest is ignored
	minPrefixLen  = 3   // runes
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
		if exact == nil && rc.typos {
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
	e.typos.lookup(q, typed, func(s string) *term { return e.vocab[s] }, func(t *term, dist int) {
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
	cands            []candidate
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
func (e *engine) score(groups []group, rc *rankConfig, s *scratch) {
	s.fit(len(e.docs))
	if e.live == 0 {
		return
	}
	n := float64(e.live)
	var norm [numFields]float64 // 1/average length
	for f := range norm {
		if e.sums[f] > 0 {
			norm[f] = n / float64(e.sums[f])
		}
	}
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
					lens := &e.docs[p.doc].lens
					tfw := 0.0
					for f, c := range p.tf {
						if c == 0 {
							continue
						}
						tfw += rc.weights[f] * float64(c) / (1 - fieldB[f] + fieldB[f]*float64(lens[f])*norm[f])
					}
					if tfw == 0 {
						continue
					}
					if s.acc[p.doc] == 0 {
						s.vTouch = append(s.vTouch, p.doc)
					}
					s.acc[p.doc] += w * tfw * (k1 + 1) / (k1 + tfw)
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
		if l := e.docs[d].lens[fieldName]; l > 0 {
			s.total[d] *= 1 + nameBonus*min(s.cover[d]/float64(l), 1)
		}
		s.cover[d] = 0
	}
}

// nameBonus is how much a query that covers a tool's whole name raises its
// score (0.5: by half).
const nameBonus = 0.5

// candidate is a scored document.
type candidate struct {
	doc   int32
	score float64
}

// ranked pops documents from s in order, best first, ties by name; it
// resets s.total as it collects them. next returns false when none is left.
type ranked struct {
	e    *engine
	heap []candidate
}

func (e *engine) rankedFrom(s *scratch) *ranked {
	h := s.cands[:0]
	for _, d := range s.touched {
		if s.total[d] > 0 && !math.IsInf(s.total[d], 0) && !math.IsNaN(s.total[d]) {
			h = append(h, candidate{doc: d, score: s.total[d]})
		}
		s.total[d] = 0
	}
	s.touched = s.touched[:0]
	r := &ranked{e: e, heap: h}
	for i := len(h)/2 - 1; i >= 0; i-- {
		r.down(i)
	}
	s.cands = h
	return r
}

func (r *ranked) before(a, b candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return r.e.docs[a.doc].name < r.e.docs[b.doc].name
}

func (r *ranked) down(i int) {
	h := r.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		best := l
		if rr := l + 1; rr < len(h) && r.before(h[rr], h[l]) {
			best = rr
		}
		if !r.before(h[best], h[i]) {
			return
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
}

func (r *ranked) next() (candidate, bool) {
	if len(r.heap) == 0 {
		return candidate{}, false
	}
	top := r.heap[0]
	last := len(r.heap) - 1
	r.heap[0] = r.heap[last]
	r.heap = r.heap[:last]
	r.down(0)
	return top, true
}
