package toolreg

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
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
	// Permission is what a [Permissions] layer requires of this tool
	// ("filesystem:write"); "" leaves it to the layer's other rules.
	Permission string
	// Exclusive makes the tool run alone within a batch: no other call of
	// the same [Registry.ExecuteBatch] runs at the same time.
	Exclusive bool
	// UseNumber makes [Registry.ExecuteJSON] decode this tool's numbers as
	// json.Number, exactly as the model wrote them, instead of float64. See
	// [WithUseNumber] to set it for every tool.
	UseNumber bool
	// Inline runs the handler on the caller's goroutine, which saves a
	// goroutine per call. Set it only for a handler that returns promptly
	// once its context is done and never calls runtime.Goexit: an inline
	// handler that ignores its context holds the caller past the timeout,
	// and one that calls runtime.Goexit ends the caller's goroutine. A panic
	// is contained either way. See [WithInlineHandlers].
	Inline bool
}

// CallContext describes the caller of one [Registry.Execute].
type CallContext struct {
	SessionID string
	UserID    string
	Platform  string // "" is reported to the guard as "unknown"
	// Access is what this caller may reach: the same value its listing
	// used. The zero Access reaches ungrouped tools only.
	Access Access
	// Permissions are the permissions this caller holds (a scenario's
	// declared ones); guards read them in [GuardRequest.Permissions].
	Permissions []string
	// CallID is the model's tool_call_id, if any. Events and [Result] carry
	// it; when empty the registry makes one ("call_<n>").
	CallID string
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
	Reserved    bool   // declared with Reserve: listed, never offered or run
	Permission  string // as declared on the RegisteredTool
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
	info     ToolInfo       // what layers and Lookup see; Groups shared, read-only
	reserved bool
	policy   Policy
	valid    validator
	redact   *redaction
	wire     []byte   // json.Marshal(tool.Definition), encoded once
	lower    string   // the name in lower case, for suggestions
	squashed string   // lower without "_" and "-"
	tokens   []string // its "_"/"-" tokens

	abandoned atomic.Int64 // calls still running after Execute returned
}

func (e *entry) name() string { return e.tool.Definition.Function.Name }

// snapshot is an immutable view of the tools at one version. Readers use it
// without taking the registry lock, so lookups scale across cores.
type snapshot struct {
	version uint64
	byName  map[string]*entry
	sorted  []*entry // by name

	viewMu sync.Mutex
	views  map[string]*listing // by Access key
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
	packs  map[string]*packEntry

	version atomic.Uint64
	snap    atomic.Pointer[snapshot]
	guard   atomic.Pointer[ExecutionGuard]

	hookMu    sync.Mutex // serializes changes to listeners and onChange
	listeners atomic.Pointer[[]*listener]
	onChange  atomic.Pointer[[]*changeHook]
	notify    notifier
	names     nameIndex // for suggestions; kept under mu

	callSeq    atomic.Uint64
	stats      counters
	lateLogged atomic.Int64 // unix nanoseconds of the last late-result warning
}

// New returns an empty registry configured by opts. It starts no goroutine.
func New(opts ...Option) *Registry {
	cfg := config{
		logger:       slog.New(slog.DiscardHandler),
		maxAbandoned: DefaultMaxAbandoned,
		maxArgBytes:  DefaultMaxArgumentBytes,
		schema:       DefaultSchemaLimits,
	}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return &Registry{cfg: cfg, tools: map[string]*entry{}, groups: map[string]*groupEntry{}, packs: map[string]*packEntry{}}
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
// promotes it, even [WithRejectDuplicates]; the func Reserve returned is
// then a no-op. Reserve over a tool that has a handler fails with
// [ErrDuplicate]: it never takes an executor away. Checks are as for
// [Registry.Register]; Handler is not needed.
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
	if err := r.conflict(old, reserved); err != nil {
		r.mu.Unlock()
		return noop, &RegisterError{Name: name, Plugin: pluginName, Problems: []error{err}}
	}
	r.tools[name] = e
	if old != nil {
		r.names.remove(old)
	}
	r.names.add(e)
	r.version.Add(1)
	r.mu.Unlock()
	if old != nil && !(old.reserved && !reserved) {
		r.logAt(context.Background(), slog.LevelWarn, "toolreg: tool replaced", "tool", name, "old_plugin", old.tool.PluginName, "plugin", pluginName)
	}
	r.changed()
	return func() { r.remove(name, e) }, nil
}

// conflict decides whether a new registration may take the place of old:
// registering a handler under a reserved name promotes it (even with
// WithRejectDuplicates), Reserve never takes a working tool's executor
// away, and otherwise a taken name is replaced unless duplicates are
// rejected.
func (r *Registry) conflict(old *entry, reserving bool) error {
	switch {
	case old == nil, old.reserved && !reserving:
		return nil
	case !old.reserved && reserving:
		return problemf(ErrDuplicate, "the name has an executor (plugin %s); Reserve would take it away", quote(old.tool.PluginName))
	case r.cfg.rejectDuplicate:
		return problemf(ErrDuplicate, "name already registered by plugin %s", quote(old.tool.PluginName))
	}
	return nil
}

// prepare checks t and builds its immutable entry, or reports every problem
// in a *RegisterError.
func (r *Registry) prepare(t RegisteredTool, pluginName string, reserved bool) (*entry, error) {
	e, errs := r.build(t, pluginName, reserved)
	if t.Handler == nil && !reserved {
		errs = append([]error{problemf(ErrMissingHandler, "Handler is nil (use Reserve to declare a tool without one)")}, errs...)
	}
	if len(errs) > 0 {
		return nil, &RegisterError{Name: t.Definition.Function.Name, Plugin: pluginName, Problems: errs}
	}
	return e, nil
}

func (r *Registry) build(t RegisteredTool, pluginName string, reserved bool) (*entry, []error) {
	def, v, errs := r.buildSchema(t.Definition)
	errs = append(checkHeader(t.Definition), errs...)
	errs = append(errs, checkPolicy(PolicyDecl{Visibility: t.Visibility, Confirm: t.Confirm, Risk: t.Risk})...)
	for _, g := range t.Groups {
		if !validName(g) {
			errs = append(errs, problemf(ErrInvalidName, "group name %s does not match ^[a-zA-Z0-9_-]{1,64}$", quote(g)))
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
	if r.cfg.useNumber {
		t.UseNumber = true
	}
	wire, err := json.Marshal(t.Definition)
	if err != nil {
		return nil, []error{problemf(ErrInvalidSchema, "definition cannot be encoded as JSON: %v", err)}
	}
	e := &entry{
		tool:     t,
		reserved: reserved,
		policy:   ResolvePolicy(PolicyDecl{Visibility: t.Visibility, Confirm: t.Confirm, Risk: t.Risk}, ""),
		valid:    v,
		redact:   newRedaction(def.Function.Parameters),
		wire:     wire,
	}
	e.info = ToolInfo{
		Name:        t.Definition.Function.Name,
		Description: t.Definition.Function.Description,
		PluginName:  pluginName,
		Visibility:  e.policy.Visibility,
		Confirm:     e.policy.Confirm,
		Risk:        t.Risk,
		Groups:      t.Groups,
		Reserved:    reserved,
		Permission:  t.Permission,
	}
	e.lower = strings.ToLower(e.info.Name)
	e.tokens = appendNew(nil, nameTokens(e.lower)...)
	e.squashed = squash(e.lower)
	return e, nil
}

// buildSchema checks the parameter schema within the registry's limits,
// copies it, checks its rules and builds its validator. Each step runs only
// on what the one before admitted, so a hostile schema stops at the first
// bound it breaks.
func (r *Registry) buildSchema(d Definition) (Definition, validator, []error) {
	if err := checkSchemaShape(d.Function.Parameters, r.cfg.schema); err != nil {
		return d, validator{}, []error{err}
	}
	def, err := d.normalized(r.cfg.schema.MaxBytes)
	if err != nil {
		return d, validator{}, []error{err}
	}
	if errs := checkSchemaRules(def); len(errs) > 0 {
		return def, validator{}, errs
	}
	if err := checkRefCycles(def.Function.Parameters); err != nil {
		return def, validator{}, []error{err}
	}
	v, err := newValidator(def, r.cfg.validateAll)
	if err != nil {
		return def, validator{}, []error{err}
	}
	return def, v, nil
}

func (r *Registry) remove(name string, e *entry) {
	r.mu.Lock()
	removed := r.tools[name] == e
	if removed {
		delete(r.tools, name)
		r.names.remove(e)
		r.version.Add(1)
	}
	r.mu.Unlock()
	if removed {
		r.changed()
	}
}

// UnregisterByPlugin removes every tool, group and pack that pluginName
// registered.
// An unknown plugin changes nothing.
func (r *Registry) UnregisterByPlugin(pluginName string) {
	r.mu.Lock()
	n := 0
	for name, e := range r.tools {
		if e.tool.PluginName == pluginName {
			delete(r.tools, name)
			r.names.remove(e)
			n++
		}
	}
	for name, ge := range r.groups {
		if ge.info.PluginName == pluginName {
			delete(r.groups, name)
			n++
		}
	}
	for id, pe := range r.packs {
		if pe.pack.PluginName == pluginName {
			delete(r.packs, id)
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

// Definitions returns the definitions that a reaches, sorted by name, so the
// same set of tools always marshals to the same bytes. A tool is listed
// exactly when [Registry.Execute] with [CallContext.Access] set to a would
// run it.
//
// The result is cached until the registry changes (unless a holds a layer
// made with [LayerFunc]) and is shared between callers: treat it, and the
// schemas in it, as read-only.
func (r *Registry) Definitions(a Access) []Definition {
	return r.view(&a).defs
}

// DefinitionsJSON returns json.Marshal(r.Definitions(a)): the request's
// "tools" array as bytes, "[]" when empty. Each tool is encoded once, at
// Register; the joined bytes are cached like [Registry.Definitions]. The
// slice is shared: do not modify it.
func (r *Registry) DefinitionsJSON(a Access) []byte {
	v := r.view(&a)
	v.jsonOnce.Do(func() { v.json = joinWire(v.entries) })
	return v.json
}

// listing is what one Access reaches at one version.
type listing struct {
	entries  []*entry
	defs     []Definition
	jsonOnce sync.Once
	json     []byte
}

// view returns the listing of a at the current version, from the cache when
// it can.
func (r *Registry) view(a *Access) *listing {
	s := r.current()
	var buf [128]byte
	key, cacheable := a.appendKey(buf[:0])
	if cacheable {
		s.viewMu.Lock()
		v, ok := s.views[string(key)] // no allocation for the lookup
		s.viewMu.Unlock()
		if ok {
			return v
		}
	}
	v := &listing{}
	for _, e := range s.sorted {
		if out, _ := r.reach(e, a); out == reached {
			v.entries = append(v.entries, e)
		}
	}
	v.defs = make([]Definition, len(v.entries))
	for i, e := range v.entries {
		v.defs[i] = e.tool.Definition
	}
	if cacheable {
		s.viewMu.Lock()
		if s.views == nil {
			s.views = map[string]*listing{}
		}
		if len(s.views) < maxViews {
			s.views[string(key)] = v
		}
		s.viewMu.Unlock()
	}
	return v
}

// joinWire joins the tools' encoded definitions into one JSON array.
func joinWire(entries []*entry) []byte {
	n := 2
	for _, e := range entries {
		n += len(e.wire) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, e := range entries {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e.wire...)
	}
	return append(out, ']')
}

// Summaries returns the name, description and groups of each tool that a
// reaches, sorted by name; an empty slice, never nil, when there is none.
func (r *Registry) Summaries(a Access) []Summary {
	entries := r.view(&a).entries
	out := make([]Summary, len(entries))
	for i, e := range entries {
		out[i] = Summary{Name: e.name(), Description: e.tool.Definition.Function.Description, Groups: slices.Clone(e.tool.Groups)}
	}
	return out
}

// All returns every tool, reserved ones included, with its resolved policy,
// sorted by name.
func (r *Registry) All() []ToolInfo {
	sorted := r.current().sorted
	out := make([]ToolInfo, len(sorted))
	for i, e := range sorted {
		out[i] = e.infoCopy()
	}
	return out
}

// Lookup returns the [ToolInfo] of the tool registered as name, reserved
// ones included, and whether there is one. It ignores groups and layers: it
// is for administration, not for deciding what a caller may reach (see
// [Registry.Explain]).
func (r *Registry) Lookup(name string) (ToolInfo, bool) {
	e := r.current().byName[name]
	if e == nil {
		return ToolInfo{}, false
	}
	return e.infoCopy(), true
}

func (e *entry) infoCopy() ToolInfo {
	info := e.info
	info.Groups = slices.Clone(info.Groups)
	return info
}
