package toolreg

import (
	"encoding/binary"
	"maps"

	"github.com/toolreg/toolreg/internal/persist"
)

// snapshot is an immutable view of the tools at one version. Writers build
// the next snapshot from the previous one under the registry's lock and
// publish it; readers load the current one with no lock and never rebuild.
//
// Names resolve through a plain Go map (base), the fastest lookup there is,
// and a small persistent map of the changes made since base was built
// (delta; a nil entry means removed). A change costs a path copy in delta;
// once delta outgrows a sixteenth of the registry, the writer folds it into
// a new base, so the amortized cost of a change stays constant while lookups
// stay map lookups. Small registries fold at every change and so have no
// delta at all. A small bit filter over the names in delta lets most
// lookups skip it and pay for one hash, the base map's. The sorted order is
// a chunked persistent list, updated per change in time proportional to a
// chunk.
type snapshot struct {
	version uint64
	base    map[string]*entry
	delta   persist.Map[*entry]
	inDelta deltaFilter // a bit set for every name in delta, and maybe others
	sorted  persist.Sorted[*entry]
	count   int // tools, reserved ones included
}

// foldAlways is the registry size below which a change folds delta into a
// new base at once: copying a map this small costs less than keeping a delta.
const foldAlways = 256

func emptySnapshot() *snapshot {
	return &snapshot{
		base:   map[string]*entry{},
		delta:  persist.NewMap[*entry](),
		sorted: persist.NewSorted((*entry).name),
	}
}

// lookup returns the tool registered as name, or nil.
func (s *snapshot) lookup(name string) *entry {
	if s.inDelta.mayHold(name) {
		if e, ok := s.delta.Get(name); ok {
			return e
		}
	}
	return s.base[name]
}

// each calls yield for every tool in name order until it returns false.
func (s *snapshot) each(yield func(*entry) bool) { s.sorted.All(yield) }

// change is one tool put under its name (e non-nil) or removed (e nil).
type change struct {
	name string
	e    *entry
}

// apply returns the next snapshot: s with changes made, at version.
func (s *snapshot) apply(version uint64, changes ...change) *snapshot {
	next := *s
	next.version = version
	for _, c := range changes {
		old := next.lookup(c.name)
		switch {
		case c.e != nil:
			next.delta = next.delta.Set(c.name, c.e)
			next.inDelta.add(c.name)
			next.sorted = next.sorted.Upsert(c.e)
			if old == nil {
				next.count++
			}
		case old != nil:
			next.delta = next.delta.Set(c.name, nil)
			next.inDelta.add(c.name)
			next.sorted = next.sorted.Delete(c.name)
			next.count--
		}
	}
	if next.count < foldAlways || next.delta.Len() > next.count/16 {
		next.fold()
	}
	return &next
}

// fold builds a new base with delta applied, and empties delta.
func (s *snapshot) fold() {
	base := maps.Clone(s.base)
	s.delta.All(func(name string, e *entry) bool {
		if e == nil {
			delete(base, name)
		} else {
			base[name] = e
		}
		return true
	})
	s.base = base
	s.delta = persist.NewMap[*entry]()
	s.inDelta = deltaFilter{}
}

// deltaFilter is a 512-bit set of name fingerprints: a clear bit proves a
// name is not in delta. A fingerprint costs two loads and a multiply,
// against the full hash and walk of a delta lookup. The filter empties at
// every fold; with more than a few hundred names in delta (registries of
// many thousands of tools, between folds) most bits are set and lookups cost
// what they did without it, never more than a fingerprint.
type deltaFilter [8]uint64

// fingerprint returns the word and bit of name in a deltaFilter, from its
// length and its first and last eight bytes.
func fingerprint(name string) (word, bit uint) {
	n := len(name)
	var x uint64
	if n >= 8 {
		x = binary.LittleEndian.Uint64([]byte(name[:8])) ^
			binary.LittleEndian.Uint64([]byte(name[n-8:]))*0xff51afd7ed558ccd
	} else {
		for i := range n {
			x = x<<8 | uint64(name[i])
		}
	}
	x = (x ^ uint64(n)) * 0x9e3779b97f4a7c15
	b := uint(x >> 55) // 9 bits: 0 to 511
	return b >> 6, b & 63
}

// add records name as maybe in delta.
func (f *deltaFilter) add(name string) {
	w, b := fingerprint(name)
	f[w] |= 1 << b
}

// mayHold reports false only if name was never added.
func (f *deltaFilter) mayHold(name string) bool {
	w, b := fingerprint(name)
	return f[w]&(1<<b) != 0
}

// withVersion returns s at a new version: for changes to groups and packs,
// which listings depend on but the tool maps do not.
func (s *snapshot) withVersion(version uint64) *snapshot {
	next := *s
	next.version = version
	return &next
}
