package toolreg

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"
)

// Event phases.
const (
	PhaseStart = "start"
	PhaseEnd   = "end"
)

// ExecuteEvent reports one call of [Registry.Execute] or
// [Registry.ExecuteJSON]. Every call emits exactly one "start" and then one
// "end" event, with the same CallID, even for unknown names and refusals.
//
// Args is a deep copy in which every value the tool's schema marks
// "x-sensitive": true (at any depth, behind $ref, anyOf and the like) reads
// "[redacted]"; Go-typed values appear in their JSON form (objects as
// map[string]any, numbers as json.Number). It is nil for an
// unknown name, whose arguments are never read, and when the arguments
// could not be parsed.
type ExecuteEvent struct {
	Phase      string // PhaseStart or PhaseEnd
	CallID     string
	SessionID  string
	Platform   string
	ToolName   string
	PluginName string // the owner of the named tool, also when the call is refused; "" for an unknown name
	Args       map[string]any
	Result     string        // end only: exactly what Execute returned
	Code       string        // end only: "" on success, else the error code
	Duration   time.Duration // end only
}

type listener struct {
	fn func(ExecuteEvent)
}

// Subscribe calls fn with every [ExecuteEvent], synchronously on the
// executing goroutine and with no lock held. fn must be safe for concurrent
// use: calls run at once, and listeners are called in no particular order
// across calls. The event's Args is the call's own copy, shared by its
// listeners and by its start and end events, never by the handler: a
// listener may keep it. A panic in fn is logged and never changes a call's
// result. The returned func
// removes this subscription; calling it again does nothing. A nil fn is
// ignored.
func (r *Registry) Subscribe(fn func(ExecuteEvent)) (unsubscribe func()) {
	if fn == nil {
		return func() {}
	}
	l := &listener{fn: fn}
	r.hookMu.Lock()
	next := append(slices.Clone(r.loadListeners()), l)
	r.listeners.Store(&next)
	r.hookMu.Unlock()
	return func() {
		r.hookMu.Lock()
		defer r.hookMu.Unlock()
		cur := r.loadListeners()
		if i := slices.Index(cur, l); i >= 0 {
			next := slices.Delete(slices.Clone(cur), i, i+1)
			r.listeners.Store(&next)
		}
	}
}

func (r *Registry) loadListeners() []*listener {
	if p := r.listeners.Load(); p != nil {
		return *p
	}
	return nil
}

// emit delivers ev to each listener, containing their panics.
func (r *Registry) emit(ls []*listener, ev *ExecuteEvent) {
	for _, l := range ls {
		r.deliver(l, ev)
	}
}

// deliver calls one listener with a copy of ev, containing a panic.
func (r *Registry) deliver(l *listener, ev *ExecuteEvent) {
	done := false
	defer func() {
		if !done {
			r.logPanic("event listener", ev.ToolName, recover())
		}
	}()
	l.fn(*ev)
	done = true
}

// ArgsDigest returns the hex SHA-256 of args as canonical JSON: keys sorted
// at every level, so equal arguments give equal digests whatever their map
// order, and Go values are hashed by their JSON form, never by address. nil
// and an empty map give the same digest. A guard can bind a human's
// confirmation to the exact arguments with it. It returns "" for arguments
// that have no JSON form (NaN, a channel, a value that contains itself);
// [DigestArgs] says why.
func ArgsDigest(args map[string]any) string {
	d, _ := DigestArgs(args)
	return d
}

// DigestArgs is [ArgsDigest] with the reason when args have no JSON form.
func DigestArgs(args map[string]any) (string, error) {
	if args == nil {
		args = map[string]any{}
	}
	if _, err := checkArgs(args); err != nil {
		return "", fmt.Errorf("toolreg: digest: %w", err)
	}
	b, err := marshalContained(args) // encoding/json sorts map keys
	if err != nil {
		return "", fmt.Errorf("toolreg: digest: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
