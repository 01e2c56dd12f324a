package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolreg/toolreg"
)

// Vendor keywords are the keys of a schema object that start with "x-",
// such as the registry's own x-sensitive. The model has no use for them,
// and the providers' strict modes refuse the whole request for a keyword
// they do not know, so strict tools are sent without them.

// vendorKey reports whether k is a vendor keyword.
func vendorKey(k string) bool { return strings.HasPrefix(k, "x-") }

// The keywords whose value is a schema, a map of schemas or a list of
// schemas: where stripping goes on below a schema object.
var (
	schemaValued = map[string]bool{
		"items": true, "additionalProperties": true, "additionalItems": true,
		"not": true, "contains": true, "propertyNames": true,
		"if": true, "then": true, "else": true,
		"unevaluatedItems": true, "unevaluatedProperties": true,
	}
	schemaMaps  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}
	schemaLists = map[string]bool{"anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true}
)

// stripSchema returns s without vendor keywords at any depth, and whether
// it found any. It never changes s: what it changes, it copies, and what
// holds no vendor keyword it shares. Property names are names, not
// keywords: a property called "x-id" stays. The depth of s is bounded by
// the registry's schema limits.
func stripSchema(s any) (any, bool) {
	switch s := s.(type) {
	case map[string]any:
		return stripObject(s)
	case []any: // "items" as a list, in older drafts
		return stripList(s)
	}
	return s, false
}

func stripObject(s map[string]any) (map[string]any, bool) {
	var out map[string]any
	for k, v := range s {
		nv, changed := v, vendorKey(k)
		if !changed {
			switch {
			case schemaValued[k], schemaLists[k]:
				nv, changed = stripSchema(v)
			case schemaMaps[k]:
				if m, ok := v.(map[string]any); ok {
					nv, changed = stripNamed(m)
				}
			}
		}
		if !changed {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(s))
			for k2, v2 := range s {
				if !vendorKey(k2) {
					out[k2] = v2
				}
			}
		}
		if !vendorKey(k) {
			out[k] = nv
		}
	}
	if out == nil {
		return s, false
	}
	return out, true
}

// stripNamed strips every schema of a map from names to schemas.
func stripNamed(m map[string]any) (map[string]any, bool) {
	var out map[string]any
	for name, sub := range m {
		nv, changed := stripSchema(sub)
		if !changed {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(m))
			for k, v := range m {
				out[k] = v
			}
		}
		out[name] = nv
	}
	if out == nil {
		return m, false
	}
	return out, true
}

func stripList(list []any) ([]any, bool) {
	var out []any
	for i, sub := range list {
		nv, changed := stripSchema(sub)
		if !changed {
			continue
		}
		if out == nil {
			out = append([]any(nil), list...)
		}
		out[i] = nv
	}
	if out == nil {
		return list, false
	}
	return out, true
}

// strictDefinition returns d as it is sent to a provider: without vendor
// keywords when d is strict, else d itself.
func strictDefinition(d toolreg.Definition) toolreg.Definition {
	if !d.Function.Strict {
		return d
	}
	p := &d.Function.Parameters
	props, c1 := stripNamed(p.Properties)
	defs, c2 := stripNamed(p.Defs)
	if c1 || c2 {
		p.Properties, p.Defs = props, defs
	}
	return d
}

// strictParameters returns the encoded parameters of a tool as they are
// sent to a provider: without vendor keywords when the tool is strict, else
// unchanged. Numbers keep their exact text.
func strictParameters(raw json.RawMessage, strict bool) json.RawMessage {
	if !strict || !bytes.Contains(raw, []byte(`"x-`)) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var s any
	if dec.Decode(&s) != nil {
		return raw
	}
	out, changed := stripSchema(s)
	if !changed {
		return raw
	}
	b, err := json.Marshal(out)
	if err != nil {
		return raw
	}
	return b
}
