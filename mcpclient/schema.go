package mcpclient

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
)

// annotationKeys are top-level schema keywords that carry no validation:
// [toolreg.Parameters] has no place for them, and dropping them changes no
// answer the schema gives.
var annotationKeys = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"examples": true, "default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// parameters converts a remote tool's input schema, as JSON, into the
// registry's [toolreg.Parameters]. The conversion is exact or refused: a
// top-level keyword that Parameters cannot carry and that changes
// validation (anyOf, a schema for additionalProperties, ...) is an error
// wrapping [ErrUnsupportedSchema], never silently dropped. "definitions" (an
// older draft's name for "$defs") becomes "$defs", and every "$ref" into it
// is rewritten to match. maxDepth bounds the nesting of objects and arrays.
func parameters(raw []byte, maxDepth int) (toolreg.Parameters, error) {
	var p toolreg.Parameters
	if len(raw) == 0 || string(raw) == "null" {
		// An MCP tool must declare an object schema; a missing one is read
		// as the schema that accepts any object.
		return p, nil
	}
	var top map[string]any
	if err := json.Unmarshal(raw, &top); err != nil {
		return p, fmt.Errorf("%w: input schema is not a JSON object: %v", ErrUnsupportedSchema, err)
	}
	if d := depth(top, maxDepth+1); d > maxDepth {
		return p, fmt.Errorf("%w: input schema nests deeper than %d levels", ErrTooLarge, maxDepth)
	}
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(top)) {
		v := top[k]
		switch k {
		case "type":
			if v != "object" {
				problems = append(problems, fmt.Sprintf("type is %s, not \"object\"", brief(v)))
			}
		case "properties":
			m, ok := v.(map[string]any)
			if !ok {
				problems = append(problems, "properties is not an object")
			}
			p.Properties = m
		case "required":
			req, ok := stringList(v)
			if !ok {
				problems = append(problems, "required is not an array of strings")
			}
			p.Required = req
		case "additionalProperties":
			b, ok := v.(bool)
			if !ok {
				problems = append(problems, "additionalProperties is a schema, not a boolean")
			}
			p.AdditionalProperties = toolreg.Bool(b)
		case "$defs", "definitions":
			m, ok := v.(map[string]any)
			if !ok {
				problems = append(problems, k+" is not an object")
			}
			if p.Defs != nil {
				problems = append(problems, "both $defs and definitions are present")
			}
			p.Defs = m
		default:
			if !annotationKeys[k] {
				problems = append(problems, fmt.Sprintf("top-level keyword %q", k))
			}
		}
	}
	if len(problems) > 0 {
		return toolreg.Parameters{}, fmt.Errorf("%w: %s", ErrUnsupportedSchema, strings.Join(problems, "; "))
	}
	if _, old := top["definitions"]; old {
		rewriteRefs(p.Properties)
		rewriteRefs(p.Defs)
	}
	p.Type = "object"
	return p, nil
}

// depth returns how deeply v nests objects and arrays, counting v itself,
// and stops looking once it passes limit, so a hostile schema costs no more
// than limit levels of recursion.
func depth(v any, limit int) int {
	if limit <= 0 {
		return 0
	}
	deepest := 0
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			deepest = max(deepest, depth(c, limit-1))
			if deepest >= limit-1 {
				break
			}
		}
	case []any:
		for _, c := range x {
			deepest = max(deepest, depth(c, limit-1))
			if deepest >= limit-1 {
				break
			}
		}
	default:
		return 0
	}
	return deepest + 1
}

// rewriteRefs points every "$ref" into "#/definitions/" at "#/$defs/"
// instead, in place.
func rewriteRefs(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if s, ok := c.(string); ok && k == "$ref" {
				if rest, ok := strings.CutPrefix(s, "#/definitions/"); ok {
					x[k] = "#/$defs/" + rest
				}
				continue
			}
			rewriteRefs(c)
		}
	case []any:
		for _, c := range x {
			rewriteRefs(c)
		}
	}
}

// stringList converts a JSON array of strings.
func stringList(v any) ([]string, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(a))
	for i, e := range a {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// brief describes a JSON value in a few bytes, for messages.
func brief(v any) string {
	b, _ := json.Marshal(v) // a decoded JSON value always marshals
	if len(b) <= 40 {
		return string(b)
	}
	n := 37
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "..."
}
