package toolreg

import (
	"slices"
	"sort"
	"sync"
)

// MaxChangeLog is how many of its last tool changes a registry remembers
// for [Registry.ChangedSince].
const MaxChangeLog = 4096

// Version returns a number that grows with every change of tools or groups.
// Equal versions mean equal listings.
func (r *Registry) Version() uint64 { return r.current().version }

type changeHook struct{ fn func() }

// OnChange calls fn after changes of tools, groups or packs, with no lock
// held. Hooks run one at a time and in order, never concurrently: when
// changes arrive while hooks are running (from other goroutines, or made by
// a hook itself), they are delivered in one more round once the current one
// ends. A burst of changes may therefore give fewer calls than changes, and
// the calls may run on the goroutine of an earlier change, but a call always
// follows the last change: read the registry's current state in fn. A panic
// in fn is logged. The returned func removes the hook. A nil fn is ignored.
func (r *Registry) OnChange(fn func()) (unsubscribe func()) {
	if fn == nil {
		return noop
	}
	h := &changeHook{fn: fn}
	r.hookMu.Lock()
	next := append(slices.Clone(r.loadChangeHooks()), h)
	r.onChange.Store(&next)
	r.hookMu.Unlock()
	return func() {
		r.hookMu.Lock()
		defer r.hookMu.Unlock()
		cur := r.loadChangeHooks()
		if i := slices.Index(cur, h); i >= 0 {
			next := slices.Delete(slices.Clone(cur), i, i+1)
			r.onChange.Store(&next)
		}
	}
}

func (r *Registry) loadChangeHooks() []*changeHook {
	if p := r.onChange.Load(); p != nil {
		return *p
	}
	return nil
}

// notifier delivers change notifications one round at a time.
type notifier struct {
	mu       sync.Mutex
	pending  bool // a change arrived since the current round started
	draining bool // some goroutine is running the hooks
}

// changed runs the change hooks, unless another goroutine is running them:
// then it leaves a note, and that goroutine runs one more round.
func (r *Registry) changed() {
	n := &r.notify
	n.mu.Lock()
	n.pending = true
	if n.draining {
		n.mu.Unlock()
		return
	}
	n.draining = true
	locked := true
	defer func() { // also when a hook calls runtime.Goexit
		if !locked {
			n.mu.Lock()
		}
		n.draining = false
		n.mu.Unlock()
	}()
	for n.pending {
		n.pending = false
		n.mu.Unlock()
		locked = false
		for _, h := range r.loadChangeHooks() {
			r.callContained("change hook", "", h.fn)
		}
		n.mu.Lock()
		locked = true
	}
}

// ChangedSince returns the names of the tools registered, replaced,
// reserved or removed since version (a value [Registry.Version] returned),
// sorted and each once, with the version they bring the caller to. A cache
// of anything derived from tools (a search index, a prompt) can then redo
// only those names: [Registry.Definition] and [Registry.Lookup] tell what
// each is now. Changes of groups and packs change the version but name no
// tool.
//
// ok is false when the registry no longer remembers every change since
// version (it keeps the last [MaxChangeLog]; a single RegisterAll or
// UnregisterByPlugin may count for more) or when version is in its future:
// the caller must then reread everything, for example with
// [Registry.Definitions].
func (r *Registry) ChangedSince(version uint64) (names []string, now uint64, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	now = r.current().version
	if version > now || version < r.changes.floor {
		return nil, now, false
	}
	return r.changes.since(version), now, true
}

// changeLog is a ring of the names of the last MaxChangeLog tool changes,
// oldest first, each with the version that made it.
type changeLog struct {
	ring  []loggedChange
	start int    // index of the oldest entry once the ring is full
	floor uint64 // every change made after this version is in ring
}

type loggedChange struct {
	version uint64
	name    string
}

// add records that version changed the tool name.
func (l *changeLog) add(version uint64, name string) {
	if len(l.ring) < MaxChangeLog {
		l.ring = append(l.ring, loggedChange{version, name})
		return
	}
	l.floor = l.ring[l.start].version // its other changes may go too
	l.ring[l.start] = loggedChange{version, name}
	l.start = (l.start + 1) % MaxChangeLog
}

// since returns the names changed after version, sorted, each once. The
// ring holds versions in order from its oldest entry, so the first entry
// after version is found by binary search.
func (l *changeLog) since(version uint64) []string {
	n := len(l.ring)
	at := func(i int) loggedChange { return l.ring[(l.start+i)%n] }
	first := sort.Search(n, func(i int) bool { return at(i).version > version })
	var names []string
	for i := first; i < n; i++ {
		names = append(names, at(i).name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
