package toolreg

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// validator checks one tool's arguments. It is built once, at registration,
// and read concurrently afterwards.
type validator struct {
	properties map[string]any     // the declared arguments
	required   []string           // in declared order
	closed     bool               // additionalProperties is false
	supported  string             // "a, b, c": sorted names, for messages
	schema     *jsonschema.Schema // non-nil: full JSON Schema validation
}

// check returns what is wrong with args, every violation at once, or "" when
// they are valid. nil args are {}.
func (v *validator) check(args map[string]any) string {
	if v.schema != nil {
		return v.checkSchema(args)
	}
	var msgs []string
	for _, k := range v.required {
		if _, ok := args[k]; !ok {
			msgs = append(msgs, fmt.Sprintf("missing required argument %q", k))
		}
	}
	// With every required key present, arguments that number exactly the
	// required keys can hold no unknown one: skip the walk over args.
	if v.closed && len(args) > 0 && (msgs != nil || len(args) != len(v.required)) {
		msgs = v.checkUnknown(args, msgs)
	}
	return strings.Join(msgs, "; ")
}

func (v *validator) checkUnknown(args map[string]any, msgs []string) []string {
	var unknown []string
	for k := range args {
		if _, ok := v.properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return msgs
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		msgs = append(msgs, fmt.Sprintf("unknown argument %q", k))
	}
	return append(msgs, v.supportedText())
}

var schemaPrinter = message.NewPrinter(language.English)

func (v *validator) checkSchema(args map[string]any) string {
	var doc any = args
	if args == nil {
		doc = map[string]any{}
	} else if !isJSONNative(args) {
		// Go callers may pass []string, ints or structs; the validator
		// understands only what encoding/json produces.
		norm, err := roundTrip(args)
		if err != nil {
			return "arguments cannot be encoded as JSON: " + err.Error()
		}
		doc = norm
	}
	err := v.schema.Validate(doc)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []schemaLeaf
	collectLeaves(ve, &leaves)
	msgs := make([]string, 0, len(leaves)+1)
	unknownAtRoot := false
	for _, l := range sortedLeaves(leaves) {
		msg := l.msg
		if l.path != "" {
			msg = l.path + ": " + msg
		}
		msgs = append(msgs, msg)
		unknownAtRoot = unknownAtRoot || l.unknownAtRoot
	}
	if unknownAtRoot {
		msgs = append(msgs, v.supportedText())
	}
	return strings.Join(msgs, "; ")
}

// schemaLeaf is one violation: where, and what was expected.
type schemaLeaf struct {
	path          string
	msg           string
	unknownAtRoot bool // an argument outside the top-level properties
}

// collectLeaves gathers the leaf causes: the leaves say what was expected,
// the inner nodes only which keyword failed.
func collectLeaves(ve *jsonschema.ValidationError, leaves *[]schemaLeaf) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collectLeaves(c, leaves)
		}
		return
	}
	_, extra := ve.ErrorKind.(*kind.AdditionalProperties)
	*leaves = append(*leaves, schemaLeaf{
		path:          argPath(ve.InstanceLocation),
		msg:           ve.ErrorKind.LocalizedString(schemaPrinter),
		unknownAtRoot: extra && len(ve.InstanceLocation) == 0,
	})
}

// sortedLeaves orders leaves by path and message and drops repeats: the
// validator walks maps, so its own order varies between calls.
func sortedLeaves(leaves []schemaLeaf) []schemaLeaf {
	slices.SortFunc(leaves, func(a, b schemaLeaf) int {
		return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.msg, b.msg))
	})
	return slices.CompactFunc(leaves, func(a, b schemaLeaf) bool { return a == b })
}

// supportedText tells the model which arguments exist.
func (v *validator) supportedText() string {
	if v.supported == "" {
		return "this tool takes no arguments"
	}
	return "supported arguments: " + v.supported
}

// argPath renders an instance location as a.b[0].c; the root is "".
func argPath(loc []string) string {
	var sb strings.Builder
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil {
			sb.WriteString("[" + tok + "]")
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(tok)
	}
	return sb.String()
}

// isJSONNative reports whether v holds only what encoding/json decodes into.
func isJSONNative(v any) bool {
	switch v := v.(type) {
	case nil, bool, float64, string, json.Number:
		return true
	case map[string]any:
		for _, e := range v {
			if !isJSONNative(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !isJSONNative(e) {
				return false
			}
		}
		return true
	}
	return false
}

func roundTrip(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// validName reports whether s matches ^[a-zA-Z0-9_-]{1,64}$.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// checkDefinition reports every problem of a definition's shape: the name,
// the fixed type strings, the property schemas and the required keys.
func checkDefinition(d Definition) []error {
	var errs []error
	if !validName(d.Function.Name) {
		errs = append(errs, problemf(ErrInvalidName, "name %q does not match ^[a-zA-Z0-9_-]{1,64}$", d.Function.Name))
	}
	if d.Type != "" && d.Type != "function" {
		errs = append(errs, problemf(ErrInvalidSchema, "type is %q, want \"function\"", d.Type))
	}
	p := d.Function.Parameters
	if p.Type != "" && p.Type != "object" {
		errs = append(errs, problemf(ErrInvalidSchema, "parameters.type is %q, want \"object\"", p.Type))
	}
	for _, k := range sortedKeys(p.Properties) {
		switch p.Properties[k].(type) {
		case map[string]any, bool:
		default:
			errs = append(errs, problemf(ErrInvalidSchema, "parameters.properties.%s is a %T, want a JSON Schema object", k, p.Properties[k]))
		}
	}
	for _, k := range p.Required {
		if _, ok := p.Properties[k]; !ok {
			errs = append(errs, problemf(ErrInvalidSchema, "parameters.required names %q, which is not in properties", k))
		}
	}
	if d.Function.Strict {
		errs = append(errs, checkStrict(p)...)
	}
	return errs
}

// checkStrict applies the OpenAI strict-mode rules: at every object level,
// additionalProperties is false and every property is required.
func checkStrict(p Parameters) []error {
	var errs []error
	if p.AdditionalProperties == nil || *p.AdditionalProperties {
		errs = append(errs, problemf(ErrInvalidSchema, "strict: parameters.additionalProperties must be false"))
	}
	errs = append(errs, strictRequired("parameters", p.Properties, p.Required)...)
	for _, k := range sortedKeys(p.Properties) {
		errs = append(errs, strictSchema("parameters.properties."+k, p.Properties[k])...)
	}
	for _, k := range sortedKeys(p.Defs) {
		errs = append(errs, strictSchema("parameters.$defs."+k, p.Defs[k])...)
	}
	return errs
}

func strictRequired(path string, props map[string]any, required []string) []error {
	var errs []error
	for _, k := range sortedKeys(props) {
		if !slices.Contains(required, k) {
			errs = append(errs, problemf(ErrInvalidSchema, "strict: %s.required must list %q (make it nullable to keep it optional)", path, k))
		}
	}
	return errs
}

// strictSchema walks one subschema and the schemas nested in it.
func strictSchema(path string, v any) []error {
	s, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var errs []error
	props, hasProps := s["properties"].(map[string]any)
	if hasProps || hasType(s, "object") {
		if ap, ok := s["additionalProperties"].(bool); !ok || ap {
			errs = append(errs, problemf(ErrInvalidSchema, "strict: %s.additionalProperties must be false", path))
		}
		errs = append(errs, strictRequired(path, props, stringList(s["required"]))...)
	}
	for _, k := range sortedKeys(props) {
		errs = append(errs, strictSchema(path+".properties."+k, props[k])...)
	}
	errs = append(errs, strictSchema(path+".items", s["items"])...)
	for _, kw := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		list, _ := s[kw].([]any)
		for i, sub := range list {
			errs = append(errs, strictSchema(fmt.Sprintf("%s.%s[%d]", path, kw, i), sub)...)
		}
	}
	for _, kw := range []string{"$defs", "definitions"} {
		defs, _ := s[kw].(map[string]any)
		for _, k := range sortedKeys(defs) {
			errs = append(errs, strictSchema(path+"."+kw+"."+k, defs[k])...)
		}
	}
	return errs
}

func hasType(s map[string]any, want string) bool {
	switch t := s["type"].(type) {
	case string:
		return t == want
	case []any:
		return slices.Contains(t, any(want))
	case []string:
		return slices.Contains(t, want)
	}
	return false
}

func stringList(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// noLoader refuses every remote reference: a tool schema must be
// self-contained, and registering one must never touch the network or disk.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema reference %q is not resolvable: only references inside the tool's own schema are allowed", url)
}

// compileSchema compiles a tool's parameter schema once, at registration.
func compileSchema(p Parameters) (*jsonschema.Schema, error) {
	doc, err := roundTrip(p)
	if err != nil {
		return nil, problemf(ErrInvalidSchema, "parameters cannot be encoded as JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const url = "mem:///parameters.json" // one compiler per tool: no clash
	if err := c.AddResource(url, doc); err != nil {
		return nil, problemf(ErrInvalidSchema, "parameters: %v", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, problemf(ErrInvalidSchema, "parameters do not compile as JSON Schema: %s", compileMessage(err))
	}
	return sch, nil
}

// compileMessage renders a compile error on one line; a schema that breaks
// the meta-schema is reported leaf by leaf, with its location in parameters.
func compileMessage(err error) string {
	var se *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &se) || !errors.As(se.Err, &ve) {
		return strings.Join(strings.Fields(err.Error()), " ")
	}
	var leaves []schemaLeaf
	collectLeaves(ve, &leaves)
	msgs := make([]string, 0, len(leaves))
	for _, l := range sortedLeaves(leaves) {
		at := "parameters"
		if l.path != "" {
			at += "." + l.path
		}
		msgs = append(msgs, at+": "+l.msg)
	}
	return strings.Join(msgs, "; ")
}

// newValidator builds the argument checker of a normalized definition.
func newValidator(d Definition, full bool) (validator, error) {
	p := d.Function.Parameters
	v := validator{
		properties: p.Properties,
		required:   appendNew(nil, p.Required...), // no repeats: check counts them
		closed:     p.AdditionalProperties != nil && !*p.AdditionalProperties,
		supported:  strings.Join(sortedKeys(p.Properties), ", "),
	}
	if full || d.Function.Strict {
		sch, err := compileSchema(p)
		if err != nil {
			return validator{}, err
		}
		v.schema = sch
	}
	return v, nil
}
