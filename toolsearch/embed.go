package toolsearch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/toolreg/toolreg"
)

// Embedder turns texts into vectors whose cosine similarity says how close
// their meanings are: a host plugs its model provider's embeddings here to
// make the ranking hybrid ([WithEmbedder]). The library ships no model.
//
// Embed returns one vector per text, in order, all of one dimension. The
// index calls it with batches of tool texts (at most [WithEmbedBatch] at a
// time) and with one query at a time, never while holding a lock, and it
// may call it from several goroutines at once. A vector of the wrong
// dimension or with a NaN or infinite component is ignored, as is every
// vector of a call that fails or returns the wrong number of vectors.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// rrfK is the constant of reciprocal rank fusion: a tool's fused score is
// the sum over the rankings of 1/(rrfK + rank). 60 is the usual choice; it
// keeps one ranking's first place from drowning the other's.
const rrfK = 60

// maxEmbedTextBytes bounds the text embedded for one tool.
const maxEmbedTextBytes = 2048

// hybrid fuses the lexical ranking with the embedder's.
func (ix *Index) hybrid(ctx context.Context, allowed []toolreg.Definition, query string, n int) []Match {
	depth := max(4*n, 20) // how deep each ranking is read for the fusion
	lex := ix.lexical(allowed, query, depth)
	if err := ix.embedMissing(ctx, false); err != nil {
		ix.cfg.logger.Warn("toolsearch: embedding tools failed; ranking lexically", "err", err)
	}
	qv, err := ix.embedOne(ctx, query)
	if err != nil {
		ix.cfg.logger.Warn("toolsearch: embedding the query failed; ranking lexically", "err", err)
		return lex[:min(len(lex), n)]
	}
	sem := ix.semantic(allowed, qv, depth)

	fused := map[string]*Match{}
	var order []*Match
	addRanks := func(ms []Match) {
		for rank, m := range ms {
			f := fused[m.Name]
			if f == nil {
				f = &Match{Name: m.Name, Definition: m.Definition}
				fused[m.Name] = f
				order = append(order, f)
			}
			f.Score += 1 / float64(rrfK+rank+1)
		}
	}
	addRanks(lex)
	addRanks(sem)
	slices.SortStableFunc(order, func(a, b *Match) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	out := make([]Match, 0, min(n, len(order)))
	for _, m := range order[:min(n, len(order))] {
		out = append(out, *m)
	}
	return out
}

// semantic returns the n tools of allowed whose vectors are closest to qv.
// Tools without a vector are left out.
func (ix *Index) semantic(allowed []toolreg.Definition, qv []float32, n int) []Match {
	type scored struct {
		i     int
		score float64
	}
	var best []scored
	ix.mu.RLock()
	e := ix.eng
	for i, def := range allowed {
		id, ok := e.byName[def.Function.Name]
		if !ok {
			continue
		}
		vec := e.docs[id].vec
		if len(vec) != len(qv) {
			continue
		}
		var dot float64
		for j, x := range vec {
			dot += float64(x) * float64(qv[j])
		}
		best = append(best, scored{i, dot})
	}
	ix.mu.RUnlock()
	slices.SortFunc(best, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.i - b.i
	})
	out := make([]Match, 0, min(n, len(best)))
	for _, s := range best[:min(n, len(best))] {
		def := allowed[s.i]
		out = append(out, Match{Name: def.Function.Name, Score: s.score, Definition: def})
	}
	return out
}

// Embed computes the vectors of every indexed tool that has none, and
// returns the first error of the embedder. Searches do this themselves;
// a host calls Embed to pay for it at startup instead, and to see errors.
// Without an embedder it only brings the index up to date.
func (ix *Index) Embed(ctx context.Context) error {
	ix.Refresh()
	return ix.embedMissing(ctx, true)
}

// embedMissing embeds the tools that have no vector, in batches, calling
// the embedder with no lock held. One goroutine does it at a time: a search
// that finds another at work goes on with the vectors there are, unless
// wait is set.
func (ix *Index) embedMissing(ctx context.Context, wait bool) error {
	if ix.cfg.embedder == nil {
		return nil
	}
	if wait {
		ix.embedMu.Lock()
	} else if !ix.embedMu.TryLock() {
		return nil
	}
	defer ix.embedMu.Unlock()
	type job struct {
		id   int32
		hash contentHash
	}
	rounds := -1
	for {
		var jobs []job
		var texts []string
		ix.mu.RLock()
		if rounds < 0 {
			rounds = ix.eng.live/ix.cfg.embedBatch + 2 // bounds the work under a churning registry
		}
		for id := range ix.eng.docs {
			d := &ix.eng.docs[id]
			if d.live && d.vec == nil && !d.noVec {
				jobs = append(jobs, job{int32(id), d.hash})
				texts = append(texts, embedText(d.def))
				if len(jobs) == ix.cfg.embedBatch {
					break
				}
			}
		}
		ix.mu.RUnlock()
		if len(jobs) == 0 || rounds == 0 {
			return nil
		}
		rounds--
		vecs, err := ix.embed(ctx, texts)
		if err != nil {
			return err
		}
		ix.mu.Lock()
		for i, j := range jobs {
			d := &ix.eng.docs[j.id]
			if !d.live || d.hash != j.hash {
				continue // replaced meanwhile; embedded in a later round
			}
			if vecs[i] == nil {
				d.noVec = true
			} else {
				d.vec = vecs[i]
			}
		}
		ix.mu.Unlock()
	}
}

// embedOne embeds a query.
func (ix *Index) embedOne(ctx context.Context, text string) ([]float32, error) {
	vecs, err := ix.embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	if vecs[0] == nil {
		return nil, errors.New("toolsearch: the embedder returned no usable vector for the query")
	}
	return vecs[0], nil
}

// embed calls the embedder, containing a panic, and checks its answer:
// one vector per text, or an error. Each vector is normalized to unit
// length; a vector that is empty, all zero or has a NaN or infinite
// component is returned as nil. (A vector whose dimension differs from the
// query's is skipped when ranking.)
func (ix *Index) embed(ctx context.Context, texts []string) (vecs [][]float32, err error) {
	defer func() {
		if p := recover(); p != nil {
			vecs, err = nil, fmt.Errorf("toolsearch: the embedder panicked: %v", p)
		}
	}()
	vecs, err = ix.cfg.embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("toolsearch: embedder: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("toolsearch: the embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		out[i] = normalized(v)
	}
	return out, nil
}

// normalized returns a unit-length copy of v, or nil when v has no
// direction or a component that is not a finite number.
func normalized(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		sum += f * f
	}
	if sum == 0 || math.IsInf(sum, 0) {
		return nil
	}
	norm := math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / norm)
	}
	return out
}

// embedText is what is embedded for a tool: its name as words, its
// description and its parameters, cut to maxEmbedTextBytes.
func embedText(def toolreg.Definition) string {
	fn := def.Function
	var b strings.Builder
	b.WriteString(strings.NewReplacer("_", " ", "-", " ").Replace(fn.Name))
	b.WriteString(": ")
	b.WriteString(fn.Description)
	names := slices.Sorted(maps.Keys(fn.Parameters.Properties))
	for _, name := range names {
		if b.Len() >= maxEmbedTextBytes {
			break
		}
		b.WriteString("\n")
		b.WriteString(name)
		if schema, ok := fn.Parameters.Properties[name].(map[string]any); ok {
			if s, ok := schema["description"].(string); ok {
				b.WriteString(": ")
				b.WriteString(s)
			}
		}
	}
	s := b.String()
	if len(s) > maxEmbedTextBytes {
		s = strings.ToValidUTF8(s[:maxEmbedTextBytes], "")
	}
	return s
}
