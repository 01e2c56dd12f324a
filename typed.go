package toolreg

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// TypedOption configures [NewTyped].
type TypedOption func(*typedConfig)

type typedConfig struct {
	strict  bool
	schemas map[reflect.Type]map[string]any // by SchemaFor
}

// StrictSchema makes [NewTyped] build a schema ready for OpenAI strict mode
// and set [Function.Strict]: every property is required, an optional field
// (tagged omitempty or omitzero) also accepts null, which then means absent,
// and every object level has additionalProperties false. Such a tool passes
// the strict-mode checks of [Registry.Register], and the registry then
// validates its arguments against the full schema.
//
// Strict mode has no schema for open maps or for values of any type, so an
// In that holds a map, an interface or a json.RawMessage field is a
// construction error.
func StrictSchema() TypedOption {
	return func(c *typedConfig) { c.strict = true }
}

// SchemaFor gives the JSON Schema of the Go type T wherever T (or *T)
// appears in the arguments of a tool built by [NewTyped], in place of the
// inferred one; SchemaFor[*T] is SchemaFor[T]. Use it for types that decode
// themselves from JSON (UnmarshalJSON), whose schema cannot be inferred, or
// to describe a type more closely (a format, a pattern). The schema is used
// as given, for every field of type T; it is not made strict-ready. A schema
// that does not compile is a construction error. A later SchemaFor for the
// same T replaces an earlier one.
func SchemaFor[T any](schema map[string]any) TypedOption {
	return func(c *typedConfig) {
		if c.schemas == nil {
			c.schemas = map[reflect.Type]map[string]any{}
		}
		c.schemas[reflect.TypeFor[T]()] = schema
	}
}

// NewTyped returns a tool whose handler is fn: the registry's arguments are
// decoded into an In, and fn's Out is encoded as the result. The returned
// [RegisteredTool] is ready for [Registry.Register]; set its policy fields
// (Risk, Groups, Timeout, ...) before registering it.
//
// # Schema
//
// The parameter schema is inferred from In, a struct or a pointer to one,
// with github.com/google/jsonschema-go. Properties are the fields that
// encoding/json decodes, under their JSON names. A field is required unless
// it is tagged omitempty or omitzero. Pointers and slices also accept null.
// Structs have additionalProperties false; a map[string]V is an object whose
// values are V. A time.Time is a "date-time" string, a []byte a (base64)
// string, a type that decodes itself from text (encoding.TextUnmarshaler) a
// string, a json.RawMessage any JSON value; any other type that decodes
// itself from JSON needs [SchemaFor].
//
// Struct tags describe fields:
//
//	jsonschema:"the description"     the property's description
//	toolreg:"enum=c|f"               the allowed values, parsed as the field's type;
//	                                 on a slice or array field they apply to each item
//	toolreg:"sensitive"              "x-sensitive": true (redacted in events and logs)
//	toolreg:"enum=a|b,sensitive"     both
//
// With [StrictSchema] the schema is made ready for strict mode.
//
// Every problem of In is an error at construction, reported together and
// wrapping [ErrInvalidSchema] (a nil fn wraps [ErrMissingHandler]): In not a
// struct; a field that JSON cannot hold (chan, func, complex, unsafe
// pointers, interfaces with methods, maps with keys other than strings);
// recursive types; two fields with one JSON name; embedded fields that
// encoding/json and the inference would read differently; the ",string"
// option; a malformed toolreg tag or an enum value the field cannot hold.
// Out is checked the same way for values that JSON cannot encode.
//
// # Calls
//
// The registry checks the top-level arguments as for any tool, and refuses
// values with no JSON form (NaN, channels) with code "invalid_arguments".
// The handler then validates the arguments against the full schema,
// whatever the registry's options, and decodes them into a fresh In, with no
// unknown field. The tool's UseNumber is set, so [Registry.ExecuteJSON]
// hands over numbers as written and 64-bit integers arrive exact; an integer
// written as 5.0 or 1e3 still decodes into an integer field. A field of
// type any receives what encoding/json decodes into one (float64 numbers).
// Go callers of [Registry.Execute] may pass any values that encoding/json
// encodes (int64, structs, json.Number, ...). A problem found here (a nested
// field, an enum, a value out of range, a MarshalJSON that fails or panics)
// fails the call with code "tool_error" and a message that begins
// "invalid arguments: " and says where; fn is not called.
//
// fn's Out is the result: a string (or a value of another type whose kind is
// string and that has no JSON or text marshaler) as it is, a json.RawMessage
// as it is when it is valid JSON, anything else as JSON without HTML
// escaping. A result that cannot be encoded fails the call with code
// "tool_error", as does an error from fn, whose text the model reads.
func NewTyped[In, Out any](name, description string, fn func(ctx context.Context, in In, call CallContext) (Out, error), opts ...TypedOption) (RegisteredTool, error) {
	var cfg typedConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	var problems []error
	if fn == nil {
		problems = append(problems, problemf(ErrMissingHandler, "fn is nil"))
	}
	inType := reflect.TypeFor[In]()
	params, errs := inferParameters(inType, &cfg)
	problems = append(problems, errs...)
	problems = append(problems, checkResultType(reflect.TypeFor[Out]())...)
	if len(problems) > 0 {
		return RegisteredTool{}, &typedError{tool: name, problems: problems}
	}
	def := Definition{Type: "function", Function: Function{
		Name:        name,
		Strict:      cfg.strict,
		Description: description,
		Parameters:  params,
	}}
	valid, err := newValidator(def, true)
	if err != nil {
		return RegisteredTool{}, &typedError{tool: name, problems: []error{err}}
	}
	dec := &argDecoder{valid: valid, ptr: inType.Kind() == reflect.Pointer}
	handler := func(ctx context.Context, args map[string]any, call CallContext) (string, error) {
		var in In
		if err := dec.decode(args, &in); err != nil {
			return "", err
		}
		out, err := fn(ctx, in, call)
		if err != nil {
			return "", err
		}
		return encodeResult(out)
	}
	return RegisteredTool{Definition: def, Handler: handler, UseNumber: true}, nil
}

// typedError reports every problem of one NewTyped call.
type typedError struct {
	tool     string
	problems []error
}

func (e *typedError) Error() string {
	msgs := make([]string, len(e.problems))
	for i, p := range e.problems {
		msgs[i] = p.Error()
	}
	return fmt.Sprintf("toolreg: typed tool %q: %s", e.tool, strings.Join(msgs, "; "))
}

// Unwrap returns the problems, for errors.Is.
func (e *typedError) Unwrap() []error { return e.problems }

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
)

// knownSchemas are the types of the standard library that decode themselves
// from JSON, with the schema of what they accept.
func knownSchemas() map[reflect.Type]*jsonschema.Schema {
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Time]():   {Type: "string", Format: "date-time"},
		reflect.TypeFor[slog.Level]():  {Type: "string"},
		reflect.TypeFor[big.Int]():     {Type: "integer"}, // big.Int reads a JSON number
		reflect.TypeFor[json.Number](): {Type: "number"},
		rawMessageType:                 {}, // any JSON value
	}
}

// inference infers one In type: it checks the type, collects the schemas
// of special types for jsonschema.ForType, then adjusts what ForType built.
type inference struct {
	strict  bool
	schemas map[reflect.Type]*jsonschema.Schema // passed to ForType
	fixed   map[reflect.Type]bool               // schema given, not inferred: left as is
	onPath  map[reflect.Type]bool
	seen    map[reflect.Type]bool
	fields  map[reflect.Type][]jsonField
	errs    []error
}

func (inf *inference) problem(path, format string, args ...any) {
	where := "In"
	if path != "" {
		where = fmt.Sprintf("field %q", path)
	}
	inf.errs = append(inf.errs, problemf(ErrInvalidSchema, "%s: %s", where, fmt.Sprintf(format, args...)))
}

// inferParameters builds the schema of In and its wire form.
func inferParameters(t reflect.Type, cfg *typedConfig) (Parameters, []error) {
	inf := &inference{
		strict:  cfg.strict,
		schemas: knownSchemas(),
		fixed:   map[reflect.Type]bool{},
		onPath:  map[reflect.Type]bool{},
		seen:    map[reflect.Type]bool{},
		fields:  map[reflect.Type][]jsonField{},
	}
	for typ := range inf.schemas {
		inf.fixed[typ] = true
	}
	for _, typ := range sortedTypes(cfg.schemas) {
		s, err := schemaFromMap(cfg.schemas[typ])
		if err != nil {
			inf.errs = append(inf.errs, problemf(ErrInvalidSchema, "SchemaFor[%s]: %v", typ, err))
			continue
		}
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem() // the inference looks types up behind their pointers
		}
		inf.schemas[typ] = s
		inf.fixed[typ] = true
	}
	root := t
	if root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	if root.Kind() != reflect.Struct || inf.fixed[root] || decodesItself(root) {
		inf.errs = append(inf.errs, problemf(ErrInvalidSchema, "In is %s, want a struct (or a pointer to one) whose schema is inferred", t))
		return Parameters{}, inf.errs
	}
	inf.inspect(root, "")
	if len(inf.errs) > 0 {
		return Parameters{}, inf.errs
	}
	s, err := jsonschema.ForType(root, &jsonschema.ForOptions{TypeSchemas: inf.schemas})
	if err != nil {
		return Parameters{}, []error{problemf(ErrInvalidSchema, "In: %v", err)}
	}
	inf.adjust(root, s)
	if len(inf.errs) > 0 {
		return Parameters{}, inf.errs
	}
	p, err := parametersOf(s)
	if err != nil {
		return Parameters{}, []error{err}
	}
	return p, nil
}

// schemaFromMap converts a schema written as a map.
func schemaFromMap(m map[string]any) (*jsonschema.Schema, error) {
	if m == nil {
		return nil, errors.New("schema is nil")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func sortedTypes[V any](m map[reflect.Type]V) []reflect.Type {
	out := make([]reflect.Type, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b reflect.Type) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// decodesItself reports whether encoding/json decodes t through its own
// method rather than by its kind.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshalerType) || p.Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// inspect checks t for everything that JSON cannot decode or that the
// inference would describe differently from encoding/json, and registers a
// schema for types that decode themselves.
func (inf *inference) inspect(t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if inf.fixed[t] {
		if s := inf.schemas[t]; inf.strict && s.Type == "" && len(s.Types) == 0 && s.AnyOf == nil && s.OneOf == nil && s.Ref == "" {
			inf.problem(path, "a value of any type (%s) has no strict-mode schema; use a concrete type", t)
		}
		return
	}
	p := reflect.PointerTo(t)
	if t.Implements(jsonUnmarshalerType) || p.Implements(jsonUnmarshalerType) {
		inf.problem(path, "type %s decodes itself from JSON (UnmarshalJSON), so its schema cannot be inferred; give it with SchemaFor[%s]", t, t)
		return
	}
	if t.Implements(textUnmarshalerType) || p.Implements(textUnmarshalerType) {
		inf.schemas[t] = &jsonschema.Schema{Type: "string"}
		inf.fixed[t] = true
		return
	}
	if t.Name() != "" {
		if inf.onPath[t] {
			inf.problem(path, "type %s contains itself; recursive types have no finite schema", t)
			return
		}
		if inf.seen[t] {
			return // checked once, wherever it appears
		}
		inf.seen[t] = true
		inf.onPath[t] = true
		defer delete(inf.onPath, t)
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !decodesItself(t.Elem()) {
			inf.schemas[t] = &jsonschema.Schema{Types: []string{"null", "string"}} // encoding/json: base64
			inf.fixed[t] = true
			return
		}
		inf.inspect(t.Elem(), path+"[]")
	case reflect.Array:
		inf.inspect(t.Elem(), path+"[]")
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			inf.problem(path, "map key type %s is not a string; only maps with string keys have a schema", t.Key())
			return
		}
		if inf.strict {
			inf.problem(path, "a map (%s) has no strict-mode schema: strict mode needs fixed properties; use a slice of key/value structs", t)
			return
		}
		inf.inspect(t.Elem(), path+".*")
	case reflect.Interface:
		if t.NumMethod() > 0 {
			inf.problem(path, "interface type %s cannot be decoded from JSON", t)
		} else if inf.strict {
			inf.problem(path, "a value of any type has no strict-mode schema; use a concrete type")
		}
	case reflect.Struct:
		fields := inf.structFields(t, path)
		inf.fields[t] = fields
		for _, f := range fields {
			inf.inspect(f.typ, joinPath(path, f.name))
		}
	default: // chan, func, complex, unsafe pointer
		inf.problem(path, "type %s cannot be represented in JSON", t)
	}
}

// jsonField is one property of a struct: a field encoding/json decodes.
type jsonField struct {
	name      string
	typ       reflect.Type
	optional  bool  // omitempty or omitzero
	enum      []any // from the toolreg tag, nil if none
	sensitive bool
}

// structFields lists the fields of t that encoding/json decodes, reporting
// the ones that google/jsonschema-go would describe differently.
func (inf *inference) structFields(t reflect.Type, path string) []jsonField {
	var out []jsonField
	byName := map[string]string{}
	for _, f := range reflect.VisibleFields(t) {
		tag, hasTag := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch {
			case hasTag && tag == "-":
				inf.problem(path, "embedded field %s is tagged json:\"-\"; its fields would still be inferred: make it a named field", f.Name)
			case name != "":
				inf.problem(path, "embedded field %s has the JSON name %q; inference flattens embedded structs: drop the name or make it a named field", f.Name, name)
			case ft.Kind() != reflect.Struct && f.IsExported():
				inf.problem(path, "embedded field %s is not a struct; encoding/json reads it as a field named %q but inference skips it: make it a named field", f.Name, f.Name)
			case ft.Kind() == reflect.Struct && !f.IsExported() && f.Type.Kind() == reflect.Pointer:
				inf.problem(path, "embedded field %s is a pointer to an unexported struct, which encoding/json cannot allocate", f.Name)
			}
			continue
		}
		if !f.IsExported() || (hasTag && tag == "-") {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fieldPath := joinPath(path, name)
		if prev, dup := byName[name]; dup {
			inf.problem(path, "fields %s and %s both have the JSON name %q", prev, f.Name, name)
			continue
		}
		byName[name] = f.Name
		jf := jsonField{name: name, typ: f.Type}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty", "omitzero":
				jf.optional = true
			case "string":
				inf.problem(fieldPath, "the \",string\" option is not supported: give the field a string type")
			}
		}
		if spec, ok := f.Tag.Lookup("toolreg"); ok {
			inf.parseTag(fieldPath, f.Type, spec, &jf)
		}
		out = append(out, jf)
	}
	return out
}

// parseTag reads a toolreg struct tag: comma-separated directives
// "enum=v1|v2|..." and "sensitive".
func (inf *inference) parseTag(path string, t reflect.Type, spec string, jf *jsonField) {
	for d := range strings.SplitSeq(spec, ",") {
		d = strings.TrimSpace(d)
		key, val, hasVal := strings.Cut(d, "=")
		switch {
		case d == "sensitive":
			jf.sensitive = true
		case key == "enum" && hasVal:
			if jf.enum != nil {
				inf.problem(path, "toolreg tag has two enum directives")
				continue
			}
			jf.enum = inf.enumValues(path, t, val)
		default:
			inf.problem(path, "toolreg tag directive %q is unknown; want enum=a|b|... or sensitive", d)
		}
	}
}

// enumValues parses the values of an enum directive as t's scalar type (the
// item type for slices and arrays).
func (inf *inference) enumValues(path string, t reflect.Type, list string) []any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && !inf.fixed[t] {
		t = t.Elem()
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
	}
	if list == "" {
		inf.problem(path, "enum directive lists no value")
		return nil
	}
	textual := t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)
	if (inf.fixed[t] || decodesItself(t)) && !textual {
		inf.problem(path, "enum on type %s, whose schema is not inferred: put the enum in its schema (SchemaFor)", t)
		return nil
	}
	vals := strings.Split(list, "|")
	out := make([]any, 0, len(vals))
	for _, v := range vals {
		var (
			x   any
			err error
		)
		switch {
		case textual || t.Kind() == reflect.String:
			x = v
		case t.Kind() == reflect.Bool:
			x, err = strconv.ParseBool(v)
		case isInt(t.Kind()):
			x, err = strconv.ParseInt(v, 10, t.Bits())
		case isUint(t.Kind()):
			x, err = strconv.ParseUint(v, 10, t.Bits())
		case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
			var f float64
			f, err = strconv.ParseFloat(v, t.Bits())
			if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
				err = errors.New("not a finite number")
			}
			x = f
		default:
			inf.problem(path, "enum on a field of kind %s; enums apply to strings, numbers and booleans", t.Kind())
			return nil
		}
		if err != nil {
			if ne := (*strconv.NumError)(nil); errors.As(err, &ne) {
				err = ne.Err
			}
			inf.problem(path, "enum value %q is not a %s: %v", v, t, err)
			return nil
		}
		if slices.Contains(out, x) {
			inf.problem(path, "enum value %q is listed twice", v)
			return nil
		}
		out = append(out, x)
	}
	return out
}

// adjust applies the tags and, for strict tools, the strict-mode rules to
// the schema s that ForType inferred for t.
func (inf *inference) adjust(t reflect.Type, s *jsonschema.Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil || inf.fixed[t] {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		inf.adjust(t.Elem(), s.Items)
	case reflect.Map:
		inf.adjust(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
		fields := inf.fields[t]
		if inf.strict {
			s.Required = make([]string, 0, len(fields))
		}
		for _, f := range fields {
			prop := s.Properties[f.name]
			if prop == nil {
				continue
			}
			inf.adjust(f.typ, prop)
			if f.enum != nil {
				target := prop
				if (prop.Type == "array" || slices.Contains(prop.Types, "array")) && prop.Items != nil {
					target = prop.Items
				}
				target.Enum = slices.Clone(f.enum)
				if slices.Contains(target.Types, "null") {
					target.Enum = append(target.Enum, nil)
				}
			}
			if f.sensitive {
				if prop.Extra == nil {
					prop.Extra = map[string]any{}
				}
				prop.Extra["x-sensitive"] = true
			}
			if inf.strict {
				if f.optional {
					nullable(prop)
				}
				s.Required = append(s.Required, f.name)
			}
		}
	}
}

// nullable makes s accept null too.
func nullable(s *jsonschema.Schema) {
	switch {
	case s.Type != "":
		s.Types = []string{"null", s.Type}
		s.Type = ""
	case len(s.Types) > 0 && !slices.Contains(s.Types, "null"):
		s.Types = append([]string{"null"}, s.Types...)
	}
	if s.Enum != nil && !slices.Contains(s.Enum, nil) {
		s.Enum = append(s.Enum, nil)
	}
}

// parametersOf converts an inferred object schema to its wire form.
func parametersOf(s *jsonschema.Schema) (Parameters, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return Parameters{}, problemf(ErrInvalidSchema, "inferred schema cannot be encoded: %v", err)
	}
	var w struct {
		Properties           map[string]any `json:"properties"`
		Required             []string       `json:"required"`
		AdditionalProperties *bool          `json:"additionalProperties"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // enum values and bounds stay exact
	if err := dec.Decode(&w); err != nil {
		return Parameters{}, problemf(ErrInvalidSchema, "inferred schema: %v", err)
	}
	if w.Properties == nil {
		w.Properties = map[string]any{}
	}
	openSchemas(w.Properties)
	return Parameters{
		Type:                 "object",
		Properties:           w.Properties,
		Required:             w.Required,
		AdditionalProperties: w.AdditionalProperties,
	}, nil
}

// openSchemas writes the schema that admits any value as {} rather than
// true, in properties and items: some providers accept only object schemas
// there.
func openSchemas(props map[string]any) {
	for k, v := range props {
		if b, ok := v.(bool); ok && b {
			props[k] = map[string]any{}
			continue
		}
		for s, ok := v.(map[string]any); ok; s, ok = s["items"].(map[string]any) {
			if sub, ok := s["properties"].(map[string]any); ok {
				openSchemas(sub)
			}
			if sub, ok := s["additionalProperties"].(map[string]any); ok {
				openSchemas(map[string]any{"": sub})
			}
			if b, ok := s["items"].(bool); ok && b {
				s["items"] = map[string]any{}
			}
		}
	}
}

// checkResultType reports what in t JSON cannot encode. Interfaces are
// checked at each call, by their values.
func checkResultType(t reflect.Type) []error {
	var errs []error
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if seen[t] {
			return
		}
		seen[t] = true
		if t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) ||
			t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
			return
		}
		switch t.Kind() {
		case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
			where := "Out"
			if path != "" {
				where = fmt.Sprintf("Out field %q", path)
			}
			errs = append(errs, problemf(ErrInvalidSchema, "%s: type %s cannot be encoded as JSON", where, t))
		case reflect.Slice, reflect.Array:
			walk(t.Elem(), path+"[]")
		case reflect.Map:
			walk(t.Elem(), path+".*")
		case reflect.Struct:
			for _, f := range reflect.VisibleFields(t) {
				tag := f.Tag.Get("json")
				name, _, _ := strings.Cut(tag, ",")
				if f.Anonymous || !f.IsExported() || tag == "-" {
					continue
				}
				if name == "" {
					name = f.Name
				}
				walk(f.Type, joinPath(path, name))
			}
		}
	}
	walk(t, "")
	return errs
}

// argDecoder validates and decodes the arguments of one typed tool. It is
// immutable and used concurrently.
type argDecoder struct {
	valid validator // the full JSON Schema, compiled once
	ptr   bool      // In is a pointer to the struct
}

// errInvalidArguments prefixes every argument problem of a typed tool.
const invalidArgumentsPrefix = "invalid arguments: "

// decode fills *dst (an In) from args.
func (d *argDecoder) decode(args map[string]any, dst any) error {
	raw, err := encodeArguments(args)
	if err != nil {
		return errors.New(invalidArgumentsPrefix + "cannot be encoded as JSON: " + trimJSONPrefix(err.Error()))
	}
	raw, msg := d.check(raw)
	if msg != "" {
		return errors.New(invalidArgumentsPrefix + msg)
	}
	target := reflect.ValueOf(dst).Elem() // the In
	if d.ptr {
		target.Set(reflect.New(target.Type().Elem()))
		target = target.Elem()
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(target.Addr().Interface()); err != nil {
		return errors.New(invalidArgumentsPrefix + decodeMessage(err))
	}
	return nil
}

// encodeArguments encodes args as one JSON object. Values from Go callers
// may be of any type, including ones whose MarshalJSON panics.
func encodeArguments(args map[string]any) (raw []byte, err error) {
	if len(args) == 0 {
		return []byte("{}"), nil
	}
	defer func() {
		if v := recover(); v != nil {
			raw, err = nil, fmt.Errorf("a value panicked while being encoded")
		}
	}()
	return json.Marshal(args)
}

// check validates raw against the schema, with numbers as json.Number so
// that they are compared exactly. Integers written with a fraction or an
// exponent (5.0, 1e3) are rewritten as plain integers, which encoding/json
// decodes into integer fields; check then returns the rewritten arguments.
func (d *argDecoder) check(raw []byte) ([]byte, string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, cut(trimJSONPrefix(err.Error()), maxDecodeMessage)
	}
	if msg := d.valid.check(doc, argScan{native: true}); msg != "" {
		return nil, msg
	}
	if plainIntegers(doc) {
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, trimJSONPrefix(err.Error())
		}
		raw = b
	}
	return raw, ""
}

// plainIntegers rewrites, in place, each json.Number in v that holds an
// integer in another notation, and reports whether it rewrote any.
func plainIntegers(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if n, ok := e.(json.Number); ok {
				if p, ok := plainInteger(n); ok {
					v[k], changed = p, true
				}
				continue
			}
			changed = plainIntegers(e) || changed
		}
	case []any:
		for i, e := range v {
			if n, ok := e.(json.Number); ok {
				if p, ok := plainInteger(n); ok {
					v[i], changed = p, true
				}
				continue
			}
			changed = plainIntegers(e) || changed
		}
	}
	return changed
}

// Bounds of the numbers plainInteger rewrites. No Go integer holds more
// than 20 digits, so a larger exponent cannot make a value an integer field
// accepts, and leaving it as written keeps the cost per number small.
const (
	maxNumberText = 64
	maxExponent   = 20
)

// plainInteger returns n as a plain integer when n is one written with a
// fraction or an exponent.
func plainInteger(n json.Number) (json.Number, bool) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") || len(s) > maxNumberText {
		return "", false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(s[i+1:])
		if err != nil || exp > maxExponent || exp < -maxExponent {
			return "", false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() {
		return "", false
	}
	return json.Number(r.Num().String()), true
}

func trimJSONPrefix(s string) string { return strings.TrimPrefix(s, "json: ") }

// maxDecodeMessage bounds a decoding message: a type's own UnmarshalText
// or UnmarshalJSON may quote the whole value.
const maxDecodeMessage = 2 * maxQuoted

// decodeMessage renders an error of json.Decoder.Decode for the model. Like
// the registry's schema messages it does not quote the failing value.
func decodeMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		where := te.Field
		if where == "" {
			where = "arguments"
		}
		kind, _, _ := strings.Cut(te.Value, " ")
		if kind == "number" {
			return fmt.Sprintf("%s: the number does not fit %s", cut(where, maxQuoted), te.Type)
		}
		return fmt.Sprintf("%s: cannot use a JSON %s as %s", cut(where, maxQuoted), kind, te.Type)
	}
	if errors.Is(err, io.EOF) {
		return "no arguments"
	}
	msg := trimJSONPrefix(err.Error())
	if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return "unknown argument " + cut(f, maxQuoted)
	}
	if len(msg) > maxDecodeMessage {
		msg = cut(msg, maxDecodeMessage) + "…"
	}
	return msg
}

// encodeResult renders fn's result for the model.
func encodeResult(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.RawMessage:
		if !json.Valid(v) {
			return "", errors.New("the tool's result is not valid JSON")
		}
		return string(v), nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		t := rv.Type()
		if !t.Implements(jsonMarshalerType) && !t.Implements(textMarshalerType) {
			return rv.String(), nil
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the model reads the result: keep <, > and & as they are
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("the tool's result cannot be encoded as JSON: %s", trimJSONPrefix(err.Error()))
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

func isInt(k reflect.Kind) bool {
	return k == reflect.Int || k == reflect.Int8 || k == reflect.Int16 || k == reflect.Int32 || k == reflect.Int64
}

func isUint(k reflect.Kind) bool {
	return k == reflect.Uint || k == reflect.Uint8 || k == reflect.Uint16 || k == reflect.Uint32 || k == reflect.Uint64 || k == reflect.Uintptr
}
