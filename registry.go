package toolreg

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Handler runs a tool. args are the validated arguments (never nil); call
// says who is calling. The returned string is given to the model unchanged;
// a non-nil error becomes {"error":err.Error(),"code":"tool_error"}.
// A handler should return when ctx is done.
type Handler func(ctx context.Context, args map[string]any, call CallContext) (string, error)

// RegisteredTool is a tool as registered: its wire definition, handler and
// capability policy.
type RegisteredTool struct {
	Definition Definition
	Handler    Handler    // required by Register; Reserve declares a tool without one
	PluginName string     // filled by Register
	Visibility Visibility // axis A; "" = derive from Risk, else public
	Confirm    Confirm    // axis B; "" = derive from Risk, else none
	Risk       Risk       // sugar, passed through to the guard
	Groups     []string   // nil/empty: always offered
	// Timeout bounds one call. 0 means the registry default (see
	// [WithDefaultTimeout]); the call then fails with code "timeout" even if
	// the handler ignores its context.
	Timeout time.Duration
}

// CallContext describes the caller of one [Registry.Execute].
type CallContext struct {
	SessionID string
	UserID    string
	Platform  string // "" is reported to the guard as "unknown"
	// EnabledGroups gates execution by groups exactly as [Filter.Groups]
	// gates listing. nil means no group gate; non-nil, even empty, gates;
	// [AllGroups] enables every group.
	EnabledGroups []string
	// SkipConfirm marks a trusted system caller (a scheduler): the guard may
	// skip interactive confirmation, never authorization.
	SkipConfirm bool
}

// ToolInfo describes a registered tool for administration: its resolved
// policy, declared risk, owner and groups.
type ToolInfo struct {
	Name        string
	Description string
	PluginName  string
	Visibility  Visibility // resolved
	Confirm     Confirm    // resolved
	Risk        Risk       // as declared
	Groups      []string
	Reserved    bool // declared with Reserve: listed, never offered or run
}

// Summary is a tool's name, description and groups, for search and display.
type Summary struct {
	Name        string
	Description string
	Groups      []string
}

// entry is one registration. It is immutable once built; its pointer
// identifies the registration, so an unregister func removes only its own.
type entry struct {
	tool     RegisteredTool // normalized definition, copied groups
	reserved bool
	policy   Policy
	valid    validator
	redact   *redaction
}

func (e *entry) name() string { return e.tool.Definition.Function.Name }

// snapshot is an immutable view of the tools at one version. Readers use it
// without taking the registry lock, so lookups scale across cores.
type snapshot struct {
	version uint64
	byName  map[string]*entry
	sorted  []*entry // by name

	viewMu sync.Mutex
	views  map[string][]Definition // Definitions results by filter key
}

// maxViews bounds the Definitions cache of one snapshot.
const maxViews = 256

// Registry holds the tools an LLM agent may call. Create it with [New]; the
// zero value is not usable. Every method is safe for concurrent use, and no
// lock is held while user code (handlers, guards, listeners) runs.
type Registry struct {
	cfg config

	mu     sync.RWMutex // guards tools and groups; version changes with them
	tools  map[string]*entry
	groups map[string]*groupEntry

	version atomic.Uint64
	snap    atomic.Pointer[snapshot]
	guard   atomic.Pointer[ExecutionGuard]

	hookMu    sync.Mutex // serializes changes to listeners and onChange
	listeners atomic.Pointer[[]*listener]
	onChange  atomic.Pointer[[]*changeHook]

	callSeq atomic.Uint64
}

// New returns an empty registry configured by opts. It starts no goroutine.
func New(opts ...Option) *Registry {
	cfg := config{logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return &Registry{cfg: cfg, tools: map[string]*entry{}, groups: map[string]*groupEntry{}}
}

// Register adds t under pluginName and returns a func that removes this very
// registration (a no-op once it was replaced or removed).
//
// Register checks the name (^[a-zA-Z0-9_-]{1,64}$), the handler, the policy
// values, the schema (required keys must be properties; for Strict tools the
// OpenAI strict-mode rules) and the group names, and reports every problem in
// one [*RegisterError]. A schema that is validated in full (Strict tools, or
// every tool [WithSchemaValidation]) is compiled here, once. On error nothing
// changes and the returned func is a no-op.
//
// An existing name is replaced, with a warning in the log, unless the
// registry was built [WithRejectDuplicates]. The definition is copied: later
// changes to t do not reach the registry.
func (r *Registry) Register(t RegisteredTool, pluginName string) (unregister func(), err error) {
	return r.add(t, pluginName, false)
}

// Reserve declares a tool that has no executor yet: [Registry.All] lists it
// with Reserved set, but it is never offered, Has reports false, and Execute
// answers "not_available". Registering a handler under the same name later
// replaces it. Checks and the returned func are as for [Registry.Register].
func (r *Registry) Reserve(d Definition, pluginName string) (unregister func(), err error) {
	return r.add(RegisteredTool{Definition: d}, pluginName, true)
}

func noop() {}

func (r *Registry) add(t RegisteredTool, pluginName string, reserved bool) (func(), error) {
	e, err := r.prepare(t, pluginName, reserved)
	if err != nil {
		return noop, err
	}
	name := e.name()
	r.mu.Lock()
	old := r.tools[name]
	if old != nil && r.cfg.rejectDuplicate {
		r.mu.Unlock()
		return noop, &RegisterError{Tool: name, Plugin: pluginName, Problems: []error{
			problemf(ErrDuplicate, "name already registered by plugin %q", old.tool.PluginName)}}
	}
	r.tools[name] = e
	r.version.Add(1)
	r.mu.Unlock()
	if old != nil {
		r.cfg.logger.Warn("toolreg: tool replaced", "tool", name, "old_plugin", old.tool.PluginName, "plugin", pluginName)
	}
	r.changed()
	return func() { r.remove(name, e) }, nil
}

// prepare checks t and builds its immutable entry, or reports every problem
// in a *RegisterError.
func (r *Registry) prepare(t RegisteredTool, pluginName string, reserved bool) (*entry, error) {
	e, errs := r.build(t, pluginName, reserved)
	if t.Handler == nil && !reserved {
		errs = append([]error{problemf(ErrMissingHandler, "Handler is nil (use Reserve to declare a tool without one)")}, errs...)
	}
	if len(errs) > 0 {
		return nil, &RegisterError{Tool: t.Definition.Function.Name, Plugin: pluginName, Problems: errs}
	}
	return e, nil
}

func (r *Registry) build(t RegisteredTool, pluginName string, reserved bool) (*entry, []error) {
	var errs []error
	var v validator
	def, err := t.Definition.normalized()
	if err == nil {
		v, err = newValidator(def, r.cfg.validateAll)
	} else {
		def = t.Definition // still check the name and the rest
	}
	if err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, checkDefinition(def)...)
	errs = append(errs, checkPolicy(PolicyDecl{Visibility: t.Visibility, Confirm: t.Confirm, Risk: t.Risk})...)
	for _, g := range t.Groups {
		if !validName(g) {
			errs = append(errs, problemf(ErrInvalidName, "group name %q does not match ^[a-zA-Z0-9_-]{1,64}$", g))
		}
	}
	if t.Timeout < 0 {
		errs = append(errs, problemf(ErrInvalidPolicy, "Timeout is negative (%v)", t.Timeout))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	t.Definition = def
	t.PluginName = pluginName
	t.Groups = appendNew(nil, t.Groups...)
	if len(t.Groups) == 0 {
		t.Groups = nil
	}
	if reserved {
		t.Handler = nil
	}
	return &entry{
		tool:     t,
		reserved: reserved,
		policy:   ResolvePolicy(PolicyDecl{Visibility: t.Visibility, Confirm: t.Confirm, Risk: t.Risk}, ""),
		valid:    v,
		redact:   newRedaction(t.Definition.Function.Parameters.Properties),
	}, nil
}

func (r *Registry) remove(name string, e *entry) {
	r.mu.Lock()
	removed := r.tools[name] == e
	if removed {
		delete(r.tools, name)
		r.version.Add(1)
	}
	r.mu.Unlock()
	if removed {
		r.changed()
	}
}

// UnregisterByPlugin removes every tool and group that pluginName registered.
// An unknown plugin changes nothing.
func (r *Registry) UnregisterByPlugin(pluginName string) {
	r.mu.Lock()
	n := 0
	for name, e := range r.tools {
		if e.tool.PluginName == pluginName {
			delete(r.tools, name)
			n++
		}
	}
	for name, ge := range r.groups {
		if ge.info.PluginName == pluginName {
			delete(r.groups, name)
			n++
		}
	}
	if n > 0 {
		r.version.Add(1)
	}
	r.mu.Unlock()
	if n > 0 {
		r.changed()
	}
}

// current returns the snapshot of the current version, rebuilding it when a
// change made it stale.
func (r *Registry) current() *snapshot {
	if s := r.snap.Load(); s != nil && s.version == r.version.Load() {
		return s
	}
	return r.rebuild()
}

func (r *Registry) rebuild() *snapshot {
	r.mu.RLock()
	s := &snapshot{version: r.version.Load(), byName: maps.Clone(r.tools)}
	r.mu.RUnlock()
	s.sorted = slices.SortedFunc(maps.Values(s.byName), func(a, b *entry) int { return strings.Compare(a.name(), b.name()) })
	for {
		old := r.snap.Load()
		if old != nil && old.version >= s.version {
			return s // a newer one is published; s is still consistent
		}
		if r.snap.CompareAndSwap(old, s) {
			return s
		}
	}
}

// Has reports whether name is registered with an executor. Reserved tools
// report false.
func (r *Registry) Has(name string) bool {
	e := r.current().byName[name]
	return e != nil && !e.reserved
}

// Definitions returns the definitions offered under f, sorted by name, so the
// same set of tools always marshals to the same bytes.
//
// The result is cached until the registry changes and is shared between
// callers: treat it, and the schemas in it, as read-only.
func (r *Registry) Definitions(f Filter) []Definition {
	s := r.current()
	var buf [128]byte
	key := f.appendKey(buf[:0])
	s.viewMu.Lock()
	defs, ok := s.views[string(key)] // no allocation for the lookup
	s.viewMu.Unlock()
	if ok {
		return defs
	}
	n := 0
	for _, e := range s.sorted {
		if offered(e, f.Groups) {
			n++
		}
	}
	defs = make([]Definition, 0, n)
	for _, e := range s.sorted {
		if offered(e, f.Groups) {
			defs = append(defs, e.tool.Definition)
		}
	}
	s.viewMu.Lock()
	if s.views == nil {
		s.views = map[string][]Definition{}
	}
	if len(s.views) < maxViews {
		s.views[string(key)] = defs
	}
	s.viewMu.Unlock()
	return defs
}

// Summaries returns the name, description and groups of each tool offered
// under f, sorted by name.
func (r *Registry) Summaries(f Filter) []Summary {
	var out []Summary
	for _, e := range r.current().sorted {
		if offered(e, f.Groups) {
			out = append(out, Summary{Name: e.name(), Description: e.tool.Definition.Function.Description, Groups: slices.Clone(e.tool.Groups)})
		}
	}
	return out
}

// All returns every tool, reserved ones included, with its resolved policy,
// sorted by name.
func (r *Registry) All() []ToolInfo {
	sorted := r.current().sorted
	out := make([]ToolInfo, len(sorted))
	for i, e := range sorted {
		out[i] = ToolInfo{
			Name:        e.name(),
			Description: e.tool.Definition.Function.Description,
			PluginName:  e.tool.PluginName,
			Visibility:  e.policy.Visibility,
			Confirm:     e.policy.Confirm,
			Risk:        e.tool.Risk,
			Groups:      slices.Clone(e.tool.Groups),
			Reserved:    e.reserved,
		}
	}
	return out
}

// Version returns a number that grows with every change of tools or groups.
// Equal versions mean equal listings.
func (r *Registry) Version() uint64 { return r.version.Load() }

type changeHook struct{ fn func() }

// OnChange calls fn after every change of tools or groups, on the goroutine
// that made the change, with no lock held. A panic in fn is logged. The
// returned func removes the hook. A nil fn is ignored.
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

func (r *Registry) changed() {
	for _, h := range r.loadChangeHooks() {
		r.callChangeHook(h)
	}
}

func (r *Registry) callChangeHook(h *changeHook) {
	defer func() {
		if v := recover(); v != nil {
			r.logPanic("change hook", "", v)
		}
	}()
	h.fn()
}

// logPanic records a recovered panic: its value and stack go to the log
// only, never to the model.
func (r *Registry) logPanic(where, tool string, v any) {
	r.cfg.logger.Error("toolreg: recovered panic in "+where, "tool", tool, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
}
