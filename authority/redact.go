package authority

// redact returns a deep copy of args in which the values the tool's schema
// marks "x-sensitive": true read "[redacted]", as the registry's events show
// them (toolreg.Registry.Redact). Without a registry, or for a tool it does
// not know, it is a plain deep copy.
func (a *Authority) redact(tool string, args map[string]any) map[string]any {
	if r := a.cfg.registry; r != nil {
		if out := r.Redact(tool, args); out != nil {
			return out
		}
	}
	out := copyObject(args, 0)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// maxCopyDepth bounds copyObject: arguments that came through a registry
// nest at most toolreg.MaxArgumentDepth levels; deeper ones (a value that
// contains itself, passed to the guard directly) are cut.
const maxCopyDepth = 64

// copyObject deep-copies the objects and arrays of a JSON-like value.
func copyObject(obj map[string]any, depth int) map[string]any {
	if obj == nil {
		return nil
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = copyValue(v, depth+1)
	}
	return out
}

func copyValue(v any, depth int) any {
	if depth > maxCopyDepth {
		return "[too deep]"
	}
	switch v := v.(type) {
	case map[string]any:
		return copyObject(v, depth)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyValue(e, depth+1)
		}
		return out
	}
	return v
}
