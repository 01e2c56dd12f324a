package toolreg

import (
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
// delta at all. The sorted order is a chunked persistent list, updated per
// change in time proportional to a chunk.
type snapshot struct {
	version uint64
	base    map[string]*entry
	delta   persist.Map[*entry]
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
	if s.delta.Len() > 0 {
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
			next.sorted = next.sorted.Upsert(c.e)
			if old == nil {
				next.count++
			}
		case old != nil:
			next.delta = next.delta.Set(c.name, nil)
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
}

// withVersion returns s at a new version: for changes to groups and packs,
// which listings depend on but the tool maps do not.
func (s *snapshot) withVersion(version uint64) *snapshot {
	next := *s
	next.version = version
	return &next
}
