package authority

import (
	"slices"
	"strings"

	"github.com/toolreg/toolreg"
)

// redactedValue replaces a sensitive argument's value.
const redactedValue = "[redacted]"

// redact returns a deep copy of args in which the values the tool's schema
// marks "x-sensitive": true read "[redacted]". Without a registry, or for a
// tool it does not know, it is a plain deep copy.
func (a *Authority) redact(tool string, args map[string]any) map[string]any {
	var props map[string]any
	if r := a.cfg.registry; r != nil {
		defs := r.Definitions(toolreg.Access{Groups: []string{toolreg.AllGroups}})
		if i, ok := slices.BinarySearchFunc(defs, tool, func(d toolreg.Definition, name string) int {
			return strings.Compare(d.Function.Name, name)
		}); ok {
			props = defs[i].Function.Parameters.Properties
		}
	}
	out := redactObject(props, args)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// redactObject copies an object, replacing the values of properties marked
// sensitive and descending into nested objects and arrays of objects.
func redactObject(props map[string]any, obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		schema, _ := props[k].(map[string]any)
		if mark, _ := schema["x-sensitive"].(bool); mark {
			out[k] = redactedValue
			continue
		}
		out[k] = redactValue(schema, v)
	}
	return out
}

// redactValue copies v under schema: objects by their properties, arrays by
// their items.
func redactValue(schema map[string]any, v any) any {
	switch v := v.(type) {
	case map[string]any:
		sub, _ := schema["properties"].(map[string]any)
		return redactObject(sub, v)
	case []any:
		items, _ := schema["items"].(map[string]any)
		if mark, _ := items["x-sensitive"].(bool); mark {
			out := make([]any, len(v))
			for i := range out {
				out[i] = redactedValue
			}
			return out
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactValue(items, e)
		}
		return out
	}
	return v
}
