package toolreg

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"
)

// fastSchema is a tool's parameter schema compiled for speed: the keywords
// that tool schemas use nearly always (type, enum, const, properties,
// required, additionalProperties, items, length and range bounds, pattern,
// allOf, anyOf, oneOf, not and local $ref), checked with no allocation. It
// only answers "valid": the full validator (santhosh-tekuri/jsonschema) still
// decides every argument set it does not accept, and writes the messages. A
// schema that uses any other keyword that asserts something gets no fast
// schema at all, so the two can never disagree on what is valid.
type fastSchema struct {
	root *fnode
}

// fprop is one declared property and its schema.
type fprop struct {
	name string
	node *fnode
}

// fnode is one compiled subschema. The graph may be cyclic ($ref recursion
// that descends into the arguments; cycles that do not are refused at
// Register).
type fnode struct {
	never      bool  // the false schema
	types      uint8 // allowed JSON types; 0: any
	enum       []any // scalars; nil: no enum
	konst      any   // valid when hasConst
	hasConst   bool  //
	minLen     int   // -1: none
	maxLen     int   // -1: none
	pattern    *regexp.Regexp
	bounds     [4]float64 // minimum, maximum, exclusiveMinimum, exclusiveMaximum
	hasBound   [4]bool
	props      map[string]*fnode
	propList   []fprop // props, for iteration without a map
	required   []string
	additional *fnode // nil: any
	closed     bool   // additionalProperties: false
	minProps   int    // -1: none
	maxProps   int    // -1: none
	items      *fnode
	minItems   int // -1: none
	maxItems   int // -1: none
	allOf      []*fnode
	anyOf      []*fnode
	oneOf      []*fnode
	not        *fnode
	ref        *fnode
}

const (
	tNull uint8 = 1 << iota
	tBool
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeBits = map[string]uint8{
	"null": tNull, "boolean": tBool, "number": tNumber, "integer": tInteger,
	"string": tString, "array": tArray, "object": tObject,
}

// annotations are keywords that assert nothing (format is an annotation in
// draft 2020-12 unless asked to assert, and the full validator is not).
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "$comment": true, "format": true, "$defs": true,
	"definitions": true, "contentEncoding": true, "contentMediaType": true, "contentSchema": true,
}

// asserting lists the keywords the full validator checks that the fast
// schema does not: one of them anywhere means no fast schema.
var asserting = map[string]bool{
	"patternProperties": true, "propertyNames": true, "dependentRequired": true, "dependentSchemas": true,
	"dependencies": true, "if": true, "then": true, "else": true, "prefixItems": true, "contains": true,
	"minContains": true, "maxContains": true, "unevaluatedProperties": true, "unevaluatedItems": true,
	"multipleOf": true, "uniqueItems": true, "additionalItems": true, "$dynamicRef": true,
	"$recursiveRef": true, "$id": true, "$schema": true, "$anchor": true, "$dynamicAnchor": true,
	"$vocabulary": true, "$recursiveAnchor": true,
}

// newFastSchema compiles the normalized parameter schema, or returns nil
// when it uses something the fast schema does not check.
func newFastSchema(p Parameters) *fastSchema {
	root := map[string]any{"type": "object", "properties": p.Properties}
	if len(p.Required) > 0 {
		req := make([]any, len(p.Required))
		for i, r := range p.Required {
			req[i] = r
		}
		root["required"] = req
	}
	if p.AdditionalProperties != nil {
		root["additionalProperties"] = *p.AdditionalProperties
	}
	if p.Defs != nil {
		root["$defs"] = p.Defs
	}
	c := fcompiler{root: root, done: map[uintptr]*fnode{}}
	n := c.compile(root)
	if c.failed {
		return nil
	}
	return &fastSchema{root: n}
}

type fcompiler struct {
	root   map[string]any
	done   map[uintptr]*fnode
	failed bool
}

func (c *fcompiler) compile(v any) *fnode {
	switch s := v.(type) {
	case bool:
		return &fnode{never: !s, minLen: -1, maxLen: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1}
	case map[string]any:
		key := mapKey(s)
		if n, ok := c.done[key]; ok {
			return n
		}
		n := &fnode{minLen: -1, maxLen: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1}
		c.done[key] = n
		for kw, val := range s {
			if !c.keyword(n, kw, val) {
				c.failed = true
			}
		}
		return n
	}
	c.failed = true
	return &fnode{}
}

// keyword compiles one keyword into n, reporting false for one it cannot
// check exactly as the full validator does.
func (c *fcompiler) keyword(n *fnode, kw string, v any) bool {
	switch {
	case annotations[kw] || strings.HasPrefix(kw, "x-"):
		return true
	case asserting[kw]:
		return false
	}
	switch kw {
	case "type":
		return c.types(n, v)
	case "enum":
		list, ok := v.([]any)
		if !ok || !allScalars(list) {
			return false
		}
		n.enum = list
		return true
	case "const":
		n.konst, n.hasConst = v, true
		return isScalar(v)
	case "properties":
		props, ok := v.(map[string]any)
		if !ok {
			return false
		}
		n.props = make(map[string]*fnode, len(props))
		for _, k := range sortedKeys(props) {
			n.props[k] = c.compile(props[k])
			n.propList = append(n.propList, fprop{k, n.props[k]})
		}
		return true
	case "required":
		list, ok := v.([]any)
		for _, r := range list {
			s, isStr := r.(string)
			if !isStr {
				return false
			}
			n.required = append(n.required, s)
		}
		return ok
	case "additionalProperties":
		if b, ok := v.(bool); ok {
			n.closed = !b
			return true
		}
		n.additional = c.compile(v)
		return true
	case "items":
		if _, isList := v.([]any); isList {
			return false
		}
		n.items = c.compile(v)
		return true
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		return c.count(n, kw, v)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		f, ok := v.(float64)
		i := map[string]int{"minimum": 0, "maximum": 1, "exclusiveMinimum": 2, "exclusiveMaximum": 3}[kw]
		n.bounds[i], n.hasBound[i] = f, ok
		return ok
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return false
		}
		re, err := regexp.Compile(s)
		n.pattern = re
		return err == nil
	case "allOf", "anyOf", "oneOf":
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return false
		}
		subs := make([]*fnode, len(list))
		for i, sub := range list {
			subs[i] = c.compile(sub)
		}
		switch kw {
		case "allOf":
			n.allOf = subs
		case "anyOf":
			n.anyOf = subs
		default:
			n.oneOf = subs
		}
		return true
	case "not":
		n.not = c.compile(v)
		return true
	case "$ref":
		ref, ok := v.(string)
		target := resolveRef(c.root, ref)
		if !ok || target == nil {
			return false
		}
		n.ref = c.compile(target)
		return true
	}
	return true // unknown keywords assert nothing
}

func (c *fcompiler) types(n *fnode, v any) bool {
	var names []any
	switch t := v.(type) {
	case string:
		names = []any{t}
	case []any:
		names = t
	default:
		return false
	}
	for _, name := range names {
		s, _ := name.(string)
		bit, ok := typeBits[s]
		if !ok {
			return false
		}
		n.types |= bit
	}
	return true
}

func (c *fcompiler) count(n *fnode, kw string, v any) bool {
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return false
	}
	p := map[string]*int{"minLength": &n.minLen, "maxLength": &n.maxLen, "minItems": &n.minItems,
		"maxItems": &n.maxItems, "minProperties": &n.minProps, "maxProperties": &n.maxProps}[kw]
	*p = int(f)
	return true
}

func isScalar(v any) bool {
	switch v.(type) {
	case nil, bool, float64, string:
		return true
	}
	return false
}

func allScalars(list []any) bool {
	for _, v := range list {
		if !isScalar(v) {
			return false
		}
	}
	return true
}

// valid reports whether args certainly satisfy the schema. args must hold
// only what encoding/json decodes into, numbers as float64: anything else
// (json.Number, Go values) makes it answer false, for the full validator to
// decide.
func (f *fastSchema) valid(args map[string]any) bool {
	return f.root.valid(args)
}

func (n *fnode) valid(v any) bool {
	if n.never {
		return false
	}
	if n.ref != nil && !n.ref.valid(v) {
		return false
	}
	switch x := v.(type) {
	case nil:
		if !n.typeOK(tNull) {
			return false
		}
	case bool:
		if !n.typeOK(tBool) {
			return false
		}
	case float64:
		if !n.number(x) {
			return false
		}
	case string:
		if !n.str(x) {
			return false
		}
	case []any:
		if !n.array(x) {
			return false
		}
	case map[string]any:
		if !n.object(x) {
			return false
		}
	default:
		return false // json.Number or a Go value: not decided here
	}
	if n.enum != nil && !inEnum(n.enum, v) {
		return false
	}
	if n.hasConst && n.konst != v {
		return false
	}
	return n.combinators(v)
}

func (n *fnode) typeOK(t uint8) bool { return n.types == 0 || n.types&t != 0 }

func (n *fnode) number(x float64) bool {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return false
	}
	if !n.typeOK(tNumber) && !(n.types&tInteger != 0 && x == math.Trunc(x)) {
		return false
	}
	return (!n.hasBound[0] || x >= n.bounds[0]) && (!n.hasBound[1] || x <= n.bounds[1]) &&
		(!n.hasBound[2] || x > n.bounds[2]) && (!n.hasBound[3] || x < n.bounds[3])
}

func (n *fnode) str(s string) bool {
	if !n.typeOK(tString) {
		return false
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen || n.maxLen >= 0 && l > n.maxLen {
			return false
		}
	}
	return n.pattern == nil || n.pattern.MatchString(s)
}

func (n *fnode) array(a []any) bool {
	if !n.typeOK(tArray) || n.minItems >= 0 && len(a) < n.minItems || n.maxItems >= 0 && len(a) > n.maxItems {
		return false
	}
	if n.items != nil {
		for _, e := range a {
			if !n.items.valid(e) {
				return false
			}
		}
	}
	return true
}

func (n *fnode) object(m map[string]any) bool {
	if !n.typeOK(tObject) || n.minProps >= 0 && len(m) < n.minProps || n.maxProps >= 0 && len(m) > n.maxProps {
		return false
	}
	for _, r := range n.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	known := 0
	for _, p := range n.propList {
		if v, ok := m[p.name]; ok {
			known++
			if !p.node.valid(v) {
				return false
			}
		}
	}
	if known == len(m) {
		return true
	}
	if n.closed {
		return false
	}
	if n.additional != nil {
		for k, v := range m {
			if _, declared := n.props[k]; !declared && !n.additional.valid(v) {
				return false
			}
		}
	}
	return true
}

func (n *fnode) combinators(v any) bool {
	for _, s := range n.allOf {
		if !s.valid(v) {
			return false
		}
	}
	if n.anyOf != nil {
		ok := false
		for _, s := range n.anyOf {
			if s.valid(v) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if n.oneOf != nil {
		count := 0
		for _, s := range n.oneOf {
			if s.valid(v) {
				count++
			}
		}
		if count != 1 {
			return false
		}
	}
	return n.not == nil || !n.not.valid(v)
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if e == v {
			return true
		}
	}
	return false
}
