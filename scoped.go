package toolreg

import (
	"errors"
	"slices"
	"sync"
)

// Scope registers tools, reserved tools, groups and packs on behalf of one
// plugin: it fills PluginName, can add groups to every tool, and removes
// everything at Close.
//
// A Scope may exist before any registry: registrations made while it is
// unbound are checked, kept, and applied when [Scope.Bind] is called, and
// applied again to each registry it is bound to later. Do not call a Scope's
// methods from an [Registry.OnChange] hook; they hold the scope's lock while
// registering.
type Scope struct {
	groups []string // merged into every tool's own groups
	core   *scopeCore
}

// scopeCore is shared by a scope and the scopes WithGroups derives from it.
type scopeCore struct {
	mu     sync.Mutex
	plugin string
	reg    *Registry
	items  []*scoped
}

// scoped is one registration made through a scope: how to apply it to a
// registry, and how to undo the current application.
type scoped struct {
	apply func(r *Registry, plugin string) (func(), error)
	undo  func()
}

// NewScope returns an unbound scope for pluginName; see [Scope.Bind].
func NewScope(pluginName string) *Scope {
	return &Scope{core: &scopeCore{plugin: pluginName}}
}

// Scope returns a scope for pluginName bound to r.
func (r *Registry) Scope(pluginName string) *Scope {
	s := NewScope(pluginName)
	_ = s.Bind(r) // a new scope has nothing to apply: Bind cannot fail
	return s
}

// Bind applies every registration made through the scope so far, and every
// later one, to r. Binding to another registry (the old one was replaced)
// removes them from the old one and applies them all to r; binding to the
// same registry again does nothing, and Bind(nil) unbinds. Bind returns
// every registration r refused (say [WithRejectDuplicates] found a name
// taken), joined; the others are applied.
func (s *Scope) Bind(r *Registry) error {
	c := s.core
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reg == r {
		return nil
	}
	for _, it := range c.items {
		it.undo()
		it.undo = noop
	}
	c.reg = r
	if r == nil {
		return nil
	}
	var errs []error
	for _, it := range c.items {
		var err error
		if it.undo, err = it.apply(r, c.plugin); err != nil {
			it.undo = noop
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// add applies a registration now if the scope is bound, or checks it
// against a default registry if not, and keeps it for later bindings. The
// returned func removes it, now and from any later binding.
func (c *scopeCore) add(apply func(r *Registry, plugin string) (func(), error)) (func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it := &scoped{apply: apply, undo: noop}
	target := c.reg
	if target == nil {
		target = New() // a throwaway registry: the same checks, nothing kept
	}
	undo, err := apply(target, c.plugin)
	if err != nil {
		return noop, err
	}
	if c.reg != nil {
		it.undo = undo
	}
	c.items = append(c.items, it)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if i := slices.Index(c.items, it); i >= 0 {
			c.items = slices.Delete(c.items, i, i+1)
			it.undo()
		}
	}, nil
}

// Register registers t for the scope's plugin, with the scope's groups
// appended to t's own. When bound, it behaves as [Registry.Register]; when
// unbound, it checks t as a default registry would, keeps it, and registers
// it at [Scope.Bind]. The returned func removes this registration, now and
// from any later binding.
func (s *Scope) Register(t RegisteredTool) (unregister func(), err error) {
	t.Groups = appendNew(t.Groups, s.groups...)
	return s.core.add(func(r *Registry, plugin string) (func(), error) { return r.Register(t, plugin) })
}

// Reserve declares a tool without an executor for the scope's plugin, as
// [Registry.Reserve] does, now if bound and at every [Scope.Bind].
func (s *Scope) Reserve(d Definition) (unregister func(), err error) {
	return s.core.add(func(r *Registry, plugin string) (func(), error) { return r.Reserve(d, plugin) })
}

// RegisterGroup records g for the scope's plugin, as [Registry.RegisterGroup]
// does, now if bound and at every [Scope.Bind].
func (s *Scope) RegisterGroup(g GroupInfo) (unregister func(), err error) {
	return s.core.add(func(r *Registry, plugin string) (func(), error) { return r.RegisterGroup(g, plugin) })
}

// RegisterPack records p for the scope's plugin, as [Registry.RegisterPack]
// does, now if bound and at every [Scope.Bind].
func (s *Scope) RegisterPack(p Pack) (unregister func(), err error) {
	p = clonePack(p)
	return s.core.add(func(r *Registry, plugin string) (func(), error) { return r.RegisterPack(p, plugin) })
}

// WithGroups returns a scope of the same plugin whose Register appends groups
// to each tool's own groups (merged, duplicates dropped). It shares its
// registrations with s: closing either closes both.
func (s *Scope) WithGroups(groups ...string) *Scope {
	return &Scope{groups: appendNew(s.groups, groups...), core: s.core}
}

// Close removes everything the scope's plugin registered in the bound
// registry, through this scope or otherwise, and forgets the scope's
// registrations. The scope stays usable.
func (s *Scope) Close() {
	c := s.core
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reg != nil {
		c.reg.UnregisterByPlugin(c.plugin)
	}
	c.items = nil
}
