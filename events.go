package toolreg

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
// Args is a copy in which every argument marked "x-sensitive": true in the
// tool's schema reads "[redacted]"; it is nil when the arguments could not be
// parsed.
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
// use and must not modify the event's Args, which all listeners share. A
// panic in fn is logged and never changes a call's result. The returned func
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
func (r *Registry) emit(ls []*listener, ev ExecuteEvent) {
	for _, l := range ls {
		r.deliver(l, ev)
	}
}

func (r *Registry) deliver(l *listener, ev ExecuteEvent) {
	defer func() {
		if v := recover(); v != nil {
			r.logPanic("event listener", ev.ToolName, v)
		}
	}()
	l.fn(ev)
}

// redactedValue replaces sensitive argument values in events.
const redactedValue = "[redacted]"

// redaction says which argument values to hide: the keys marked sensitive at
// one object level, and the nested levels below.
type redaction struct {
	sensitive map[string]bool
	nested    map[string]*redaction // by property name, for nested objects
	items     map[string]*redaction // by property name, for arrays of objects
}

// newRedaction reads "x-sensitive": true marks from object properties; it
// returns nil when nothing in the schema is sensitive.
func newRedaction(props map[string]any) *redaction {
	var rd redaction
	for k, v := range props {
		s, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if mark, _ := s["x-sensitive"].(bool); mark {
			setKey(&rd.sensitive, k, true)
			continue
		}
		if sub, ok := s["properties"].(map[string]any); ok {
			if n := newRedaction(sub); n != nil {
				setKey(&rd.nested, k, n)
			}
		}
		if it, ok := s["items"].(map[string]any); ok {
			if sub, ok := it["properties"].(map[string]any); ok {
				if n := newRedaction(sub); n != nil {
					setKey(&rd.items, k, n)
				}
			}
		}
	}
	if rd.sensitive == nil && rd.nested == nil && rd.items == nil {
		return nil
	}
	return &rd
}

func setKey[V any](m *map[string]V, k string, v V) {
	if *m == nil {
		*m = make(map[string]V)
	}
	(*m)[k] = v
}

// apply returns a copy of args with sensitive values replaced. It copies
// only the levels it changes.
func (rd *redaction) apply(args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		switch {
		case rd == nil:
			out[k] = v
		case rd.sensitive[k]:
			out[k] = redactedValue
		case rd.nested[k] != nil:
			out[k] = rd.nested[k].applyValue(v)
		case rd.items[k] != nil:
			out[k] = rd.items[k].applyList(v)
		default:
			out[k] = v
		}
	}
	return out
}

func (rd *redaction) applyValue(v any) any {
	if m, ok := v.(map[string]any); ok {
		return rd.apply(m)
	}
	return v
}

func (rd *redaction) applyList(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = rd.applyValue(e)
	}
	return out
}

// ArgsDigest returns the hex SHA-256 of args as canonical JSON: keys sorted
// at every level, so equal arguments give equal digests whatever their map
// order. nil and an empty map give the same digest. A guard can bind a
// human's confirmation to the exact arguments with it. Values that JSON
// cannot encode are hashed by their printed form.
func ArgsDigest(args map[string]any) string {
	if args == nil {
		args = map[string]any{}
	}
	b, err := json.Marshal(args) // encoding/json sorts map keys
	if err != nil {
		b = fmt.Appendf(nil, "%#v", args) // fmt sorts map keys too
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
