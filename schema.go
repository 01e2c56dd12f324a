package toolreg

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// SchemaLimits bounds the parameter schema of one tool, checked by
// [Registry.Register] before it does anything else with the schema. Schemas
// come from outside (an MCP server, a plugin) and must not be able to make
// registration slow or the process run out of stack or memory. A zero field
// means its default in [DefaultSchemaLimits].
type SchemaLimits struct {
	MaxDepth  int // nesting of maps and lists in parameters.properties and $defs
	MaxValues int // maps, lists and scalars in them, all counted
	MaxBytes  int // their JSON encoding
}

// DefaultSchemaLimits are the limits a registry applies unless built
// [WithSchemaLimits]. They admit every hand-written or generated tool schema
// seen in practice and are checked in well under a millisecond.
var DefaultSchemaLimits = SchemaLimits{MaxDepth: 64, MaxValues: 20_000, MaxBytes: 1 << 20}

// WithSchemaLimits sets the limits on each tool's parameter schema; zero
// fields keep their defaults. A schema over a limit fails Register with
// [ErrInvalidSchema].
func WithSchemaLimits(l SchemaLimits) Option {
	return func(c *config) {
		d := DefaultSchemaLimits
		c.schema = SchemaLimits{
			MaxDepth:  orDefault(l.MaxDepth, d.MaxDepth),
			MaxValues: orDefault(l.MaxValues, d.MaxValues),
			MaxBytes:  orDefault(l.MaxBytes, d.MaxBytes),
		}
	}
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// checkSchemaShape walks the schema as given (any Go types), bounded, before
// anything recursive touches it: a schema that contains itself, nests too
// deeply or is too large is refused here, in time proportional to the
// limits.
func checkSchemaShape(p Parameters, l SchemaLimits) error {
	w := shapeWalker{limits: l}
	for _, part := range []struct {
		name string
		m    map[string]any
	}{{"properties", p.Properties}, {"$defs", p.Defs}} {
		if part.m == nil {
			continue
		}
		if err := w.walkAny(part.m, 1); err != nil {
			return problemf(ErrInvalidSchema, "parameters.%s%s", part.name, err.text(l))
		}
	}
	return nil
}

type shapeWalker struct {
	limits SchemaLimits
	count  int
}

// shapeError is a limit hit deep in a schema; its path is collected on the
// way out.
type shapeError struct {
	rev   []string
	depth bool // the depth limit, else the size limit
	msg   string
}

func (e *shapeError) at(seg string) *shapeError { e.rev = append(e.rev, seg); return e }

func (e *shapeError) text(l SchemaLimits) string {
	var sb strings.Builder
	for i := len(e.rev) - 1; i >= 0 && sb.Len() < maxPath; i-- {
		sb.WriteString(e.rev[i])
	}
	switch {
	case e.msg != "":
		return cut(sb.String(), maxPath) + ": " + e.msg
	case e.depth:
		return fmt.Sprintf("%s: nested deeper than %d levels (or contains itself)", cut(sb.String(), maxPath), l.MaxDepth)
	}
	return fmt.Sprintf(" holds more than %d values", l.MaxValues)
}

// walkAny walks what encoding/json decodes into without reflection, and
// anything else with it.
func (w *shapeWalker) walkAny(v any, depth int) *shapeError {
	switch x := v.(type) {
	case string, bool, nil, json.Number:
	case float64:
		if err := checkFloat(x); err != nil {
			return &shapeError{msg: err.msg}
		}
	case map[string]any:
		if w.count++; w.count > w.limits.MaxValues {
			return &shapeError{}
		}
		if depth > w.limits.MaxDepth {
			return &shapeError{depth: true}
		}
		for k, e := range x {
			if err := w.walkAny(e, depth+1); err != nil {
				return err.at("." + k)
			}
		}
		return nil
	case []any:
		if w.count++; w.count > w.limits.MaxValues {
			return &shapeError{}
		}
		if depth > w.limits.MaxDepth {
			return &shapeError{depth: true}
		}
		for i, e := range x {
			if err := w.walkAny(e, depth+1); err != nil {
				return err.at(index(i))
			}
		}
		return nil
	default:
		return w.walk(reflect.ValueOf(v), depth)
	}
	if w.count++; w.count > w.limits.MaxValues {
		return &shapeError{}
	}
	return nil
}

func (w *shapeWalker) walk(v reflect.Value, depth int) *shapeError {
	if w.count++; w.count > w.limits.MaxValues {
		return &shapeError{}
	}
	if depth > w.limits.MaxDepth {
		return &shapeError{depth: true}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return w.walk(v.Elem(), depth)
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if err := w.walk(it.Value(), depth+1); err != nil {
				return err.at("." + keyText(it.Key()))
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := range v.Len() {
			if err := w.walk(v.Index(i), depth+1); err != nil {
				return err.at(index(i))
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if err := w.walk(v.Field(i), depth+1); err != nil {
					return err.at("." + v.Type().Field(i).Name)
				}
			}
		}
	case reflect.Float32, reflect.Float64:
		if err := checkFloat(v.Float()); err != nil {
			return &shapeError{msg: err.msg}
		}
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return &shapeError{msg: "a " + v.Kind().String() + " has no JSON form"}
	}
	return nil
}

// checkRefCycles refuses a schema in which references and in-place
// applicators (allOf, anyOf, oneOf, not, if, then, else) lead back to a
// schema without descending into the arguments: such a schema can never
// finish validating anything ({"$defs":{"a":{"$ref":"#/$defs/a"}}}). The
// schema is normalized (JSON-native) and within the shape limits.
func checkRefCycles(p Parameters) error {
	root := map[string]any{"type": "object", "properties": p.Properties}
	if p.Defs != nil {
		root["$defs"] = p.Defs
	}
	c := cycleFinder{root: root, state: map[uintptr]int8{}}
	if cyc := c.findIn(root); cyc != "" {
		return problemf(ErrInvalidSchema, "parameters: the reference %s leads back to itself without descending into the arguments", quote(cyc))
	}
	return nil
}

type cycleFinder struct {
	root  map[string]any
	state map[uintptr]int8 // 1 on the current in-place path, 2 done
}

// findIn visits every schema below v and returns a reference that closes an
// in-place cycle, or "".
func (c *cycleFinder) findIn(v any) string {
	switch v := v.(type) {
	case map[string]any:
		if cyc := c.visit(v, ""); cyc != "" {
			return cyc
		}
		for _, e := range v {
			if cyc := c.findIn(e); cyc != "" {
				return cyc
			}
		}
	case []any:
		for _, e := range v {
			if cyc := c.findIn(e); cyc != "" {
				return cyc
			}
		}
	}
	return ""
}

// visit follows the in-place edges of schema s depth first.
func (c *cycleFinder) visit(s map[string]any, via string) string {
	key := reflect.ValueOf(s).Pointer()
	switch c.state[key] {
	case 1:
		return via
	case 2:
		return ""
	}
	c.state[key] = 1
	defer func() { c.state[key] = 2 }()
	if ref, ok := s["$ref"].(string); ok {
		if target, ok := resolveRef(c.root, ref).(map[string]any); ok {
			if cyc := c.visit(target, ref); cyc != "" {
				return cyc
			}
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[kw].([]any)
		for _, sub := range list {
			if m, ok := sub.(map[string]any); ok {
				if cyc := c.visit(m, via); cyc != "" {
					return cyc
				}
			}
		}
	}
	for _, kw := range []string{"not", "if", "then", "else"} {
		if m, ok := s[kw].(map[string]any); ok {
			if cyc := c.visit(m, via); cyc != "" {
				return cyc
			}
		}
	}
	return ""
}
