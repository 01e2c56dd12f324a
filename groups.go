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

// AllGroups, in [Filter.Groups] or [CallContext.EnabledGroups], enables every
// group.
const AllGroups = "*"

// Filter selects the tools offered to a model.
//
// The zero Filter offers ungrouped tools only. A grouped tool is offered when
// one of its groups is in Groups, or Groups contains [AllGroups]. Reserved
// tools are never offered.
type Filter struct {
	Groups []string
}

// appendKey appends a canonical cache key for f to dst: the same set of
// groups in any order gives the same key. Small filters are sorted in a
// stack array, so a cache hit allocates nothing.
func (f Filter) appendKey(dst []byte) []byte {
	var arr [8]string
	g := append(arr[:0], f.Groups...)
	slices.Sort(g)
	for i, name := range slices.Compact(g) {
		if i > 0 {
			dst = append(dst, 0)
		}
		dst = append(dst, name...)
	}
	return dst
}

// offered is the one predicate behind both listing and executing: Definitions
// lists a tool exactly when Execute, gated by the same groups, runs it.
func offered(e *entry, enabled []string) bool {
	return !e.reserved && inGroups(e, enabled)
}

// inGroups reports whether the groups in enabled admit e: an ungrouped tool
// always, a grouped one when it shares a group or enabled holds AllGroups.
func inGroups(e *entry, enabled []string) bool {
	if len(e.tool.Groups) == 0 {
		return true
	}
	for _, g := range enabled {
		if g == AllGroups || slices.Contains(e.tool.Groups, g) {
			return true
		}
	}
	return false
}

// groupEntry is one group registration; its pointer identifies it, so an
// unregister func removes only the registration it came from.
type groupEntry struct {
	info GroupInfo
}

// RegisterGroup records g under pluginName, replacing a group of the same
// name (with a warning in the log). The returned func removes this very
// registration and is a no-op once it was replaced or removed. A group whose
// name is invalid (see [Registry.Register]) is not recorded: the error is
// logged and a no-op func returned.
func (r *Registry) RegisterGroup(g GroupInfo, pluginName string) (unregister func()) {
	if !validName(g.Name) {
		r.cfg.logger.Error("toolreg: group not registered: invalid name", "group", g.Name, "plugin", pluginName)
		return func() {}
	}
	g.PluginName = pluginName
	ge := &groupEntry{info: g}
	r.mu.Lock()
	old := r.groups[g.Name]
	r.groups[g.Name] = ge
	r.version.Add(1)
	r.mu.Unlock()
	if old != nil {
		r.cfg.logger.Warn("toolreg: group replaced", "group", g.Name, "old_plugin", old.info.PluginName, "plugin", pluginName)
	}
	r.changed()
	return func() { r.removeGroup(g.Name, ge) }
}

func (r *Registry) removeGroup(name string, ge *groupEntry) {
	r.mu.Lock()
	removed := r.groups[name] == ge
	if removed {
		delete(r.groups, name)
		r.version.Add(1)
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
