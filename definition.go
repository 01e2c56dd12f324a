package toolreg

import (
	"bytes"
	"encoding/json"
)

// Definition is one element of the OpenAI function-calling "tools" array.
//
// json.Marshal of a Definition produces exactly that wire format: an empty
// Type is written as "function", and the parameters default as described on
// [Parameters]. json.Unmarshal reads it back.
type Definition struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is the "function" object of a [Definition]: the tool's name,
// description and argument schema.
//
// Strict asks the model provider for schema-exact arguments and makes the
// registry validate arguments against the full JSON Schema (see
// [Registry.Register]).
type Function struct {
	Name        string     `json:"name"`
	Strict      bool       `json:"strict,omitempty"`
	Description string     `json:"description"`
	Parameters  Parameters `json:"parameters"`
}

// Parameters is the JSON Schema of a tool's arguments, an object schema.
//
// An empty Type is written as "object" and nil Properties as {}. Each value
// of Properties is the JSON Schema of one argument, as a map[string]any (or a
// boolean schema). A property schema may carry "x-sensitive": true, which
// makes the registry redact that argument's value in events and logs.
type Parameters struct {
	Type                 string         `json:"type"`
	Properties           map[string]any `json:"properties"`
	Required             []string       `json:"required,omitempty"`
	AdditionalProperties *bool          `json:"additionalProperties,omitempty"`
	Defs                 map[string]any `json:"$defs,omitempty"`
}

// MarshalJSON writes d in the OpenAI wire format, filling the defaults that
// the wire format requires.
func (d Definition) MarshalJSON() ([]byte, error) {
	type wire Definition // drops the method, keeps the tags
	w := wire(d)
	if w.Type == "" {
		w.Type = "function"
	}
	return json.Marshal(w)
}

// MarshalJSON writes p as a JSON Schema object: an empty Type becomes
// "object" and nil Properties become {}.
func (p Parameters) MarshalJSON() ([]byte, error) {
	type wire Parameters
	w := wire(p)
	if w.Type == "" {
		w.Type = "object"
	}
	if w.Properties == nil {
		w.Properties = map[string]any{}
	}
	return json.Marshal(w)
}

// Bool returns a pointer to b, for [Parameters.AdditionalProperties].
func Bool(b bool) *bool { return &b }

// normalized returns a deep copy of d with the wire defaults filled in, so
// that the registry owns what it stores and lists it exactly as written. The
// schemas are copied through JSON: whatever Go types the caller wrote them
// with ([]map[string]any, structs, ints), the copy holds only what
// encoding/json decodes, which the strict-mode check and the redaction read.
func (d Definition) normalized(maxBytes int) (Definition, error) {
	out := d
	if out.Type == "" {
		out.Type = "function"
	}
	p := &out.Function.Parameters
	if p.Type == "" {
		p.Type = "object"
	}
	var errProps, errDefs error
	p.Properties, errProps = jsonCopy(p.Properties, "properties", maxBytes)
	if p.Properties == nil {
		p.Properties = map[string]any{}
	}
	p.Defs, errDefs = jsonCopy(p.Defs, "$defs", maxBytes)
	if p.Required != nil {
		p.Required = append([]string(nil), p.Required...)
	}
	if p.AdditionalProperties != nil {
		p.AdditionalProperties = Bool(*p.AdditionalProperties)
	}
	if errProps != nil {
		return out, errProps
	}
	return out, errDefs
}

// jsonCopy deep-copies a schema map, as JSON would: a map that holds only
// what encoding/json decodes into is copied directly (its size is checked
// by the caller, on the encoded definition); any other goes through JSON,
// its encoding at most maxBytes. nil stays nil.
func jsonCopy(m map[string]any, field string, maxBytes int) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	if out, ok := copyNative(m).(map[string]any); ok {
		return out, nil
	}
	b, err := marshalContained(m)
	if err != nil {
		return nil, problemf(ErrInvalidSchema, "parameters.%s cannot be encoded as JSON: %v", field, err)
	}
	if len(b) > maxBytes {
		return nil, problemf(ErrInvalidSchema, "parameters.%s takes %d bytes as JSON, more than the %d allowed", field, len(b), maxBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		return nil, problemf(ErrInvalidSchema, "parameters.%s: %v", field, err)
	}
	floatNumbers(out)
	return out, nil
}

// floatNumbers turns the json.Numbers of a decoded schema into float64, as
// encoding/json decodes numbers, except integers that float64 would round
// (an enum of 64-bit ids, say): those stay json.Number, exactly as written.
func floatNumbers(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if n, ok := e.(json.Number); ok {
				v[k] = numberValue(n)
			} else {
				floatNumbers(e)
			}
		}
	case []any:
		for i, e := range v {
			if n, ok := e.(json.Number); ok {
				v[i] = numberValue(n)
			} else {
				floatNumbers(e)
			}
		}
	}
}

func numberValue(n json.Number) any {
	if f, err := exactFloat(n, ""); err == nil {
		return f
	}
	return n
}

// copyNative deep-copies a value made of what encoding/json decodes into,
// or returns nil when it meets anything else. The value's depth and size
// were bounded before (checkSchemaShape).
func copyNative(v any) any {
	switch v := v.(type) {
	case string, bool, float64, json.Number:
		return v
	case nil:
		return nilValue{}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, ok := copyElement(e)
			if !ok {
				return nil
			}
			out[k] = c
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, ok := copyElement(e)
			if !ok {
				return nil
			}
			out[i] = c
		}
		return out
	}
	return nil
}

// copyElement copies one member of an object or array with copyNative,
// turning its nilValue back into nil; false when e cannot be copied.
func copyElement(e any) (any, bool) {
	c := copyNative(e)
	if c == nil {
		return nil, false
	}
	if _, isNil := c.(nilValue); isNil {
		return nil, true
	}
	return c, true
}

// nilValue stands for a JSON null inside copyNative, whose nil result means
// "not native".
type nilValue struct{}

// wireDefinition mirrors Definition without its MarshalJSON methods: a
// normalized definition already holds every default the wire format needs,
// so it encodes in one pass, to exactly the bytes json.Marshal(Definition)
// writes.
type wireDefinition struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string         `json:"name"`
	Strict      bool           `json:"strict,omitempty"`
	Description string         `json:"description"`
	Parameters  wireParameters `json:"parameters"`
}

type wireParameters struct {
	Type                 string         `json:"type"`
	Properties           map[string]any `json:"properties"`
	Required             []string       `json:"required,omitempty"`
	AdditionalProperties *bool          `json:"additionalProperties,omitempty"`
	Defs                 map[string]any `json:"$defs,omitempty"`
}

// encodeNormalized encodes a normalized definition (see normalized).
func encodeNormalized(d Definition) ([]byte, error) {
	p := d.Function.Parameters
	return marshalContained(wireDefinition{Type: d.Type, Function: wireFunction{
		Name: d.Function.Name, Strict: d.Function.Strict, Description: d.Function.Description,
		Parameters: wireParameters(p),
	}})
}
