package toolreg

import (
	"context"
	"log/slog"
	"slices"
	"strings"
)

// Pack is a set of tools that a user switches on together ("code", "web",
// "office"). Packs say what to enable; [Registry.ResolvePacks] turns a
// selection of packs into the tools to enable, and its [PackResolution.Layer]
// makes that an availability layer.
type Pack struct {
	ID, Name, Description, Category string
	Tools                           []string // enabled with the pack
	OptionalTools                   []string // enabled only when optional tools are asked for
	ReservedTools                   []string // planned, no executor: never enabled, never offered
	Requires                        []string // pack ids
	PluginName                      string   // filled by RegisterPack
}

// packEntry is one pack registration; its pointer identifies it.
type packEntry struct {
	pack Pack
}

// RegisterPack records p under pluginName and returns a func that removes
// this very registration (a no-op once it was replaced or removed). The pack
// id and every tool and pack it names must match the tool-name rule; every
// problem is reported at once in a [*RegisterError] wrapping
// [ErrInvalidName]. A pack with the same id is replaced, with a warning in
// the log, unless the registry was built [WithRejectDuplicates]: then it
// fails with [ErrDuplicate]. Whether the tools exist is not checked here
// (packs may be registered before their tools); see
// [Registry.CheckIntegrity]. The pack is copied.
func (r *Registry) RegisterPack(p Pack, pluginName string) (unregister func(), err error) {
	if errs := checkPack(p); len(errs) > 0 {
		return noop, &RegisterError{Kind: "pack", Name: p.ID, Plugin: pluginName, Problems: errs}
	}
	p = clonePack(p)
	p.PluginName = pluginName
	pe := &packEntry{pack: p}
	r.mu.Lock()
	old := r.packs[p.ID]
	if old != nil && r.cfg.rejectDuplicate {
		r.mu.Unlock()
		return noop, &RegisterError{Kind: "pack", Name: p.ID, Plugin: pluginName, Problems: []error{
			problemf(ErrDuplicate, "pack already registered by plugin %s", quote(old.pack.PluginName))}}
	}
	r.packs[p.ID] = pe
	r.bump()
	r.mu.Unlock()
	if old != nil {
		r.logAt(context.Background(), slog.LevelWarn, "toolreg: pack replaced", "pack", p.ID, "old_plugin", old.pack.PluginName, "plugin", pluginName)
	}
	r.changed()
	return func() { r.removePack(p.ID, pe) }, nil
}

func checkPack(p Pack) []error {
	var errs []error
	if !validName(p.ID) {
		errs = append(errs, problemf(ErrInvalidName, "pack id %s does not match ^[a-zA-Z0-9_-]{1,64}$", quote(p.ID)))
	}
	for _, list := range []struct {
		field string
		names []string
	}{{"Tools", p.Tools}, {"OptionalTools", p.OptionalTools}, {"ReservedTools", p.ReservedTools}, {"Requires", p.Requires}} {
		for _, n := range list.names {
			if !validName(n) {
				errs = append(errs, problemf(ErrInvalidName, "%s names %s, which does not match ^[a-zA-Z0-9_-]{1,64}$", list.field, quote(n)))
			}
		}
	}
	return errs
}

func clonePack(p Pack) Pack {
	p.Tools = slices.Clone(p.Tools)
	p.OptionalTools = slices.Clone(p.OptionalTools)
	p.ReservedTools = slices.Clone(p.ReservedTools)
	p.Requires = slices.Clone(p.Requires)
	return p
}

func (r *Registry) removePack(id string, pe *packEntry) {
	r.mu.Lock()
	removed := r.packs[id] == pe
	if removed {
		delete(r.packs, id)
		r.bump()
	}
	r.mu.Unlock()
	if removed {
		r.changed()
	}
}

// Packs returns every registered pack, sorted by ID. The packs are copies.
func (r *Registry) Packs() []Pack {
	r.mu.RLock()
	out := make([]Pack, 0, len(r.packs))
	for _, pe := range r.packs {
		out = append(out, clonePack(pe.pack))
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b Pack) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// PackResolution is what a selection of packs enables.
type PackResolution struct {
	Packs    []string // inputs first (deduplicated), then dependencies breadth-first; cycles end
	Tools    []string // tools to enable, in pack order, deduplicated
	Reserved []string // reserved tools of the resolved packs (they stay off)
	Unknown  []string // pack ids not registered (inputs or dependencies), first-seen order
	Missing  []string // tools a resolved pack enables that the registry lacks or only reserves
}

// ResolvePacks resolves the packs ids and everything they require. The
// input ids come first, in order and without repeats, then their
// dependencies breadth first; a dependency cycle ends where it closes. An id
// that is not registered goes to Unknown, never silently dropped. Each
// resolved pack contributes its Tools, then its OptionalTools when
// includeOptional is set: those the registry can run go to Tools, the others
// to Missing. Its ReservedTools go to Reserved.
func (r *Registry) ResolvePacks(ids []string, includeOptional bool) PackResolution {
	r.mu.RLock()
	packs := make(map[string]Pack, len(r.packs))
	for id, pe := range r.packs {
		packs[id] = pe.pack
	}
	r.mu.RUnlock()
	s := r.current()

	var res PackResolution
	seen := map[string]bool{}
	queue := slices.Clone(ids)
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		p, ok := packs[id]
		if !ok {
			res.Unknown = append(res.Unknown, id)
			continue
		}
		res.Packs = append(res.Packs, id)
		queue = append(queue, p.Requires...)
	}
	tools, reserved, missing := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, id := range res.Packs {
		p := packs[id]
		enable := p.Tools
		if includeOptional {
			enable = slices.Concat(p.Tools, p.OptionalTools)
		}
		for _, t := range enable {
			if e := s.lookup(t); e != nil && !e.reserved {
				res.Tools = appendOnce(res.Tools, tools, t)
			} else {
				res.Missing = appendOnce(res.Missing, missing, t)
			}
		}
		for _, t := range p.ReservedTools {
			res.Reserved = appendOnce(res.Reserved, reserved, t)
		}
	}
	return res
}

func appendOnce(list []string, seen map[string]bool, s string) []string {
	if seen[s] {
		return list
	}
	seen[s] = true
	return append(list, s)
}

// Layer returns a layer named name that admits exactly p.Tools: the tools
// of the resolved packs. The zero PackResolution's layer admits nothing.
func (p PackResolution) Layer(name string) Layer {
	tools := p.Tools
	if tools == nil {
		tools = []string{}
	}
	l := newSetLayer(name, tools, true, "not in an enabled pack")
	return l
}
