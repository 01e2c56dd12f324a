package toolreg

import (
	"errors"
	"fmt"
	"slices"
)

// Catalog is what a product declares about its tools beside the registry:
// the permission rules, the plans, and named lists of tools (a scenario's
// declared tools, an agent's whitelist). [Registry.CheckIntegrity] checks
// that it agrees with the registered tools and packs.
type Catalog struct {
	Permissions  *Permissions
	Entitlements []Entitlements
	Whitelists   map[string][]string // named lists of tool names that must all exist (a scenario's tools)
}

// IntegrityProblem is one inconsistency that [Registry.CheckIntegrity]
// found. Source says where it sits ("pack \"code\"", "permissions", "plan
// \"free\"", "whitelist \"agent\""); Tool names the tool involved, if any.
type IntegrityProblem struct {
	Source string
	Tool   string
	Reason string
}

func (p *IntegrityProblem) Error() string {
	if p.Tool == "" {
		return "toolreg: " + p.Source + ": " + p.Reason
	}
	return "toolreg: " + p.Source + ": tool " + quote(p.Tool) + " " + p.Reason
}

// CheckIntegrity returns every inconsistency between the registry (its tools
// and packs) and c at once, joined with errors.Join, each an
// [*IntegrityProblem]; nil when all is consistent. It finds: a pack tool
// with no definition or no executor; a tool both in a pack's tools and its
// reserved list; a reserved tool that has an executor; a pack requiring an
// unknown pack; a plan's catalog naming an unknown tool, or a tool in two of
// its groups; a permission rule naming an unknown tool; a tool that no
// permission rule covers when unmapped tools are refused; a whitelist
// naming an unknown tool. Reserved tools count as known and need no
// permission (they cannot run). A product calls it in its tests and at
// start-up.
func (r *Registry) CheckIntegrity(c Catalog) error {
	s := r.current()
	known := func(t string) bool { return s.lookup(t) != nil }
	var problems []error
	add := func(source, tool, reason string, args ...any) {
		problems = append(problems, &IntegrityProblem{Source: source, Tool: tool, Reason: fmt.Sprintf(reason, args...)})
	}
	for _, p := range r.Packs() {
		r.checkPack(s, p, add)
	}
	for _, e := range c.Entitlements {
		src := "plan " + quote(cmpOr(e.Name, "entitlements"))
		_, problems := e.index()
		for _, p := range problems {
			add(src, p.Tool, "%s", p.Reason)
		}
		for _, g := range sortedKeys(e.Catalog) {
			for _, t := range e.Catalog[g] {
				if t != "" && !known(t) {
					add(src, t, "is in capability group %s but not registered", quote(g))
				}
			}
		}
		for _, t := range e.AlwaysAllowed {
			if !known(t) {
				add(src, t, "is always allowed but not registered")
			}
		}
	}
	if p := c.Permissions; p != nil {
		checkPermissions(s, p, known, add)
	}
	for _, name := range sortedKeys(c.Whitelists) {
		for _, t := range c.Whitelists[name] {
			if !known(t) {
				add("whitelist "+quote(name), t, "is not registered")
			}
		}
	}
	return errors.Join(problems...)
}

// checkPack reports what is wrong between one pack and the registry.
func (r *Registry) checkPack(s *snapshot, p Pack, add func(source, tool, reason string, args ...any)) {
	src := "pack " + quote(p.ID)
	for _, t := range slices.Concat(p.Tools, p.OptionalTools) {
		switch e := s.lookup(t); {
		case e == nil:
			add(src, t, "is enabled by the pack but not registered")
		case e.reserved:
			add(src, t, "is enabled by the pack but has no executor (reserved)")
		}
		if slices.Contains(p.ReservedTools, t) {
			add(src, t, "is both enabled and reserved by the pack")
		}
	}
	for _, t := range p.ReservedTools {
		if e := s.lookup(t); e != nil && !e.reserved {
			add(src, t, "is listed as reserved but has an executor")
		}
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, dep := range p.Requires {
		if r.packs[dep] == nil {
			add(src, "", "requires pack %s, which is not registered", quote(dep))
		}
	}
}

// checkPermissions reports permission rules that name unknown tools, and,
// when unmapped tools are refused, runnable tools that no rule covers.
func checkPermissions(s *snapshot, p *Permissions, known func(string) bool, add func(source, tool, reason string, args ...any)) {
	if err := p.check(); err != nil {
		add("permissions", "", "%v", err)
	}
	for _, list := range []struct {
		rule  string
		tools []string
	}{{"Required", sortedKeys(p.Required)}, {"Deny", p.Deny}, {"Allow", p.Allow}} {
		for _, t := range list.tools {
			if t != "" && !known(t) {
				add("permissions", t, "is named in %s but not registered", list.rule)
			}
		}
	}
	if p.AllowUnmapped {
		return
	}
	l := &permLayer{required: requiredTable(p.Required, nil), deny: nameSet(p.Deny), allow: nameSet(p.Allow), prefixes: prefixRules(p.Prefixes, nil)}
	s.each(func(e *entry) bool {
		if _, rule := l.requirement(&e.info, e.hash); rule == ruleUnmapped && !e.reserved {
			add("permissions", e.name(), "is covered by no permission rule, and unmapped tools are refused")
		}
		return true
	})
}
