package toolreg

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
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
	// What every call reads comes first, to share cache lines.
	reserved bool
	short    bool   // Execute may take its short path: see Registry.direct
	hash     uint64 // nameHash of the name, for the library's layers
	policy   Policy
	valid    validator
	tool     RegisteredTool // normalized definition, copied groups
	info     ToolInfo       // what layers and Lookup see; Groups shared, read-only
	redact   *redaction
	wire     []byte   // json.Marshal(tool.Definition), encoded once
	lower    string   // the name in lower case, for suggestions
	squashed string   // lower without "_" and "-"
	tokens   []string // its "_"/"-" tokens

	abandoned atomic.Int64 // calls still running after Execute returned
}

func (e *entry) name() string { return e.tool.Definition.Function.Name }

// Registry holds the tools an LLM agent may call. Create it with [New]; the
// zero value is not usable. Every method is safe for concurrent use, and no
// lock is held while user code (handlers, guards, listeners) runs.
type Registry struct {
	cfg config

	// mu serializes writers and guards groups, packs and byPlugin. Tools
	// live in snap: writers publish each new snapshot under mu, readers
	// load it without locking.
	mu       sync.RWMutex
	snap     atomic.Pointer[snapshot]
	groups   map[string]*groupEntry
	packs    map[string]*packEntry
	byPlugin map[string]map[string]*entry // plugin -> its tools by name
	views    viewCache                    // listings by Access and version

	guard atomic.Pointer[ExecutionGuard]

	hookMu    sync.Mutex // serializes changes to listeners and onChange
	listeners atomic.Pointer[[]*listener]
	onChange  atomic.Pointer[[]*changeHook]
	notify    notifier
	names     nameIndex // for suggestions; kept under mu
	changes   changeLog // for ChangedSince; kept under mu

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
		listingCache: DefaultListingCache,
	}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	r := &Registry{cfg: cfg, groups: map[string]*groupEntry{}, packs: map[string]*packEntry{}, byPlugin: map[string]map[string]*entry{}}
	r.views.max = cfg.listingCache
	r.snap.Store(emptySnapshot())
	return r
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
	old := r.snap.Load().lookup(name)
	if err := r.conflict(old, reserved); err != nil {
		r.mu.Unlock()
		return noop, &RegisterError{Name: name, Plugin: pluginName, Problems: []error{err}}
	}
	r.put(old, e)
	r.publish(change{name, e})
	r.mu.Unlock()
	if old != nil && !(old.reserved && !reserved) {
		r.logAt(context.Background(), slog.LevelWarn, "toolreg: tool replaced", "tool", name, "old_plugin", old.tool.PluginName, "plugin", pluginName)
	}
	r.changed()
	return func() { r.remove(name, e) }, nil
}

// RegisterAll registers every tool of a catalog under pluginName at once:
// one change, one version, one round of change hooks, however many tools.
// It is all or nothing: every problem of every tool (as [Registry.Register]
// finds them, and names that repeat within tools) is reported joined, and
// then nothing changes. The returned func removes the registrations that
// are still current. Use it to load large catalogs.
func (r *Registry) RegisterAll(tools []RegisteredTool, pluginName string) (unregister func(), err error) {
	entries := make([]*entry, 0, len(tools))
	var errs []error
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		e, err := r.prepare(t, pluginName, false)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[e.name()] {
			errs = append(errs, &RegisterError{Name: e.name(), Plugin: pluginName, Problems: []error{problemf(ErrDuplicate, "the name appears twice in the batch")}})
			continue
		}
		seen[e.name()] = true
		entries = append(entries, e)
	}
	if len(errs) > 0 {
		return noop, errors.Join(errs...)
	}
	r.mu.Lock()
	s := r.snap.Load()
	for _, e := range entries {
		if err := r.conflict(s.lookup(e.name()), false); err != nil {
			errs = append(errs, &RegisterError{Name: e.name(), Plugin: pluginName, Problems: []error{err}})
		}
	}
	if len(errs) > 0 {
		r.mu.Unlock()
		return noop, errors.Join(errs...)
	}
	changes := make([]change, len(entries))
	for i, e := range entries {
		r.put(s.lookup(e.name()), e)
		changes[i] = change{e.name(), e}
	}
	r.publish(changes...)
	r.mu.Unlock()
	r.changed()
	return func() { r.removeAll(entries) }, nil
}

// put records that e takes old's place (nil: a new name) in the indexes
// beside the snapshot; r.mu is held.
func (r *Registry) put(old, e *entry) {
	if old != nil {
		r.untrack(old)
	}
	plugin := r.byPlugin[e.tool.PluginName]
	if plugin == nil {
		plugin = map[string]*entry{}
		r.byPlugin[e.tool.PluginName] = plugin
	}
	plugin[e.name()] = e
	r.names.add(e)
}

// untrack drops e from the indexes beside the snapshot; r.mu is held.
func (r *Registry) untrack(e *entry) {
	if plugin := r.byPlugin[e.tool.PluginName]; plugin[e.name()] == e {
		delete(plugin, e.name())
		if len(plugin) == 0 {
			delete(r.byPlugin, e.tool.PluginName)
		}
	}
	r.names.remove(e)
}

// publish makes the next snapshot, with changes, current; r.mu is held.
func (r *Registry) publish(changes ...change) {
	s := r.snap.Load()
	for _, c := range changes {
		r.changes.add(s.version+1, c.name)
	}
	r.snap.Store(s.apply(s.version+1, changes...))
}

// bump publishes a new version for a change of groups or packs; r.mu is held.
func (r *Registry) bump() {
	s := r.snap.Load()
	r.snap.Store(s.withVersion(s.version + 1))
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
	def, s, errs := r.buildSchema(t.Definition)
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
	e := &entry{
		tool:     t,
		reserved: reserved,
		policy:   ResolvePolicy(PolicyDecl{Visibility: t.Visibility, Confirm: t.Confirm, Risk: t.Risk}, ""),
		valid:    s.valid,
		redact:   s.redact,
		wire:     s.wire,
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
	e.hash = nameHash(e.info.Name)
	e.short = !reserved && (t.Inline || r.cfg.inline) && r.timeout(e) <= 0 &&
		e.policy.Visibility != VisibilityRestricted && e.policy.Confirm == ConfirmNone
	e.lower = strings.ToLower(e.info.Name)
	e.tokens = appendNew(nil, nameTokens(e.lower)...)
	e.squashed = squash(e.lower)
	return e, nil
}

// builtSchema is what Register derives from a definition's schema.
type builtSchema struct {
	valid  validator
	redact *redaction
	wire   []byte // json.Marshal of the normalized definition
}

// buildSchema checks the parameter schema within the registry's limits,
// copies it, checks its rules and builds what the registry keeps of it.
// Each step runs only on what the one before admitted, so a hostile schema
// stops at the first bound it breaks; steps a schema cannot need (the $ref
// cycle check, the redaction of x-sensitive marks) are skipped when its
// encoding does not mention them.
func (r *Registry) buildSchema(d Definition) (Definition, builtSchema, []error) {
	var b builtSchema
	if err := checkSchemaShape(d.Function.Parameters, r.cfg.schema); err != nil {
		return d, b, []error{err}
	}
	def, err := d.normalized(r.cfg.schema.MaxBytes)
	if err != nil {
		return d, b, []error{err}
	}
	if errs := checkSchemaRules(def); len(errs) > 0 {
		return def, b, errs
	}
	if b.wire, err = encodeNormalized(def); err != nil {
		return def, b, []error{problemf(ErrInvalidSchema, "definition cannot be encoded as JSON: %v", err)}
	}
	if len(b.wire) > r.cfg.schema.MaxBytes+maxNameLen+len(def.Function.Description)+64 {
		return def, b, []error{problemf(ErrInvalidSchema, "parameters take %d bytes as JSON, more than the %d allowed", len(b.wire), r.cfg.schema.MaxBytes)}
	}
	if bytes.Contains(b.wire, []byte(`"$ref"`)) {
		if err := checkRefCycles(def.Function.Parameters); err != nil {
			return def, b, []error{err}
		}
	}
	if b.valid, err = newValidator(def, r.cfg.validateAll); err != nil {
		return def, b, []error{err}
	}
	if bytes.Contains(b.wire, []byte(`"x-sensitive"`)) {
		b.redact = newRedaction(def.Function.Parameters)
	}
	return def, b, nil
}

func (r *Registry) remove(name string, e *entry) {
	r.removeAll([]*entry{e})
}

// removeAll removes those of entries that are still current, in one change.
func (r *Registry) removeAll(entries []*entry) {
	r.mu.Lock()
	s := r.snap.Load()
	var changes []change
	for _, e := range entries {
		if s.lookup(e.name()) == e {
			r.untrack(e)
			changes = append(changes, change{name: e.name()})
		}
	}
	if len(changes) > 0 {
		r.publish(changes...)
	}
	r.mu.Unlock()
	if len(changes) > 0 {
		r.changed()
	}
}

// UnregisterByPlugin removes every tool, group and pack that pluginName
// registered, in one change, in time proportional to what it removes. An
// unknown plugin changes nothing.
func (r *Registry) UnregisterByPlugin(pluginName string) {
	r.mu.Lock()
	var changes []change
	for name, e := range r.byPlugin[pluginName] {
		r.names.remove(e)
		changes = append(changes, change{name: name})
	}
	delete(r.byPlugin, pluginName)
	n := len(changes)
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
		r.publish(changes...)
	}
	r.mu.Unlock()
	if n > 0 {
		r.changed()
	}
}

// current returns the current snapshot.
func (r *Registry) current() *snapshot { return r.snap.Load() }

// Has reports whether name is registered with an executor. Reserved tools
// report false.
func (r *Registry) Has(name string) bool {
	e := r.current().lookup(name)
	return e != nil && !e.reserved
}

// All returns every tool, reserved ones included, with its resolved policy,
// sorted by name.
func (r *Registry) All() []ToolInfo {
	s := r.current()
	out := make([]ToolInfo, 0, s.count)
	s.each(func(e *entry) bool {
		out = append(out, e.infoCopy())
		return true
	})
	return out
}

// Lookup returns the [ToolInfo] of the tool registered as name, reserved
// ones included, and whether there is one. It ignores groups and layers: it
// is for administration, not for deciding what a caller may reach (see
// [Registry.Explain]).
func (r *Registry) Lookup(name string) (ToolInfo, bool) {
	e := r.current().lookup(name)
	if e == nil {
		return ToolInfo{}, false
	}
	return e.infoCopy(), true
}

// Definition returns the definition of the tool registered as name, as
// [Registry.Definitions] lists it, whatever its groups; false for a name
// that is unknown or only reserved. Its schema maps are the registry's:
// treat them as read-only.
func (r *Registry) Definition(name string) (Definition, bool) {
	e := r.current().lookup(name)
	if e == nil || e.reserved {
		return Definition{}, false
	}
	return e.tool.Definition, true
}

func (e *entry) infoCopy() ToolInfo {
	info := e.info
	info.Groups = slices.Clone(info.Groups)
	return info
}
