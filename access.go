package toolreg

import (
	"encoding/binary"
	"slices"
)

// AllGroups, in [Access.Groups], enables every group.
const AllGroups = "*"

// Access is what one caller may reach: the enabled groups and the
// availability layers. The same value drives listing ([Registry.Definitions],
// [Registry.Summaries], [Registry.Explain]) and execution
// ([CallContext.Access]), so a tool is listed exactly when Execute would run
// it.
//
// The zero Access reaches ungrouped tools only. A grouped tool is reached
// when one of its groups is in Groups, or Groups holds [AllGroups]. Every
// layer must then admit the tool; layers are asked in order. A nil Layer
// admits nothing, so a layer that failed to build cannot open everything.
// Reserved tools are never reached.
type Access struct {
	Groups []string // enabled groups; nil or empty: ungrouped tools only; AllGroups: every group
	Layers []Layer  // every layer must admit a tool; they are asked in order
}

// Layer is one source of availability: a plan, a scenario's declared tools,
// an agent's whitelist, the permissions a session holds. Admit must be pure
// and fast: it is called per tool per listing and once per Execute, and must
// not modify t. A panic in Name or Admit is recovered and refuses the tool.
type Layer interface {
	Name() string             // "plan", "agent", "scenario", ...: shown in refusals and Explain
	Admit(t ToolInfo) Verdict // pure and fast
}

// Verdict is a layer's answer for one tool.
type Verdict struct {
	Allowed bool
	Reason  string // why not: for people (Explain) and, when Reveal is set, for the model
	// Reveal makes Execute answer "not_available" with Reason. When false, a
	// refused call reads exactly like a call to an unknown name.
	Reveal bool
}

// keyedLayer is a layer whose answers depend only on its content, which the
// key identifies: listings under it can be cached per registry version. Only
// the library's own layers implement it; a user's layer may read state
// outside the registry and is asked at every listing. The library's layers
// also have admitInfo, Admit without the copy of t, which admit calls
// directly: they run no user code and never modify t.
type keyedLayer interface {
	Layer
	contentKey() string
}

// accessKey appends a key that identifies a's listing to dst, and reports
// whether a is cacheable at all. Groups are sorted and deduplicated, and
// every part is length-prefixed, so two different Access values never share
// a key.
func (a *Access) appendKey(dst []byte) ([]byte, bool) {
	var arr [8]string
	g := append(arr[:0], a.Groups...)
	slices.Sort(g)
	g = slices.Compact(g)
	dst = binary.AppendUvarint(dst, uint64(len(g)))
	for _, name := range g {
		dst = binary.AppendUvarint(dst, uint64(len(name)))
		dst = append(dst, name...)
	}
	dst = binary.AppendUvarint(dst, uint64(len(a.Layers)))
	for _, l := range a.Layers {
		k, ok := l.(keyedLayer)
		if !ok {
			return dst, false
		}
		key := k.contentKey()
		dst = binary.AppendUvarint(dst, uint64(len(key)))
		dst = append(dst, key...)
	}
	return dst, true
}

// Refusal is one reason why a tool is not offered to an [Access].
type Refusal struct {
	Layer  string // the layer's name, or "registry" and "groups" for the built-in checks
	Reason string
}

// Names of the built-in checks in a [Refusal].
const (
	RefusalRegistry = "registry"
	RefusalGroups   = "groups"
)

// Explanation says whether a tool is offered to an Access, and if not, every
// reason why. See [Registry.Explain].
type Explanation struct {
	Tool     string
	Offered  bool      // exactly: Definitions(a) lists it
	Refusals []Refusal // every reason, in order: registry, groups, then each layer
}

// outcome is how one Access stands to one tool at Execute.
type outcome uint8

const (
	reached  outcome = iota
	hidden           // reads as an unknown name
	reserved         // registered without an executor: not_available
	revealed         // refused by a layer that tells why: not_available
)

// reach is the one decision behind listing, executing, suggesting and
// explaining: whether a reaches e, and if not, the first refusal. Layers
// after the first refusal are not asked.
func (r *Registry) reach(e *entry, a *Access) (outcome, Refusal) {
	if e.reserved {
		return reserved, Refusal{RefusalRegistry, "reserved: declared without an executor"}
	}
	if !inGroups(e, a.Groups) {
		return hidden, Refusal{RefusalGroups, groupsReason(e)}
	}
	for _, l := range a.Layers {
		if v, name := r.admit(l, e); !v.Allowed {
			if v.Reveal {
				return revealed, Refusal{name, v.Reason}
			}
			return hidden, Refusal{name, v.Reason}
		}
	}
	return reached, Refusal{}
}

func groupsReason(e *entry) string {
	if len(e.tool.Groups) == 1 {
		return "its group " + quote(e.tool.Groups[0]) + " is not enabled"
	}
	return "none of its groups " + quoteList(e.tool.Groups) + " is enabled"
}

// admit asks one layer about e. A user's layer is contained (a panic
// refuses) and gets its own copy of the groups, so it cannot change the
// registry; the library's layers are asked directly.
func (r *Registry) admit(l Layer, e *entry) (v Verdict, name string) {
	switch x := l.(type) { // the library's layers, called directly
	case *setLayer:
		return refusedBy(x.admitInfo(&e.info, e.hash), x.name)
	case *planLayer:
		return refusedBy(x.admitInfo(&e.info, e.hash), x.name)
	case *permLayer:
		return refusedBy(x.admitInfo(&e.info, e.hash), x.name)
	case restrictedLayer:
		return refusedBy(x.admitInfo(&e.info, e.hash), x.name)
	}
	if l == nil {
		return Verdict{Reason: "nil layer: admits nothing"}, "<nil>"
	}
	name = "<unnamed>"
	defer func() {
		if p := recover(); p != nil {
			r.logPanic("layer", e.name(), p)
			v = Verdict{Reason: "the layer failed"}
		}
	}()
	info := e.info
	info.Groups = slices.Clone(info.Groups)
	name = l.Name()
	return l.Admit(info), name
}

// refusedBy returns v with the layer's name when it refuses.
func refusedBy(v Verdict, layer string) (Verdict, string) {
	if v.Allowed {
		return v, ""
	}
	return v, layer
}

// Explain reports whether [Registry.Definitions] with a lists name and every
// reason it does not: an unknown name gives exactly one refusal from
// "registry" and asks no layer; otherwise the registry (reserved), the groups
// and then every layer in order are asked, whatever the earlier ones said.
func (r *Registry) Explain(name string, a Access) Explanation {
	ex := Explanation{Tool: name}
	e := r.current().lookup(name)
	if e == nil {
		ex.Refusals = []Refusal{{RefusalRegistry, "unknown tool"}}
		return ex
	}
	if e.reserved {
		ex.Refusals = append(ex.Refusals, Refusal{RefusalRegistry, "reserved: declared without an executor"})
	}
	if !inGroups(e, a.Groups) {
		ex.Refusals = append(ex.Refusals, Refusal{RefusalGroups, groupsReason(e)})
	}
	for _, l := range a.Layers {
		if v, lname := r.admit(l, e); !v.Allowed {
			ex.Refusals = append(ex.Refusals, Refusal{lname, v.Reason})
		}
	}
	ex.Offered = len(ex.Refusals) == 0
	return ex
}

// inGroups reports whether the enabled groups admit e: an ungrouped tool
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
