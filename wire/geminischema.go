package wire

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// GeminiSchema is the schema of Gemini function declarations: a subset of
// the OpenAPI 3.0 schema object, with upper-case type names. Its JSON field
// names are those of the Gemini API (and of genai.Schema).
type GeminiSchema struct {
	Type          string                   `json:"type,omitempty"` // STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT or NULL; empty only beside AnyOf
	Format        string                   `json:"format,omitempty"`
	Title         string                   `json:"title,omitempty"`
	Description   string                   `json:"description,omitempty"`
	Nullable      bool                     `json:"nullable,omitempty"`
	Enum          []string                 `json:"enum,omitempty"`
	Default       json.RawMessage          `json:"default,omitempty"`
	Pattern       string                   `json:"pattern,omitempty"`
	MinLength     *int64                   `json:"minLength,omitempty"`
	MaxLength     *int64                   `json:"maxLength,omitempty"`
	Minimum       *float64                 `json:"minimum,omitempty"`
	Maximum       *float64                 `json:"maximum,omitempty"`
	Items         *GeminiSchema            `json:"items,omitempty"`
	MinItems      *int64                   `json:"minItems,omitempty"`
	MaxItems      *int64                   `json:"maxItems,omitempty"`
	Properties    map[string]*GeminiSchema `json:"properties,omitempty"`
	Required      []string                 `json:"required,omitempty"`
	MinProperties *int64                   `json:"minProperties,omitempty"`
	MaxProperties *int64                   `json:"maxProperties,omitempty"`
	AnyOf         []*GeminiSchema          `json:"anyOf,omitempty"`
}

// Gemini type names.
const (
	geminiString  = "STRING"
	geminiNumber  = "NUMBER"
	geminiInteger = "INTEGER"
	geminiBoolean = "BOOLEAN"
	geminiArray   = "ARRAY"
	geminiObject  = "OBJECT"
	geminiNull    = "NULL"
)

var geminiTypes = map[string]string{
	"string": geminiString, "number": geminiNumber, "integer": geminiInteger,
	"boolean": geminiBoolean, "array": geminiArray, "object": geminiObject, "null": geminiNull,
}

// geminiFormats lists, per type, the formats the Gemini API accepts; others
// are dropped.
var geminiFormats = map[string][]string{
	geminiString:  {"date-time", "enum"},
	geminiNumber:  {"double", "float"},
	geminiInteger: {"int32", "int64"},
}

// schemaConverter turns one tool's JSON Schema into a GeminiSchema, inlining
// $ref within the bounds.
type schemaConverter struct {
	root     map[string]any
	maxDepth int
	maxNodes int
	nodes    int
}

// schemaFault is a conversion failure at a JSON pointer of the parameters.
type schemaFault struct {
	path string
	err  error
}

func (f *schemaFault) Error() string { return f.path + ": " + f.err.Error() }

func (f *schemaFault) Unwrap() error { return f.err }

func (c *schemaConverter) fail(path string, err error, format string, args ...any) error {
	if format != "" {
		err = fmt.Errorf("%w: %s", err, fmt.Sprintf(format, args...))
	}
	return &schemaFault{path: path, err: err}
}

// geminiParameters converts a tool's parameters. It returns nil when the
// tool takes no arguments: Gemini rejects an OBJECT with empty properties.
func geminiParameters(schema json.RawMessage, lim Limits) (*GeminiSchema, error) {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, &schemaFault{err: fmt.Errorf("%w: parameters: %v", ErrInvalidSchema, err)}
	}
	c := &schemaConverter{root: root, maxDepth: lim.SchemaDepth, maxNodes: lim.SchemaNodes}
	s, err := c.convert(root, "", 0, nil)
	if err != nil {
		return nil, err
	}
	if s == nil || len(s.Properties) == 0 {
		return nil, nil
	}
	s.Type = geminiObject
	s.Nullable = false
	return s, nil
}

// convert converts node, found at path, depth levels below the root; stack
// holds the references being expanded above it (a repeat is recursion). A
// nil result with a nil error means the node admits nothing (the false
// schema) and its property is left out.
func (c *schemaConverter) convert(node any, path string, depth int, stack []string) (*GeminiSchema, error) {
	c.nodes++
	if c.nodes > c.maxNodes {
		return nil, c.fail(path, ErrSchemaTooLarge, "more than %d schema nodes", c.maxNodes)
	}
	if depth > c.maxDepth {
		return nil, c.fail(path, ErrSchemaTooLarge, "nested deeper than %d levels", c.maxDepth)
	}
	var m map[string]any
	switch n := node.(type) {
	case bool:
		if !n {
			return nil, nil
		}
		m = map[string]any{}
	case map[string]any:
		m = n
	default:
		return nil, c.fail(path, ErrInvalidSchema, "a schema must be an object or a boolean, got %s", jsonKind(node))
	}
	m, stack, err := c.flatten(m, path, stack)
	if err != nil {
		return nil, err
	}

	types, nullable := schemaTypes(m)
	if len(types) == 0 {
		if alts, ok := unionOf(m); ok {
			return c.union(m, alts, path, depth, stack, nullable)
		}
		types = []string{inferType(m)}
	}
	if len(types) > 1 {
		out := c.common(m, nullable)
		for _, t := range types {
			alt, err := c.typed(m, t, path, depth+1, stack)
			if err != nil {
				return nil, err
			}
			alt.Description, alt.Title, alt.Default = "", "", nil
			out.AnyOf = append(out.AnyOf, alt)
		}
		return out, nil
	}
	out, err := c.typed(m, types[0], path, depth, stack)
	if err != nil {
		return nil, err
	}
	out.Nullable = out.Nullable || nullable
	return out, nil
}

// flatten resolves $ref and merges allOf, so that the returned map is one
// schema without either. The references it expands are added to stack.
func (c *schemaConverter) flatten(m map[string]any, path string, stack []string) (map[string]any, []string, error) {
	for range c.maxNodes {
		ref, hasRef := m["$ref"]
		all, hasAll := m["allOf"]
		if !hasRef && !hasAll {
			return m, stack, nil
		}
		c.nodes++
		if c.nodes > c.maxNodes {
			return nil, nil, c.fail(path, ErrSchemaTooLarge, "more than %d schema nodes", c.maxNodes)
		}
		merged := make(map[string]any, len(m))
		if hasRef {
			s, ok := ref.(string)
			if !ok {
				return nil, nil, c.fail(path, ErrInvalidSchema, "$ref must be a string, got %s", jsonKind(ref))
			}
			if slices.Contains(stack, s) {
				return nil, nil, c.fail(path, ErrRecursiveSchema, "%q refers to itself (through %s)", s, strings.Join(append(stack, s), " -> "))
			}
			target, err := c.resolve(s, path)
			if err != nil {
				return nil, nil, err
			}
			stack = append(slices.Clip(stack), s)
			for k, v := range target {
				merged[k] = v
			}
		}
		for k, v := range m {
			if k != "$ref" && k != "allOf" {
				merged[k] = v // siblings of $ref refine it (JSON Schema 2020-12)
			}
		}
		if hasAll {
			parts, ok := all.([]any)
			if !ok {
				return nil, nil, c.fail(path, ErrInvalidSchema, "allOf must be an array, got %s", jsonKind(all))
			}
			base := stack // each entry is expanded from here; children see every expansion
			for i, p := range parts {
				pm, ok := p.(map[string]any)
				if !ok {
					if b, isBool := p.(bool); isBool && b {
						continue
					}
					return nil, nil, c.fail(fmt.Sprintf("%s/allOf/%d", path, i), ErrInvalidSchema, "allOf entries must be schema objects")
				}
				pm, partStack, err := c.flatten(pm, fmt.Sprintf("%s/allOf/%d", path, i), base)
				if err != nil {
					return nil, nil, err
				}
				for _, r := range partStack[len(base):] {
					if !slices.Contains(stack, r) {
						stack = append(slices.Clip(stack), r)
					}
				}
				mergeInto(merged, pm)
			}
		}
		m = merged
	}
	return nil, nil, c.fail(path, ErrSchemaTooLarge, "$ref chain longer than %d", c.maxNodes)
}

// mergeInto adds the constraints of part to dst, as allOf requires:
// properties and required are united, other keywords are kept from dst
// when it has them.
func mergeInto(dst, part map[string]any) {
	for k, v := range part {
		switch k {
		case "properties":
			props, _ := dst[k].(map[string]any)
			merged := make(map[string]any, len(props))
			for pk, pv := range props {
				merged[pk] = pv
			}
			if add, ok := v.(map[string]any); ok {
				for pk, pv := range add {
					if _, exists := merged[pk]; !exists {
						merged[pk] = pv
					}
				}
			}
			dst[k] = merged
		case "required":
			have, _ := dst[k].([]any)
			add, _ := v.([]any)
			out := slices.Clone(have)
			for _, r := range add {
				if !slices.Contains(out, r) {
					out = append(out, r)
				}
			}
			dst[k] = out
		default:
			if _, exists := dst[k]; !exists {
				dst[k] = v
			}
		}
	}
}

// resolve finds the target of a local reference ("#", "#/$defs/Name", any
// JSON pointer into the parameters).
func (c *schemaConverter) resolve(ref, path string) (map[string]any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, c.fail(path, ErrUnresolvedRef, "%q: only references within the schema (#/...) can be inlined", ref)
	}
	var cur any = c.root
	ptr := strings.TrimPrefix(ref, "#")
	if ptr != "" {
		if !strings.HasPrefix(ptr, "/") {
			return nil, c.fail(path, ErrUnresolvedRef, "%q: anchors are not supported", ref)
		}
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch v := cur.(type) {
			case map[string]any:
				next, ok := v[tok]
				if !ok {
					return nil, c.fail(path, ErrUnresolvedRef, "%q: no %q", ref, tok)
				}
				cur = next
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(v) {
					return nil, c.fail(path, ErrUnresolvedRef, "%q: no index %q", ref, tok)
				}
				cur = v[i]
			default:
				return nil, c.fail(path, ErrUnresolvedRef, "%q: %q is not inside an object", ref, tok)
			}
		}
	}
	switch v := cur.(type) {
	case map[string]any:
		return v, nil
	case bool:
		if v {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}}, nil
	}
	return nil, c.fail(path, ErrUnresolvedRef, "%q does not point to a schema", ref)
}

// schemaTypes reads "type" (a string or an array) and reports whether null
// is allowed, by the type or by an enum holding null.
func schemaTypes(m map[string]any) (types []string, nullable bool) {
	add := func(v any) {
		s, ok := v.(string)
		if !ok {
			return
		}
		if s == "null" {
			nullable = true
			return
		}
		if g, ok := geminiTypes[s]; ok && !slices.Contains(types, g) {
			types = append(types, g)
		}
	}
	switch t := m["type"].(type) {
	case string:
		if t == "null" {
			if _, hasUnion := unionOf(m); !hasUnion {
				return []string{geminiNull}, false
			}
		}
		add(t)
	case []any:
		for _, v := range t {
			add(v)
		}
		if len(types) == 0 && nullable {
			return []string{geminiNull}, false
		}
	}
	if e, ok := m["enum"].([]any); ok && slices.Contains(e, any(nil)) {
		nullable = true
	}
	return types, nullable
}

// unionOf returns the alternatives of anyOf or oneOf.
func unionOf(m map[string]any) ([]any, bool) {
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			return alts, true
		}
	}
	return nil, false
}

// inferType guesses the type of a schema without "type" from its keywords;
// a schema that says nothing about its type becomes STRING, since Gemini
// needs a type and any string satisfies it.
func inferType(m map[string]any) string {
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("properties", "additionalProperties", "required", "minProperties", "maxProperties", "patternProperties"):
		return geminiObject
	case has("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"):
		return geminiArray
	case has("pattern", "minLength", "maxLength", "format"):
		return geminiString
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return geminiNumber
	}
	values := enumValues(m)
	if len(values) > 0 {
		kind := ""
		for _, v := range values {
			k := geminiString
			switch x := v.(type) {
			case bool:
				k = geminiBoolean
			case float64, json.Number:
				k = geminiNumber
				if f, _ := asFloat(x); f == math.Trunc(f) {
					k = geminiInteger
				}
			case string:
			default:
				return geminiString
			}
			if kind == "" || kind == k {
				kind = k
			} else if (kind == geminiInteger && k == geminiNumber) || (kind == geminiNumber && k == geminiInteger) {
				kind = geminiNumber
			} else {
				return geminiString
			}
		}
		return kind
	}
	return geminiString
}

// enumValues returns enum (without null), or const as a one-value enum.
func enumValues(m map[string]any) []any {
	if e, ok := m["enum"].([]any); ok {
		return slices.DeleteFunc(slices.Clone(e), func(v any) bool { return v == nil })
	}
	if v, ok := m["const"]; ok && v != nil {
		return []any{v}
	}
	return nil
}

// common fills the keywords every type has.
func (c *schemaConverter) common(m map[string]any, nullable bool) *GeminiSchema {
	out := &GeminiSchema{Nullable: nullable}
	out.Title, _ = m["title"].(string)
	out.Description, _ = m["description"].(string)
	if d, ok := m["default"]; ok && d != nil {
		if b, err := json.Marshal(d); err == nil {
			out.Default = b
		}
	}
	return out
}

// union converts anyOf/oneOf. Null alternatives become Nullable; a single
// remaining alternative is merged into the node.
func (c *schemaConverter) union(m map[string]any, alts []any, path string, depth int, stack []string, nullable bool) (*GeminiSchema, error) {
	key := "anyOf"
	if _, ok := m["anyOf"]; !ok {
		key = "oneOf"
	}
	out := c.common(m, nullable)
	for i, a := range alts {
		if am, ok := a.(map[string]any); ok && len(am) == 1 && am["type"] == "null" {
			out.Nullable = true
			continue
		}
		s, err := c.convert(a, fmt.Sprintf("%s/%s/%d", path, key, i), depth+1, stack)
		if err != nil {
			return nil, err
		}
		if s == nil {
			continue
		}
		if s.Type == geminiNull {
			out.Nullable = true
			continue
		}
		out.AnyOf = append(out.AnyOf, s)
	}
	switch len(out.AnyOf) {
	case 0:
		if out.Nullable {
			out.Type, out.Nullable = geminiNull, false
		} else {
			out.Type = geminiString
		}
	case 1:
		only := out.AnyOf[0]
		if out.Title != "" {
			only.Title = out.Title
		}
		if out.Description != "" {
			only.Description = out.Description
		}
		if out.Default != nil {
			only.Default = out.Default
		}
		only.Nullable = only.Nullable || out.Nullable
		out = only
	}
	return out, nil
}

// typed converts m as a schema of the Gemini type t, keeping only the
// keywords Gemini accepts for that type.
func (c *schemaConverter) typed(m map[string]any, t, path string, depth int, stack []string) (*GeminiSchema, error) {
	out := c.common(m, false)
	out.Type = t
	if f, ok := m["format"].(string); ok && slices.Contains(geminiFormats[t], f) {
		out.Format = f
	}
	switch t {
	case geminiString:
		out.Pattern, _ = m["pattern"].(string)
		out.MinLength = count(m["minLength"])
		out.MaxLength = count(m["maxLength"])
		values := enumValues(m)
		strs := make([]string, 0, len(values))
		for _, v := range values {
			if s, ok := v.(string); ok {
				strs = append(strs, s)
			}
		}
		if len(values) > 0 && len(strs) == len(values) {
			out.Enum = strs
			out.Format = "enum"
		}
	case geminiNumber, geminiInteger:
		out.Minimum = number(m["minimum"])
		out.Maximum = number(m["maximum"])
	case geminiArray:
		out.MinItems = count(m["minItems"])
		out.MaxItems = count(m["maxItems"])
		items, ok := m["items"]
		if _, isSchema := items.(map[string]any); !ok || !(isSchema || items == true) {
			items = map[string]any{} // Gemini requires items; any string is a valid element
		}
		s, err := c.convert(items, path+"/items", depth+1, stack)
		if err != nil {
			return nil, err
		}
		if s == nil { // items: false, only the empty array
			s = &GeminiSchema{Type: geminiString}
			out.MaxItems = new(int64)
		}
		out.Items = s
	case geminiObject:
		out.MinProperties = count(m["minProperties"])
		out.MaxProperties = count(m["maxProperties"])
		props, _ := m["properties"].(map[string]any)
		if len(props) > 0 {
			out.Properties = make(map[string]*GeminiSchema, len(props))
			names := make([]string, 0, len(props))
			for name := range props {
				names = append(names, name)
			}
			slices.Sort(names) // deterministic node counting and errors
			for _, name := range names {
				s, err := c.convert(props[name], path+"/properties/"+escapePointer(name), depth+1, stack)
				if err != nil {
					return nil, err
				}
				if s != nil {
					out.Properties[name] = s
				}
			}
		}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok && out.Properties[s] != nil && !slices.Contains(out.Required, s) {
					out.Required = append(out.Required, s)
				}
			}
		}
		if len(out.Properties) == 0 {
			out.Properties = nil
		}
	}
	return out, nil
}

// count reads a non-negative integer keyword.
func count(v any) *int64 {
	f, ok := asFloat(v)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt64/2 {
		return nil
	}
	n := int64(f)
	return &n
}

func number(v any) *float64 {
	f, ok := asFloat(v)
	if !ok {
		return nil
	}
	return &f
}

// asFloat reads a schema number: float64, or json.Number for an integer that
// float64 cannot hold exactly (toolreg keeps those as written).
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
