package toolreg

import (
	"errors"
	"slices"
	"sync"
)

// Scope registers tools and groups on behalf of one plugin: it fills
// PluginName, can add groups to every tool, and removes everything at Close.
//
// A Scope may exist before any registry: registrations made while it is
// unbound are kept and applied when [Scope.Bind] is called, and applied again
// to each registry it is bound to later. Do not call a Scope's methods from
// an [Registry.OnChange] hook; they hold the scope's lock while registering.
type Scope struct {
	groups []string // merged into every tool's own groups
	core   *scopeCore
}

// scopeCore is shared by a scope and the scopes WithGroups derives from it.
type scopeCore struct {
	mu     sync.Mutex
	plugin string
	reg    *Registry
	tools  []*scopedTool
	groups []*scopedGroup
}

type scopedTool struct {
	tool RegisteredTool
	undo func()
}

type scopedGroup struct {
	info GroupInfo
	undo func()
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
	for _, t := range c.tools {
		t.undo()
	}
	for _, g := range c.groups {
		g.undo()
	}
	c.reg = r
	var errs []error
	for _, t := range c.tools {
		var err error
		t.undo, err = c.apply(t.tool)
		errs = append(errs, err)
	}
	for _, g := range c.groups {
		var err error
		g.undo, err = c.applyGroup(g.info)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// apply registers t in the bound registry, if any; c.mu is held.
func (c *scopeCore) apply(t RegisteredTool) (func(), error) {
	if c.reg == nil {
		return noop, nil
	}
	return c.reg.Register(t, c.plugin)
}

func (c *scopeCore) applyGroup(g GroupInfo) (func(), error) {
	if c.reg == nil {
		return noop, nil
	}
	return c.reg.RegisterGroup(g, c.plugin)
}

// Register registers t for the scope's plugin, with the scope's groups
// appended to t's own. When bound, it behaves as [Registry.Register]; when
// unbound, it checks t as a default registry would, keeps it, and registers
// it at [Scope.Bind]. The returned func removes this registration, now and
// from any later binding.
func (s *Scope) Register(t RegisteredTool) (unregister func(), err error) {
	t.Groups = appendNew(t.Groups, s.groups...)
	c := s.core
	c.mu.Lock()
	defer c.mu.Unlock()
	rec := &scopedTool{tool: t, undo: noop}
	if c.reg == nil {
		if _, err := New().prepare(t, c.plugin, false); err != nil {
			return noop, err
		}
	} else {
		undo, err := c.reg.Register(t, c.plugin)
		if err != nil {
			return noop, err
		}
		rec.undo = undo
	}
	c.tools = append(c.tools, rec)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if i := slices.Index(c.tools, rec); i >= 0 {
			c.tools = slices.Delete(c.tools, i, i+1)
			rec.undo()
		}
	}, nil
}

// RegisterGroup records g for the scope's plugin, now if bound and at every
// [Scope.Bind]. When bound, it fails as [Registry.RegisterGroup] does; when
// unbound, an invalid name fails now. The returned func removes it.
func (s *Scope) RegisterGroup(g GroupInfo) (unregister func(), err error) {
	c := s.core
	c.mu.Lock()
	defer c.mu.Unlock()
	rec := &scopedGroup{info: g, undo: noop}
	if c.reg == nil {
		if _, err := New().RegisterGroup(g, c.plugin); err != nil {
			return noop, err
		}
	} else if rec.undo, err = c.applyGroup(g); err != nil {
		return noop, err
	}
	c.groups = append(c.groups, rec)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if i := slices.Index(c.groups, rec); i >= 0 {
			c.groups = slices.Delete(c.groups, i, i+1)
			rec.undo()
		}
	}, nil
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
	c.tools, c.groups = nil, nil
}
