package toolreg

import "errors"

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
	groupOf, problems := e.index()
	if len(problems) > 0 {
		errs := make([]error, len(problems))
		for i, p := range problems {
			p.Source = "entitlements " + quote(cmpOr(e.Name, "entitlements"))
			errs[i] = &p
		}
		return nil, errors.Join(errs...)
	}
	l := &planLayer{
		name:    cmpOr(e.Name, "entitlements"),
		groupOf: planTable(groupOf, e.Allowed),
		all:     e.Allowed == nil,
		always:  nameSet(e.AlwaysAllowed),
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

// index maps each catalogued tool to its capability group, and lists every
// inconsistency of the plan: the tool involved (or "") and what is wrong.
func (e Entitlements) index() (map[string]string, []IntegrityProblem) {
	var problems []IntegrityProblem
	groupOf := map[string]string{}
	for _, g := range sortedKeys(e.Catalog) {
		if g == "" {
			problems = append(problems, IntegrityProblem{Reason: "a capability group has an empty name"})
		}
		for _, t := range e.Catalog[g] {
			switch other, dup := groupOf[t]; {
			case t == "":
				problems = append(problems, IntegrityProblem{Reason: "group " + quote(g) + " lists an empty tool name"})
			case dup && other != g:
				problems = append(problems, IntegrityProblem{Tool: t, Reason: "is in two capability groups, " + quote(other) + " and " + quote(g)})
			default:
				groupOf[t] = g
			}
		}
	}
	for _, g := range e.Allowed {
		if _, ok := e.Catalog[g]; !ok {
			problems = append(problems, IntegrityProblem{Reason: "Allowed names " + quote(g) + ", which is not a capability group of the catalog"})
		}
	}
	return groupOf, problems
}

// planLayer is an Entitlements ready to admit tools.
type planLayer struct {
	name    string
	groupOf nameTable[planGroup]
	all     bool
	always  nameTable[struct{}]
	reveal  bool
	key     string
}

func (l *planLayer) Name() string       { return l.name }
func (l *planLayer) contentKey() string { return l.key }

func (l *planLayer) Admit(t ToolInfo) Verdict { return l.admitInfo(&t, nameHash(t.Name)) }

func (l *planLayer) admitInfo(t *ToolInfo, h uint64) Verdict {
	if l.all {
		return Verdict{Allowed: true}
	}
	g, catalogued := l.groupOf.get(t.Name, h)
	if !catalogued || g.allowed {
		return Verdict{Allowed: true}
	}
	if _, always := l.always.get(t.Name, h); always {
		return Verdict{Allowed: true}
	}
	return Verdict{Reason: "not in your plan: " + g.name, Reveal: l.reveal}
}

// planGroup is a catalogued tool's capability group, and whether the plan
// allows it: decided once, when the layer is built.
type planGroup struct {
	name    string
	allowed bool
}

func planTable(groupOf map[string]string, allowed []string) nameTable[planGroup] {
	ok := setOf(allowed)
	tools := sortedKeys(groupOf)
	return newNameTable(tools, func(i int) planGroup {
		g := groupOf[tools[i]]
		return planGroup{g, ok[g]}
	})
}
