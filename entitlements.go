package toolreg

import (
	"errors"
	"fmt"
)

// Entitlements is a customer's plan: the catalog sorts tools into capability
// groups ("web", "files", ...), and the plan allows some of the groups.
// [Entitlements.Layer] turns it into a [Layer].
//
// A tool outside the Catalog (a plugin's, a remote server's) is admitted: the
// plan speaks only of the tools it knows. A tool in AlwaysAllowed (system
// tools every plan needs) is admitted whatever Allowed says. Allowed nil
// means every group; a non-nil empty Allowed allows none.
type Entitlements struct {
	Name          string              // layer name, e.g. "plan"; "" means "entitlements"
	Catalog       map[string][]string // capability group -> its tools; a tool in two groups is an error
	Allowed       []string            // capability groups the plan allows; nil: all
	AlwaysAllowed []string            // system tools admitted whatever Allowed says
	Reveal        bool                // tell the model why ("not in your plan: web"), instead of hiding
}

// Layer returns the plan as a layer. It fails, naming each problem, when a
// tool sits in two capability groups, a group or tool name is empty, or
// Allowed names a group the Catalog does not have.
func (e Entitlements) Layer() (Layer, error) {
	groupOf, err := e.index()
	if err != nil {
		return nil, err
	}
	l := &planLayer{
		name:    cmpOr(e.Name, "entitlements"),
		groupOf: groupOf,
		allowed: setOf(e.Allowed),
		all:     e.Allowed == nil,
		always:  setOf(e.AlwaysAllowed),
		reveal:  e.Reveal,
	}
	var k keyBuilder
	k.str("entitlements").str(l.name).set(e.AlwaysAllowed).set(e.Allowed).flag(e.Reveal)
	for _, g := range sortedKeys(e.Catalog) {
		k.str(g).set(e.Catalog[g])
	}
	l.key = k.sum()
	return l, nil
}

// index maps each catalogued tool to its capability group, reporting every
// inconsistency of the plan.
func (e Entitlements) index() (map[string]string, error) {
	var errs []error
	groupOf := map[string]string{}
	for _, g := range sortedKeys(e.Catalog) {
		if g == "" {
			errs = append(errs, errors.New("toolreg: entitlements: a capability group has an empty name"))
		}
		for _, t := range e.Catalog[g] {
			switch other, dup := groupOf[t]; {
			case t == "":
				errs = append(errs, fmt.Errorf("toolreg: entitlements: group %s lists an empty tool name", quote(g)))
			case dup && other != g:
				errs = append(errs, fmt.Errorf("toolreg: entitlements: tool %s is in two capability groups, %s and %s", quote(t), quote(other), quote(g)))
			default:
				groupOf[t] = g
			}
		}
	}
	for _, g := range e.Allowed {
		if _, ok := e.Catalog[g]; !ok {
			errs = append(errs, fmt.Errorf("toolreg: entitlements: Allowed names %s, which is not a capability group of the catalog", quote(g)))
		}
	}
	return groupOf, errors.Join(errs...)
}

// planLayer is an Entitlements ready to admit tools.
type planLayer struct {
	name    string
	groupOf map[string]string
	allowed map[string]bool
	all     bool
	always  map[string]bool
	reveal  bool
	key     string
}

func (l *planLayer) Name() string       { return l.name }
func (l *planLayer) contentKey() string { return l.key }

func (l *planLayer) Admit(t ToolInfo) Verdict {
	g, catalogued := l.groupOf[t.Name]
	if !catalogued || l.all || l.allowed[g] || l.always[t.Name] {
		return Verdict{Allowed: true}
	}
	return Verdict{Reason: "not in your plan: " + g, Reveal: l.reveal}
}
