package toolsearch

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/toolreg/toolreg"
)

// Index ranks the tools of a [toolreg.Registry] against a query, within
// what the caller's [toolreg.Access] reaches, and remembers per session the
// tools a search discovered. Create it with [New]; every method is safe for
// concurrent use.
//
// The index follows the registry lazily: every search compares the
// registry's version with the indexed one and, when it changed, re-indexes
// only the tools whose definition changed (by a hash of their content).
// Registering a thousand tools therefore costs one pass at the next search,
// not a thousand.
type Index struct {
	reg *toolreg.Registry
	cfg config

	mu      sync.RWMutex // guards eng, version, synced, mark and spare
	eng     *engine
	version uint64
	synced  bool
	mark    uint64
	spare   spareVectors

	embedMu  sync.Mutex // one goroutine computes tool vectors at a time
	scratch  sync.Pool  // *scratch
	sessions *sessions
}

// New returns an index of reg's tools configured by opts. It indexes
// nothing until the first search (or [Index.Refresh]), subscribes to
// nothing and starts no goroutine, so it needs no closing. A nil reg is
// read as an empty registry of the index's own.
func New(reg *toolreg.Registry, opts ...Option) *Index {
	if reg == nil {
		reg = toolreg.New()
	}
	cfg := newConfig(opts)
	return &Index{
		reg:      reg,
		cfg:      cfg,
		eng:      newEngine(cfg.rank.weights),
		spare:    spareVectors{max: defaultSpareVectors, byHash: map[contentHash][]float32{}},
		sessions: newSessions(cfg.maxSessions, cfg.maxFound),
	}
}

// Match is one tool found by [Index.Search].
type Match struct {
	Name string
	// Score orders the matches of one search, higher first; it means
	// nothing across searches.
	Score float64
	// Definition is the tool's definition as the registry lists it to the
	// caller's Access. It is shared with the registry: treat it as
	// read-only.
	Definition toolreg.Definition
}

// Search returns up to limit tools that access reaches, best match first
// (ties by name). A limit below 1 means the default of [WithLimits] (5),
// and no more than its maximum (20) are returned.
//
// The query is read as words (see the package documentation): case,
// underscores, hyphens and camelCase do not matter, common word forms,
// synonyms and small typos still match. A query of the form
// "select:name1,name2" returns exactly the named tools that access reaches,
// in the order given. An empty query, or one with no letter or digit,
// matches nothing. Only the first [WithMaxQueryBytes] bytes are read.
//
// With an [Embedder] ([WithEmbedder]), the tools that have no vector yet
// are embedded first, then the query, and the two rankings are fused. ctx
// is passed to the embedder; when it fails, the error is logged and the
// lexical ranking is returned. Without one, Search does not read ctx.
//
// Search never returns a tool that [toolreg.Registry.Definitions] with
// access does not list, nor the search tool itself.
func (ix *Index) Search(ctx context.Context, access toolreg.Access, query string, limit int) []Match {
	if limit < 1 {
		limit = ix.cfg.defaultLimit
	}
	limit = min(limit, ix.cfg.maxLimit)
	if len(query) > ix.cfg.maxQuery {
		query = query[:ix.cfg.maxQuery]
	}
	if names, ok := strings.CutPrefix(strings.TrimSpace(query), "select:"); ok {
		return ix.selectNames(access, names, limit)
	}
	if strings.IndexFunc(query, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return nil
	}
	ix.Refresh()
	allowed := ix.reg.Definitions(access)
	if ix.cfg.embedder == nil {
		return ix.lexical(allowed, query, limit)
	}
	return ix.hybrid(ctx, allowed, query, limit)
}

// selectNames returns the tools named in the comma-separated list that
// allowed holds, in the order given, without duplicates.
func (ix *Index) selectNames(access toolreg.Access, list string, limit int) []Match {
	allowed := ix.reg.Definitions(access)
	var out []Match
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == ix.cfg.toolName || slices.ContainsFunc(out, func(m Match) bool { return m.Name == name }) {
			continue
		}
		if def, ok := find(allowed, name); ok {
			out = append(out, Match{Name: name, Score: 1, Definition: def})
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// find looks name up in defs, which is sorted by name.
func find(defs []toolreg.Definition, name string) (toolreg.Definition, bool) {
	i, ok := slices.BinarySearchFunc(defs, name, func(d toolreg.Definition, name string) int {
		return strings.Compare(d.Function.Name, name)
	})
	if !ok {
		return toolreg.Definition{}, false
	}
	return defs[i], true
}

// lexical returns the best n tools of allowed by the BM25F ranking.
func (ix *Index) lexical(allowed []toolreg.Definition, query string, n int) []Match {
	terms := queryTerms(query)
	if len(terms) == 0 || len(allowed) == 0 {
		return nil
	}
	s, _ := ix.scratch.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	defer ix.scratch.Put(s)

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	e := ix.eng
	e.score(e.expand(terms, &ix.cfg.rank), s)
	var out []Match
	for _, c := range e.best(s, allowed, n) {
		def := allowed[c.def]
		out = append(out, Match{Name: def.Function.Name, Score: c.score, Definition: def})
	}
	return out
}

// Refresh brings the index up to date with the registry now, instead of at
// the next search: a host may call it after loading its plugins so that
// the first search is fast.
func (ix *Index) Refresh() {
	v := ix.reg.Version()
	ix.mu.RLock()
	fresh := ix.synced && ix.version == v
	ix.mu.RUnlock()
	if fresh {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	v = ix.reg.Version()
	if ix.synced && ix.version == v {
		return
	}
	if ix.synced {
		if names, now, ok := ix.reg.ChangedSince(ix.version); ok {
			ix.applyChanged(names)
			ix.version = now
			return
		}
	}
	// Read the version first: a change that lands while the tools are read
	// leaves a version behind, and the next search syncs again.
	ix.apply(ix.reg.Definitions(toolreg.Access{Groups: []string{toolreg.AllGroups}}))
	ix.version, ix.synced = v, true
}

// applyChanged brings the index up to date for the tools named, the ones
// the registry changed since the index's version, in time proportional to
// them. A tool changed again after ChangedSince answered is read in its
// newer form and named again at the next refresh, which finds it current.
func (ix *Index) applyChanged(names []string) {
	e := ix.eng
	for _, name := range names {
		if name == ix.cfg.toolName {
			continue
		}
		def, present := ix.reg.Definition(name)
		id, indexed := e.byName[name]
		var h contentHash
		if present {
			if indexed && sameValue(e.docs[id].def, def) {
				continue
			}
			if h = hashOf(def); indexed && h == e.docs[id].hash {
				e.docs[id].def = def
				continue
			}
		}
		if indexed {
			old := e.docs[id].hash // read before remove clears it
			ix.spare.put(old, e.remove(id))
		}
		if present {
			id := e.add(def, h)
			e.docs[id].vec = ix.spare.take(h)
			e.docs[id].mark = ix.mark
		}
	}
	e.finish()
}

// Len returns the number of tools indexed, after bringing the index up to
// date: every tool the registry can run, whatever its groups, except the
// search tool.
func (ix *Index) Len() int {
	ix.Refresh()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.eng.live
}

// apply makes the index hold exactly defs. A tool whose definition is the
// very value indexed before is skipped without hashing; one whose content
// hash is unchanged keeps its entry and its vector; only the others are
// indexed again. Vectors of removed tools are kept a while, so a tool that
// comes back unchanged (a plugin reloaded) is not embedded again.
func (ix *Index) apply(defs []toolreg.Definition) {
	e := ix.eng
	ix.mark++
	for _, def := range defs {
		name := def.Function.Name
		if name == ix.cfg.toolName {
			continue
		}
		var h contentHash
		if id, ok := e.byName[name]; ok {
			d := &e.docs[id]
			if sameValue(d.def, def) {
				d.mark = ix.mark
				continue
			}
			h = hashOf(def)
			if h == d.hash {
				d.def, d.mark = def, ix.mark
				continue
			}
			old := d.hash // read before remove clears d
			ix.spare.put(old, e.remove(id))
		} else {
			h = hashOf(def)
		}
		id := e.add(def, h)
		e.docs[id].vec = ix.spare.take(h)
		e.docs[id].mark = ix.mark
	}
	for id := range e.docs {
		if d := &e.docs[id]; d.live && d.mark != ix.mark {
			old := d.hash // read before remove clears d
			ix.spare.put(old, e.remove(int32(id)))
		}
	}
	e.finish()
}

// contentHash identifies a definition's content.
type contentHash [sha256.Size]byte

// hashOf hashes the definition's JSON encoding, which is canonical: map
// keys are sorted.
func hashOf(def toolreg.Definition) contentHash {
	b, err := json.Marshal(def)
	if err != nil {
		// Not for a registered definition, which the registry encoded at
		// Register; hash what identifies it anyway.
		b = []byte(def.Function.Name + "\x00" + def.Function.Description)
	}
	return sha256.Sum256(b)
}

// sameValue reports whether a and b are the same registered definition: the
// registry copies a definition at Register and never changes it, so equal
// fields and the same schema maps mean the same content, with no need to
// hash it. The index keeps a alive, so its maps' addresses cannot be reused.
func sameValue(a, b toolreg.Definition) bool {
	fa, fb := a.Function, b.Function
	pa, pb := fa.Parameters, fb.Parameters
	return a.Type == b.Type && fa.Name == fb.Name && fa.Strict == fb.Strict &&
		fa.Description == fb.Description && pa.Type == pb.Type &&
		pa.AdditionalProperties == pb.AdditionalProperties &&
		samePointer(pa.Properties, pb.Properties) && samePointer(pa.Defs, pb.Defs) &&
		len(pa.Required) == len(pb.Required) && (len(pa.Required) == 0 || &pa.Required[0] == &pb.Required[0])
}

func samePointer(a, b map[string]any) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

// spareVectors keeps the vectors of removed definitions by content hash, at
// most max of them, the oldest dropped first.
type spareVectors struct {
	max    int
	byHash map[contentHash][]float32
	order  []contentHash
}

func (s *spareVectors) put(h contentHash, vec []float32) {
	if vec == nil {
		return
	}
	if _, ok := s.byHash[h]; !ok {
		s.order = append(s.order, h)
	}
	s.byHash[h] = vec
	for len(s.order) > s.max {
		delete(s.byHash, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *spareVectors) take(h contentHash) []float32 {
	vec, ok := s.byHash[h]
	if !ok {
		return nil
	}
	delete(s.byHash, h)
	if i := slices.Index(s.order, h); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
	return vec
}
