package toolreg

import (
	"slices"
	"sync"
)

// DefaultListingCache is how many listings (one per Access) a registry
// keeps by default; see [WithListingCache].
const DefaultListingCache = 256

// Definitions returns the definitions that a reaches, sorted by name, so the
// same set of tools always marshals to the same bytes. A tool is listed
// exactly when [Registry.Execute] with [CallContext.Access] set to a would
// run it.
//
// The result is cached until the registry changes (unless a holds a layer
// made with [LayerFunc]; see [WithListingCache] for the bound) and is shared
// between callers: treat it, and the schemas in it, as read-only. Editing it
// changes nothing the registry checks.
func (r *Registry) Definitions(a Access) []Definition {
	v := r.view(&a)
	v.defsOnce.Do(func() {
		v.defs = make([]Definition, len(v.entries))
		for i, e := range v.entries {
			v.defs[i] = e.tool.Definition
		}
	})
	return v.defs
}

// DefinitionsJSON returns json.Marshal(r.Definitions(a)): the request's
// "tools" array as bytes, "[]" when empty. Each tool is encoded once, at
// Register; the joined bytes are cached like [Registry.Definitions]. The
// slice is shared: do not modify it.
func (r *Registry) DefinitionsJSON(a Access) []byte {
	v := r.view(&a)
	v.jsonOnce.Do(func() { v.json = joinWire(v.entries) })
	return v.json
}

// Summaries returns the name, description and groups of each tool that a
// reaches, sorted by name; an empty slice, never nil, when there is none.
func (r *Registry) Summaries(a Access) []Summary {
	entries := r.view(&a).entries
	out := make([]Summary, len(entries))
	for i, e := range entries {
		out[i] = Summary{Name: e.name(), Description: e.tool.Definition.Function.Description, Groups: slices.Clone(e.tool.Groups)}
	}
	return out
}

// listing is what one Access reaches at one version. Its forms are built
// on first use, once.
type listing struct {
	entries  []*entry
	defsOnce sync.Once
	defs     []Definition
	jsonOnce sync.Once
	json     []byte
}

// view returns the listing of a at the current version, from the cache when
// it can.
func (r *Registry) view(a *Access) *listing {
	s := r.current()
	var buf [256]byte
	key, cacheable := a.appendKey(buf[:0])
	if cacheable {
		if v := r.views.get(key, s.version); v != nil {
			return v
		}
	}
	v := &listing{}
	s.each(func(e *entry) bool {
		if out, _ := r.reach(e, a); out == reached {
			v.entries = append(v.entries, e)
		}
		return true
	})
	if cacheable {
		r.views.put(string(key), s.version, v)
	}
	return v
}

// joinWire joins the tools' encoded definitions into one JSON array.
func joinWire(entries []*entry) []byte {
	n := 2
	for _, e := range entries {
		n += len(e.wire) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, e := range entries {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e.wire...)
	}
	return append(out, ']')
}

// viewCache keeps the most recently used listings, at most max of them, by
// Access key. A listing of an older version is stale: it is rebuilt on its
// next use and replaces the stale one.
type viewCache struct {
	mu         sync.Mutex
	max        int
	m          map[string]*viewNode
	head, tail *viewNode // most and least recently used
}

type viewNode struct {
	key        string
	version    uint64
	v          *listing
	prev, next *viewNode
}

// get returns the listing under key at version, or nil. It allocates
// nothing.
func (c *viewCache) get(key []byte, version uint64) *listing {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.m[string(key)]
	if n == nil || n.version != version {
		return nil
	}
	c.toFront(n)
	return n.v
}

func (c *viewCache) put(key string, version uint64, v *listing) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*viewNode{}
	}
	if n := c.m[key]; n != nil {
		n.version, n.v = version, v
		c.toFront(n)
		return
	}
	n := &viewNode{key: key, version: version, v: v}
	c.m[key] = n
	c.toFront(n)
	if len(c.m) > c.max {
		old := c.tail
		c.unlink(old)
		delete(c.m, old.key)
	}
}

func (c *viewCache) toFront(n *viewNode) {
	if c.head == n {
		return
	}
	c.unlink(n)
	n.next = c.head
	if c.head != nil {
		c.head.prev = n
	}
	c.head = n
	if c.tail == nil {
		c.tail = n
	}
}

func (c *viewCache) unlink(n *viewNode) {
	if n.prev != nil {
		n.prev.next = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	}
	if c.head == n {
		c.head = n.next
	}
	if c.tail == n {
		c.tail = n.prev
	}
	n.prev, n.next = nil, nil
}
