package toolreg

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// redactedValue replaces sensitive argument values in events and logs.
const redactedValue = "[redacted]"

// maxSecrets bounds how many sensitive strings one call's panic rendering is
// scrubbed of.
const maxSecrets = 64

// redaction knows where a tool's schema marks values "x-sensitive": true,
// wherever the mark sits: under properties, items or prefixItems at any
// depth, additionalProperties or patternProperties, and behind $ref, allOf,
// anyOf, oneOf, not and if/then/else. A location that any of the schemas
// applying to it marks sensitive is redacted, so the answer is conservative
// where subschemas disagree. A nil *redaction redacts nothing.
type redaction struct {
	root *rnode
}

// rnode is what applies at one location of the arguments. The graph may be
// cyclic ($ref recursion); live says whether anything below is sensitive.
type rnode struct {
	sensitive bool
	props     map[string][]*rnode // by property name
	other     []*rnode            // keys not in props (additionalProperties)
	every     []*rnode            // every key (patternProperties, conservatively)
	items     []*rnode            // every array element
	live      bool
}

// newRedaction reads the sensitive marks of a normalized parameter schema;
// it returns nil when nothing is marked.
func newRedaction(p Parameters) *redaction {
	root := map[string]any{"type": "object", "properties": p.Properties}
	if p.Defs != nil {
		root["$defs"] = p.Defs
	}
	b := &rbuilder{root: root, memo: map[uintptr]*rnode{}}
	n := b.node(root)
	if !markLive(b.all) || n == nil || !n.live {
		return nil
	}
	return &redaction{root: n}
}

type rbuilder struct {
	root map[string]any
	memo map[uintptr]*rnode
	all  []*rnode
}

// node returns the rnode of schema s, building it once.
func (b *rbuilder) node(s any) *rnode {
	m, ok := s.(map[string]any)
	if !ok {
		return nil
	}
	key := mapKey(m)
	if n, ok := b.memo[key]; ok {
		return n
	}
	n := &rnode{}
	b.memo[key] = n
	b.all = append(b.all, n)
	for _, c := range b.inPlace(m) {
		b.absorb(n, c)
	}
	return n
}

// inPlace returns m and every schema that applies at the same location:
// through $ref, allOf, anyOf, oneOf, not, if, then and else, transitively.
func (b *rbuilder) inPlace(m map[string]any) []map[string]any {
	seen := map[uintptr]bool{}
	var out []map[string]any
	stack := []any{m}
	for len(stack) > 0 {
		s, _ := stack[len(stack)-1].(map[string]any)
		stack = stack[:len(stack)-1]
		if s == nil || seen[mapKey(s)] {
			continue
		}
		seen[mapKey(s)] = true
		out = append(out, s)
		if ref, ok := s["$ref"].(string); ok {
			stack = append(stack, resolveRef(b.root, ref))
		}
		for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
			list, _ := s[kw].([]any)
			stack = append(stack, list...)
		}
		for _, kw := range []string{"not", "if", "then", "else"} {
			stack = append(stack, s[kw])
		}
	}
	return out
}

// absorb adds what schema c says about n's location and its children.
func (b *rbuilder) absorb(n *rnode, c map[string]any) {
	if mark, _ := c["x-sensitive"].(bool); mark {
		n.sensitive = true
	}
	if props, ok := c["properties"].(map[string]any); ok {
		for k, ps := range props {
			if child := b.node(ps); child != nil {
				if n.props == nil {
					n.props = map[string][]*rnode{}
				}
				n.props[k] = append(n.props[k], child)
			}
		}
	}
	n.other = appendNode(n.other, b.node(c["additionalProperties"]))
	if pp, ok := c["patternProperties"].(map[string]any); ok {
		for _, ps := range pp {
			n.every = appendNode(n.every, b.node(ps))
		}
	}
	for _, kw := range []string{"items", "additionalItems", "contains", "unevaluatedItems"} {
		n.items = appendNode(n.items, b.node(c[kw]))
	}
	if list, ok := c["prefixItems"].([]any); ok {
		for _, ps := range list {
			n.items = appendNode(n.items, b.node(ps))
		}
	}
	n.other = appendNode(n.other, b.node(c["unevaluatedProperties"]))
}

func appendNode(list []*rnode, n *rnode) []*rnode {
	if n == nil {
		return list
	}
	return append(list, n)
}

// markLive sets live on every node that is sensitive or leads to one, and
// reports whether any is. It iterates to a fixpoint: the graph may cycle.
func markLive(nodes []*rnode) bool {
	any := false
	for changed := true; changed; {
		changed = false
		for _, n := range nodes {
			if n.live {
				continue
			}
			if n.sensitive || liveIn(n.other) || liveIn(n.every) || liveIn(n.items) || liveProps(n.props) {
				n.live, changed, any = true, true, true
			}
		}
	}
	return any
}

func liveIn(list []*rnode) bool {
	for _, n := range list {
		if n.live {
			return true
		}
	}
	return false
}

func liveProps(props map[string][]*rnode) bool {
	for _, list := range props {
		if liveIn(list) {
			return true
		}
	}
	return false
}

// resolveRef resolves a reference inside the tool's own schema ("#",
// "#/$defs/x", any JSON pointer); anything else resolves to nil.
func resolveRef(root map[string]any, ref string) any {
	if ref == "#" {
		return root
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var cur any = root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// copyArgs returns a deep copy of args in which every sensitive value reads
// redactedValue. Go-typed values must have been made native (see toNative)
// by the caller; native args are copied level by level. nil stays nil.
func (rd *redaction) copyArgs(args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	if rd == nil {
		return cloneArgs(args)
	}
	return copyMap(args, []*rnode{rd.root})
}

// cloneArgs deep-copies arguments with nothing to redact: the map is cloned
// whole, and only its objects and arrays are copied one by one.
func cloneArgs(args map[string]any) map[string]any {
	out := maps.Clone(args)
	for k, v := range out {
		switch v.(type) {
		case map[string]any, []any:
			out[k] = copyValue(v, nil)
		}
	}
	return out
}

func copyMap(m map[string]any, nodes []*rnode) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v, childrenFor(nodes, k))
	}
	return out
}

func copyValue(v any, nodes []*rnode) any {
	for _, n := range nodes {
		if n.sensitive {
			return redactedValue
		}
	}
	switch v := v.(type) {
	case map[string]any:
		return copyMap(v, nodes)
	case []any:
		items := itemsOf(nodes)
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyValue(e, items)
		}
		return out
	}
	return v
}

// childrenFor returns the live nodes that apply to property k.
func childrenFor(nodes []*rnode, k string) []*rnode {
	var out []*rnode
	for _, n := range nodes {
		if !n.live {
			continue
		}
		list, ok := n.props[k]
		if !ok {
			list = n.other
		}
		out = appendLive(out, list)
		out = appendLive(out, n.every)
	}
	return out
}

func itemsOf(nodes []*rnode) []*rnode {
	var out []*rnode
	for _, n := range nodes {
		if n.live {
			out = appendLive(out, n.items)
		}
	}
	return out
}

func appendLive(out, list []*rnode) []*rnode {
	for _, n := range list {
		if n.live {
			out = append(out, n)
		}
	}
	return out
}

// logSecrets returns the argument strings that a log line must not show,
// longest first: every string at a sensitive location, and every other
// string of four bytes or more (a panic value often quotes the arguments,
// and no log line carries argument values). At most maxSecrets.
func (rd *redaction) logSecrets(args map[string]any) []string {
	if args == nil {
		return nil
	}
	var nodes []*rnode
	if rd != nil {
		nodes = []*rnode{rd.root}
	}
	var out []string
	collectSecrets(args, nodes, false, &out)
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

func collectSecrets(v any, nodes []*rnode, sensitive bool, out *[]string) {
	if len(*out) >= maxSecrets {
		return
	}
	for _, n := range nodes {
		sensitive = sensitive || n.sensitive
	}
	switch v := v.(type) {
	case string:
		if len(v) >= 4 || sensitive && len(v) >= 2 {
			*out = append(*out, v)
		}
	case map[string]any:
		for k, e := range v {
			collectSecrets(e, childrenFor(nodes, k), sensitive, out)
		}
	case []any:
		items := itemsOf(nodes)
		for _, e := range v {
			collectSecrets(e, items, sensitive, out)
		}
	}
}

// Redact returns a deep copy of args in which every value that the schema of
// the tool registered as name marks "x-sensitive": true reads "[redacted]",
// as events show them: what a guard may pass to a person or a log. Go-typed
// values appear in their JSON form. It returns nil for an unknown name, and
// for arguments that [ArgsDigest] would refuse (no JSON form, too deep).
func (r *Registry) Redact(name string, args map[string]any) map[string]any {
	e := r.current().lookup(name)
	if e == nil {
		return nil
	}
	if args == nil {
		return map[string]any{}
	}
	shape, err := checkArgs(args)
	if err != nil {
		return nil
	}
	if !shape.native {
		n, ok := mustNative(args)
		if !ok {
			return nil
		}
		args = n
	}
	return e.redact.copyArgs(args)
}

// mapKey identifies a schema map by its address: the same subschema, reached
// twice (through $ref), is one node.
func mapKey(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }
