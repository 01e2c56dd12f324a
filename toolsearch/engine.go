package toolsearch

import (
	"math"
	"slices"
	"strings"

	"github.com/toolreg/toolreg"
)

// field is a part of a tool definition that the ranking weighs on its own.
type field int

const (
	fieldName field = iota
	fieldDescription
	fieldParamNames
	fieldParamDescriptions
	numFields
)

// maxFieldBytes bounds the text of one field that is indexed: a tool with a
// 1 MB description costs no more than one with 8 KiB.
const maxFieldBytes = 8 << 10

// posting says how often a term occurs in each field of one document, and
// what that weighs in the ranking.
type posting struct {
	doc int32
	tf  [numFields]uint16
	// sat is the BM25F weight of the term in the document before idf: the
	// field-weighted, length-normalized term frequency tfw, saturated as
	// tfw(k1+1)/(k1+tfw). It is computed when the document is indexed, so a
	// search only multiplies and adds.
	sat float32
}

// term is one entry of the vocabulary with the documents that hold it.
type term struct {
	text     string
	postings []posting
}

// doc is one indexed tool.
type doc struct {
	name  string
	def   toolreg.Definition // the registry's copy; read-only
	hash  contentHash
	lens  [numFields]int32
	terms []*term // distinct terms, to remove the document again
	vec   []float32
	noVec bool   // the embedder gave no usable vector for this definition
	mark  uint64 // the last sync that saw the tool
	live  bool
}

// engine is the inverted index and the statistics the ranking needs. It is
// not safe for concurrent use; [Index] guards it.
type engine struct {
	docs []doc
	// names and nameLens repeat docs[i].name and docs[i].lens[fieldName]
	// in dense arrays: a search reads them for every matching document,
	// and the doc structs are large.
	names    []string
	nameLens []int32
	free     []int32 // ids of removed documents, reused first
	byName   map[string]int32
	vocab    map[string]*term
	typos    *typoIndex
	sorted   []string // vocabulary in order, for prefix expansion
	// added and removed list the terms that entered or left the vocabulary
	// since sorted was last brought up to date.
	added, removed []string
	live           int
	sums           [numFields]int64 // total length of each field over live documents

	weights [numFields]float64
	// avg is the average length of each field that sat was computed with.
	// It follows the true average only when that drifts by more than
	// avgDrift, so that a change of one tool does not recompute them all.
	avg [numFields]float64
}

// avgDrift is how far the average field lengths may move before every
// posting's weight is computed again (10%).
const avgDrift = 0.1

func newEngine(weights [numFields]float64) *engine {
	return &engine{byName: map[string]int32{}, vocab: map[string]*term{}, typos: newTypoIndex(), weights: weights}
}

// sat computes p.sat for a document with field lengths lens.
func (e *engine) sat(p *posting, lens *[numFields]int32) float32 {
	tfw := 0.0
	for f, c := range p.tf {
		if c == 0 || e.weights[f] == 0 {
			continue
		}
		norm := 1.0
		if e.avg[f] > 0 {
			norm = 1 - fieldB[f] + fieldB[f]*float64(lens[f])/e.avg[f]
		}
		tfw += e.weights[f] * float64(c) / norm
	}
	return float32(tfw * (k1 + 1) / (k1 + tfw))
}

// finish brings the derived state up to date after documents were added or
// removed: the sorted vocabulary, and the postings' weights when the
// average field lengths drifted.
func (e *engine) finish() {
	e.sortVocabulary()
	var cur [numFields]float64
	drift := false
	for f := range cur {
		if e.live > 0 {
			cur[f] = float64(e.sums[f]) / float64(e.live)
		}
		if cur[f] != e.avg[f] && (e.avg[f] == 0 || math.Abs(cur[f]-e.avg[f]) > avgDrift*e.avg[f]) {
			drift = true
		}
	}
	if !drift {
		return
	}
	e.avg = cur
	for _, t := range e.vocab {
		for i := range t.postings {
			p := &t.postings[i]
			p.sat = e.sat(p, &e.docs[p.doc].lens)
		}
	}
}

// docText returns the terms of each field of d.
func docText(d toolreg.Definition) [numFields][]string {
	var out [numFields][]string
	fn := d.Function
	out[fieldName] = appendTerms(nil, fn.Name)
	out[fieldDescription] = appendTerms(nil, clip(fn.Description))
	names := make([]string, 0, len(fn.Parameters.Properties))
	for name := range fn.Parameters.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	var pn, pd strings.Builder
	for _, name := range names {
		pn.WriteString(name)
		pn.WriteByte(' ')
		if schema, ok := fn.Parameters.Properties[name].(map[string]any); ok {
			if s, ok := schema["description"].(string); ok {
				pd.WriteString(s)
				pd.WriteByte(' ')
			}
		}
	}
	out[fieldParamNames] = appendTerms(nil, clip(pn.String()))
	out[fieldParamDescriptions] = appendTerms(nil, clip(pd.String()))
	return out
}

// clip cuts s to maxFieldBytes.
func clip(s string) string {
	if len(s) > maxFieldBytes {
		return s[:maxFieldBytes]
	}
	return s
}

// add indexes def under its name, which must not be indexed yet, and
// returns its id.
func (e *engine) add(def toolreg.Definition, h contentHash) int32 {
	var id int32
	if n := len(e.free); n > 0 {
		id = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		id = int32(len(e.docs))
		e.docs = append(e.docs, doc{})
		e.names = append(e.names, "")
		e.nameLens = append(e.nameLens, 0)
	}
	d := doc{name: def.Function.Name, def: def, hash: h, live: true}
	counts := map[string]*posting{}
	var order []string
	for f, terms := range docText(def) {
		d.lens[f] = int32(len(terms))
		e.sums[f] += int64(len(terms))
		for _, t := range terms {
			p := counts[t]
			if p == nil {
				p = &posting{doc: id}
				counts[t] = p
				order = append(order, t)
			}
			if p.tf[f] < 1<<16-1 {
				p.tf[f]++
			}
		}
	}
	d.terms = make([]*term, 0, len(order))
	for _, text := range order {
		t := e.vocab[text]
		if t == nil {
			t = &term{text: text}
			e.vocab[text] = t
			e.typos.add(t)
			e.added = append(e.added, text)
		}
		p := counts[text]
		p.sat = e.sat(p, &d.lens)
		t.postings = append(t.postings, *p)
		d.terms = append(d.terms, t)
	}
	e.docs[id] = d
	e.names[id], e.nameLens[id] = d.name, d.lens[fieldName]
	e.byName[d.name] = id
	e.live++
	return id
}

// remove drops document id from the index. Its vector is returned so that a
// caller may keep it for an identical definition.
func (e *engine) remove(id int32) []float32 {
	d := &e.docs[id]
	for _, t := range d.terms {
		for i, p := range t.postings {
			if p.doc == id {
				t.postings[i] = t.postings[len(t.postings)-1]
				t.postings = t.postings[:len(t.postings)-1]
				break
			}
		}
		if len(t.postings) == 0 {
			delete(e.vocab, t.text)
			e.typos.remove(t)
			e.removed = append(e.removed, t.text)
		}
	}
	for f := range d.lens {
		e.sums[f] -= int64(d.lens[f])
	}
	vec := d.vec
	delete(e.byName, d.name)
	*d = doc{}
	e.names[id], e.nameLens[id] = "", 0
	e.free = append(e.free, id)
	e.live--
	return vec
}

// sortVocabulary brings the sorted vocabulary up to date: a few changes
// are applied in place, many by sorting again.
func (e *engine) sortVocabulary() {
	changes := len(e.added) + len(e.removed)
	switch {
	case changes == 0:
		return
	case changes > len(e.sorted)/16:
		e.sorted = e.sorted[:0]
		for text := range e.vocab {
			e.sorted = append(e.sorted, text)
		}
		slices.Sort(e.sorted)
	default:
		for _, text := range e.removed {
			if i, ok := slices.BinarySearch(e.sorted, text); ok {
				e.sorted = slices.Delete(e.sorted, i, i+1)
			}
		}
		for _, text := range e.added {
			if i, ok := slices.BinarySearch(e.sorted, text); !ok && e.vocab[text] != nil {
				e.sorted = slices.Insert(e.sorted, i, text)
			}
		}
	}
	e.added, e.removed = e.added[:0], e.removed[:0]
}

// withPrefix calls fn with each term that starts with p and is longer.
func (e *engine) withPrefix(p string, fn func(*term)) {
	i, _ := slices.BinarySearch(e.sorted, p)
	for ; i < len(e.sorted) && strings.HasPrefix(e.sorted[i], p); i++ {
		if e.sorted[i] != p {
			fn(e.vocab[e.sorted[i]])
		}
	}
}
