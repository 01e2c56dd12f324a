package toolreg

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Permissions maps tools to the permissions they require, so that a session
// is offered, and may run, only the tools its granted permissions cover. It
// is configuration; [Permissions.Layer] turns it into a [Layer] for one set
// of granted permissions.
//
// For a tool, the first rule that applies decides, in this order: Deny
// (never admitted), Allow (admitted without a permission), Required or else
// the tool's own [RegisteredTool.Permission] (admitted when granted),
// Prefixes (the longest matching prefix's permission, when granted), and
// last the unmapped rule: a tool that no rule covers is refused unless
// AllowUnmapped is set. Permissions are matched exactly.
type Permissions struct {
	Name          string            // layer name; "" means "permissions"
	Required      map[string]string // tool -> permission ("filesystem:write"); wins over RegisteredTool.Permission
	Prefixes      map[string]string // name prefix -> permission ("mcp_" -> "mcp:call"); the longest prefix wins
	Deny          []string          // tools never admitted
	Allow         []string          // tools admitted without a permission
	AllowUnmapped bool              // false (default): a tool that no rule covers is refused
	Reveal        bool              // tell the model which permission is missing, instead of hiding the tool
}

// Layer returns the layer that admits what granted covers. It fails, naming
// each problem, when a tool is both in Deny and in Allow, or when a tool
// name, prefix or permission is empty.
func (p Permissions) Layer(granted ...string) (Layer, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	l := &permLayer{
		name:     cmpOr(p.Name, "permissions"),
		deny:     nameSet(p.Deny),
		allow:    nameSet(p.Allow),
		unmapped: p.AllowUnmapped,
		reveal:   p.Reveal,
		granted:  setOf(granted),
	}
	l.required = requiredTable(p.Required, l.granted)
	l.prefixes = prefixRules(p.Prefixes, l.granted)
	var k keyBuilder
	k.str("permissions").str(l.name).pairs(p.Required).pairs(p.Prefixes).set(p.Deny).set(p.Allow).flag(p.AllowUnmapped).flag(p.Reveal).set(granted)
	l.key = k.sum()
	return l, nil
}

func (p Permissions) check() error {
	var errs []error
	for _, t := range p.Deny {
		if slices.Contains(p.Allow, t) {
			errs = append(errs, fmt.Errorf("toolreg: permissions: tool %s is both denied and allowed", quote(t)))
		}
	}
	for _, t := range slices.Concat(p.Deny, p.Allow) {
		if t == "" {
			errs = append(errs, errors.New("toolreg: permissions: an empty tool name in Deny or Allow"))
		}
	}
	for _, m := range []struct {
		what  string
		pairs map[string]string
	}{{"Required", p.Required}, {"Prefixes", p.Prefixes}} {
		for _, k := range sortedKeys(m.pairs) {
			if k == "" || m.pairs[k] == "" {
				errs = append(errs, fmt.Errorf("toolreg: permissions: %s has an empty key or permission (%s: %s)", m.what, quote(k), quote(m.pairs[k])))
			}
		}
	}
	return errors.Join(errs...)
}

// requirement says what p requires of a tool: denied, allowed outright, a
// permission, or nothing at all (unmapped).
func (l *permLayer) requirement(t *ToolInfo, h uint64) (need permNeed, rule permRule) {
	if _, denied := l.deny.get(t.Name, h); denied {
		return need, ruleDeny
	}
	if _, allowed := l.allow.get(t.Name, h); allowed {
		return need, ruleAllow
	}
	if need, ok := l.required.get(t.Name, h); ok {
		return need, rulePermission
	}
	if t.Permission != "" {
		return permNeed{t.Permission, l.granted[t.Permission]}, rulePermission
	}
	for _, pr := range l.prefixes {
		if strings.HasPrefix(t.Name, pr.prefix) {
			return pr.need, rulePermission
		}
	}
	return need, ruleUnmapped
}

// permNeed is a permission a rule requires, and whether the layer's caller
// holds it: decided once, when the layer is built.
type permNeed struct {
	perm    string
	granted bool
}

// prefixRule is one entry of Prefixes.
type prefixRule struct {
	prefix string
	need   permNeed
}

func requiredTable(required map[string]string, granted map[string]bool) nameTable[permNeed] {
	tools := sortedKeys(required)
	return newNameTable(tools, func(i int) permNeed {
		perm := required[tools[i]]
		return permNeed{perm, granted[perm]}
	})
}

// prefixRules lists the prefixes longest first: the longest that matches wins.
func prefixRules(prefixes map[string]string, granted map[string]bool) []prefixRule {
	out := make([]prefixRule, 0, len(prefixes))
	for _, p := range sortedKeys(prefixes) {
		out = append(out, prefixRule{p, permNeed{prefixes[p], granted[prefixes[p]]}})
	}
	slices.SortStableFunc(out, func(a, b prefixRule) int { return len(b.prefix) - len(a.prefix) })
	return out
}

type permRule uint8

const (
	ruleDeny permRule = iota
	ruleAllow
	rulePermission
	ruleUnmapped
)

// permLayer is a Permissions with the granted set of one session.
type permLayer struct {
	name     string
	required nameTable[permNeed]
	prefixes []prefixRule // longest first
	deny     nameTable[struct{}]
	allow    nameTable[struct{}]
	unmapped bool
	reveal   bool
	granted  map[string]bool
	key      string
}

func (l *permLayer) Name() string       { return l.name }
func (l *permLayer) contentKey() string { return l.key }

func (l *permLayer) Admit(t ToolInfo) Verdict { return l.admitInfo(&t, nameHash(t.Name)) }

func (l *permLayer) admitInfo(t *ToolInfo, h uint64) Verdict {
	need, rule := l.requirement(t, h)
	switch rule {
	case ruleAllow:
		return Verdict{Allowed: true}
	case ruleDeny:
		return Verdict{Reason: "tool " + quote(t.Name) + " is denied", Reveal: l.reveal}
	case rulePermission:
		if need.granted {
			return Verdict{Allowed: true}
		}
		return Verdict{Reason: "tool " + quote(t.Name) + " needs the permission " + quote(need.perm), Reveal: l.reveal}
	}
	if l.unmapped {
		return Verdict{Allowed: true}
	}
	return Verdict{Reason: "tool " + quote(t.Name) + " has no permission rule, and unmapped tools are refused", Reveal: l.reveal}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func setOf(items []string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}
