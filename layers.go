package toolreg

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
)

// funcLayer is a Layer made of a name and a func; see [LayerFunc].
type funcLayer struct {
	name string
	f    func(ToolInfo) Verdict
}

func (l funcLayer) Name() string { return l.name }

func (l funcLayer) Admit(t ToolInfo) Verdict {
	if l.f == nil {
		return Verdict{Reason: "layer has no func: admits nothing"}
	}
	return l.f(t)
}

// LayerFunc returns a [Layer] named name that asks f. f may read state
// outside the registry, so listings under an Access that holds a LayerFunc
// are not cached: f is asked at every listing. A nil f admits nothing.
func LayerFunc(name string, f func(ToolInfo) Verdict) Layer {
	return funcLayer{name: name, f: f}
}

// setLayer admits or refuses the tools of a fixed set. Its content key makes
// listings under it cacheable.
type setLayer struct {
	name   string
	tools  map[string]struct{}
	allow  bool // true: admit exactly the set; false: refuse the set
	all    bool // an AllowList built from nil: admits every tool
	reason string
	key    string
}

func (l *setLayer) Name() string       { return l.name }
func (l *setLayer) contentKey() string { return l.key }

func (l *setLayer) Admit(t ToolInfo) Verdict {
	if l.all {
		return Verdict{Allowed: true}
	}
	_, in := l.tools[t.Name]
	if in == l.allow {
		return Verdict{Allowed: true}
	}
	return Verdict{Reason: l.reason}
}

// AllowList returns a [Layer] named name that admits exactly the named tools.
// A nil list means "not configured" and admits every tool; a non-nil empty
// list admits none. The two are never confused. The list is copied.
func AllowList(name string, tools []string) Layer {
	l := newSetLayer(name, tools, true, "not in the "+name+" list")
	l.all = tools == nil
	if l.all {
		l.key = contentKey("allow-all", name, nil)
	}
	return l
}

// DenyList returns a [Layer] named name that refuses the named tools and
// admits every other. A nil or empty list refuses nothing. The list is
// copied.
func DenyList(name string, tools []string) Layer {
	return newSetLayer(name, tools, false, "denied by the "+name+" list")
}

func newSetLayer(name string, tools []string, allow bool, reason string) *setLayer {
	set := make(map[string]struct{}, len(tools))
	for _, t := range tools {
		set[t] = struct{}{}
	}
	kind := "deny"
	if allow {
		kind = "allow"
	}
	return &setLayer{name: name, tools: set, allow: allow, reason: reason, key: contentKey(kind, name, tools)}
}

// contentKey digests a layer's kind, name and items (as a set: order and
// repeats do not matter) into a fixed-size key. Every part is
// length-prefixed, so different contents never share an encoding.
func contentKey(kind, name string, items []string, more ...[]string) string {
	h := sha256.New()
	var buf []byte
	put := func(s string) {
		buf = binary.AppendUvarint(buf[:0], uint64(len(s)))
		h.Write(buf)
		h.Write([]byte(s))
	}
	put(kind)
	put(name)
	for _, list := range append([][]string{items}, more...) {
		sorted := slices.Compact(slices.Sorted(slices.Values(list)))
		buf = binary.AppendUvarint(buf[:0], uint64(len(sorted)))
		h.Write(buf)
		for _, s := range sorted {
			put(s)
		}
	}
	return string(h.Sum(nil))
}
