package toolreg

import (
	"slices"
	"strings"
)

// GroupInfo describes a tool group for people: a settings page lists groups
// so that an operator can enable them per platform or session. Tools join a
// group by naming it in [RegisteredTool.Groups]; registering the GroupInfo is
// optional.
type GroupInfo struct {
	Name        string
	Label       string
	Description string
	PluginName  string // filled by RegisterGroup
}

// groupEntry is one group registration; its pointer identifies it, so an
// unregister func removes only the registration it came from.
type groupEntry struct {
	info GroupInfo
}

// RegisterGroup records g under pluginName and returns a func that removes
// this very registration (a no-op once it was replaced or removed). A group
// of the same name is replaced, with a warning in the log, unless the
// registry was built [WithRejectDuplicates]: then it fails with
// [ErrDuplicate]. An invalid name (see [Registry.Register]) fails with
// [ErrInvalidName]. On error nothing changes and the func is a no-op.
func (r *Registry) RegisterGroup(g GroupInfo, pluginName string) (unregister func(), err error) {
	if !validName(g.Name) {
		return noop, &RegisterError{Kind: "group", Name: g.Name, Plugin: pluginName, Problems: []error{
			problemf(ErrInvalidName, "group name %s does not match ^[a-zA-Z0-9_-]{1,64}$", quote(g.Name))}}
	}
	g.PluginName = pluginName
	ge := &groupEntry{info: g}
	r.mu.Lock()
	old := r.groups[g.Name]
	if old != nil && r.cfg.rejectDuplicate {
		r.mu.Unlock()
		return noop, &RegisterError{Kind: "group", Name: g.Name, Plugin: pluginName, Problems: []error{
			problemf(ErrDuplicate, "group already registered by plugin %s", quote(old.info.PluginName))}}
	}
	r.groups[g.Name] = ge
	r.bump()
	r.mu.Unlock()
	if old != nil {
		r.cfg.logger.Warn("toolreg: group replaced", "group", g.Name, "old_plugin", old.info.PluginName, "plugin", pluginName)
	}
	r.changed()
	return func() { r.removeGroup(g.Name, ge) }, nil
}

func (r *Registry) removeGroup(name string, ge *groupEntry) {
	r.mu.Lock()
	removed := r.groups[name] == ge
	if removed {
		delete(r.groups, name)
		r.bump()
	}
	r.mu.Unlock()
	if removed {
		r.changed()
	}
}

// Groups returns every registered group, sorted by name.
func (r *Registry) Groups() []GroupInfo {
	r.mu.RLock()
	out := make([]GroupInfo, 0, len(r.groups))
	for _, ge := range r.groups {
		out = append(out, ge.info)
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b GroupInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// appendNew returns own followed by the extra items it lacks, without
// repeats. It never writes into own.
func appendNew(own []string, extra ...string) []string {
	if len(extra) == 0 && len(own) < 2 {
		return own
	}
	out := make([]string, 0, len(own)+len(extra))
	for _, g := range slices.Concat(own, extra) {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}
