package toolreg

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
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
	tools  nameTable[struct{}]
	allow  bool // true: admit exactly the set; false: refuse the set
	all    bool // an AllowList built from nil: admits every tool
	reason string
	key    string
}

func (l *setLayer) Name() string       { return l.name }
func (l *setLayer) contentKey() string { return l.key }

func (l *setLayer) Admit(t ToolInfo) Verdict { return l.admitInfo(&t, nameHash(t.Name)) }

func (l *setLayer) admitInfo(t *ToolInfo, h uint64) Verdict {
	if l.all {
		return Verdict{Allowed: true}
	}
	_, in := l.tools.get(t.Name, h)
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
	return l
}

// DenyList returns a [Layer] named name that refuses the named tools and
// admits every other. A nil or empty list refuses nothing. The list is
// copied.
func DenyList(name string, tools []string) Layer {
	return newSetLayer(name, tools, false, "denied by the "+name+" list")
}

func newSetLayer(name string, tools []string, allow bool, reason string) *setLayer {
	set := nameSet(tools)
	kind := "deny"
	if allow {
		kind = "allow"
	}
	var k keyBuilder
	return &setLayer{name: name, tools: set, allow: allow, reason: reason, key: k.str(kind).str(name).set(tools).sum()}
}

// keyBuilder digests a layer's content into a fixed-size key. Every part is
// length-prefixed, so different contents never share an encoding; sets are
// sorted and deduplicated, and a nil set differs from an empty one.
type keyBuilder struct {
	h   hash.Hash
	buf []byte
}

func (k *keyBuilder) write(b []byte) {
	if k.h == nil {
		k.h = sha256.New()
	}
	k.h.Write(b)
}

func (k *keyBuilder) uvarint(n uint64) {
	k.buf = binary.AppendUvarint(k.buf[:0], n)
	k.write(k.buf)
}

func (k *keyBuilder) str(s string) *keyBuilder {
	k.uvarint(uint64(len(s)))
	k.write([]byte(s))
	return k
}

func (k *keyBuilder) flag(b bool) *keyBuilder {
	if b {
		return k.str("1")
	}
	return k.str("0")
}

func (k *keyBuilder) set(items []string) *keyBuilder {
	if items == nil {
		return k.str("nil")
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(items)))
	k.str("set").uvarint(uint64(len(sorted)))
	for _, s := range sorted {
		k.str(s)
	}
	return k
}

func (k *keyBuilder) pairs(m map[string]string) *keyBuilder {
	k.uvarint(uint64(len(m)))
	for _, key := range sortedKeys(m) {
		k.str(key).str(m[key])
	}
	return k
}

func (k *keyBuilder) sum() string {
	if k.h == nil {
		k.h = sha256.New()
	}
	return string(k.h.Sum(nil))
}

// restrictedLayer refuses restricted tools; see [HideRestricted].
type restrictedLayer struct {
	name, key string
}

// HideRestricted returns a layer named name that admits only public tools:
// those whose resolved [Visibility] is not restricted. Serve it to callers
// that no authority vouches for (an anonymous protocol client, say). Its
// listings are cached.
func HideRestricted(name string) Layer {
	var k keyBuilder
	return restrictedLayer{name: name, key: k.str("hide-restricted").str(name).sum()}
}

func (l restrictedLayer) Name() string       { return l.name }
func (l restrictedLayer) contentKey() string { return l.key }

func (l restrictedLayer) Admit(t ToolInfo) Verdict { return l.admitInfo(&t, 0) }

func (l restrictedLayer) admitInfo(t *ToolInfo, _ uint64) Verdict {
	if t.Visibility == VisibilityRestricted {
		return Verdict{Reason: "restricted tools are not offered here"}
	}
	return Verdict{Allowed: true}
}
