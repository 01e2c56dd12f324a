package toolreg

import (
	"slices"
	"sync"
)

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
