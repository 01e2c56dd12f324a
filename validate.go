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
// holds only what it needs (never the definition's schema maps, which a
// caller may reach through a listing), and is read concurrently afterwards.
type validator struct {
	props      map[string]bool    // declared argument -> required
	names      []string           // the declared arguments, for cheap iteration
	isRequired []bool             // per name
	required   []string           // in declared order, without repeats
	closed     bool               // additionalProperties is false
	supported  string             // "a, b, c": sorted names, for messages
	schema     *jsonschema.Schema // non-nil: full JSON Schema validation
	fast       *fastSchema        // with schema: accepts what it can prove valid, quickly
}

// argScan is what one pass over the arguments learned: their shape, and how
// they stand to the declared properties.
type argScan struct {
	native  bool // only what encoding/json decodes into
	numbers bool // a json.Number among them
	present int  // declared properties present
	missing bool // a required property is absent
}

// scan walks args once, bounded (see checkArgs), and counts the declared
// properties they hold. Where the declared properties are few, it looks
// each up in args and walks only the rest, if any: arguments that hold
// declared keys only are scanned without iterating the map.
func (v *validator) scan(args map[string]any) (argScan, error) {
	w := argWalker{shape: argShape{native: true}}
	sc := argScan{}
	if len(v.names) <= 2*len(args)+4 {
		for i, k := range v.names {
			val, ok := args[k]
			if !ok {
				sc.missing = sc.missing || v.isRequired[i]
				continue
			}
			sc.present++
			if scalar(val) {
				continue
			}
			if err := w.walk(val, 2); err != nil {
				return sc, err.at(k).render()
			}
		}
		if sc.present < len(args) {
			for k, val := range args {
				if _, declared := v.props[k]; !declared {
					if err := w.walk(val, 2); err != nil {
						return sc, err.at(k).render()
					}
				}
			}
		}
	} else {
		required := 0
		for k, val := range args {
			if req, declared := v.props[k]; declared {
				sc.present++
				if req {
					required++
				}
			}
			if err := w.walk(val, 2); err != nil {
				return sc, err.at(k).render()
			}
		}
		sc.missing = required < len(v.required)
	}
	sc.native, sc.numbers = w.shape.native, w.shape.numbers
	return sc, nil
}

// scalar reports whether v is a string, a boolean, null or a finite float64:
// a value the argument walk has nothing to check in, decided without a call.
func scalar(v any) bool {
	switch v := v.(type) {
	case string, bool, nil:
		return true
	case float64:
		return v-v == 0 // false for NaN and the infinities
	}
	return false
}

// check returns what is wrong with args, a few violations at once, or ""
// when they are valid; sc is their scan. nil args are {}.
func (v *validator) check(args map[string]any, sc argScan) string {
	if v.schema != nil {
		if v.fast != nil && sc.native && !sc.numbers && v.fast.valid(args) {
			return ""
		}
		return v.checkSchema(args, sc.native)
	}
	if !sc.missing && (!v.closed || sc.present == len(args)) {
		return ""
	}
	var msgs []string
	if sc.missing {
		for _, k := range v.required {
			if _, ok := args[k]; !ok {
				msgs = append(msgs, fmt.Sprintf("missing required argument %s", quote(k)))
			}
		}
	}
	if v.closed && sc.present < len(args) {
		msgs = v.listUnknown(args, msgs)
	}
	return joinBounded(msgs)
}

func (v *validator) listUnknown(args map[string]any, msgs []string) []string {
	var unknown []string
	for k := range args {
		if _, ok := v.props[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for i, k := range unknown {
		if i == maxListed {
			msgs = append(msgs, fmt.Sprintf("and %d more unknown arguments", len(unknown)-i))
			break
		}
		msgs = append(msgs, "unknown argument "+quote(k))
	}
	return append(msgs, v.supportedText())
}

var schemaPrinter = message.NewPrinter(language.English)

func (v *validator) checkSchema(args map[string]any, native bool) string {
	var doc any = args
	if args == nil {
		doc = map[string]any{}
	} else if !native {
		// Go callers may pass []string, ints or structs; the validator
		// understands only what encoding/json produces.
		norm, err := toNative(args)
		if err != nil {
			return "arguments cannot be encoded as JSON: " + cut(err.Error(), maxQuoted)
		}
		doc = norm
	}
	err := v.schema.Validate(doc)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return cut(err.Error(), maxQuoted)
	}
	var leaves []schemaLeaf
	collectLeaves(ve, &leaves)
	msgs := make([]string, 0, min(len(leaves), maxListed)+2)
	unknownAtRoot := false
	for _, l := range sortedLeaves(leaves) {
		msg := l.msg
		if l.path != "" {
			msg = cut(l.path, maxPath) + ": " + msg
		}
		msgs = append(msgs, msg)
		unknownAtRoot = unknownAtRoot || l.unknownAtRoot
	}
	out := joinBounded(msgs)
	if unknownAtRoot {
		out += "; " + v.supportedText()
	}
	return out
}

// maxPath bounds an argument path in a message.
const maxPath = 128

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
		msg:           kindMessage(ve.ErrorKind),
		unknownAtRoot: extra && len(ve.InstanceLocation) == 0,
	})
}

// kindMessage says what was expected without quoting the value that failed:
// the value may be a secret, and may be huge.
func kindMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Pattern:
		return "does not match the pattern " + quote(k.Want)
	case *kind.Format:
		return "is not a valid " + quote(k.Want)
	case *kind.Minimum:
		return "must be at least " + ratText(k.Want)
	case *kind.Maximum:
		return "must be at most " + ratText(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be greater than " + ratText(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be less than " + ratText(k.Want)
	case *kind.MultipleOf:
		return "must be a multiple of " + ratText(k.Want)
	case *kind.PropertyNames:
		return "invalid property name " + quote(k.Property)
	case *kind.AdditionalProperties:
		return "unknown arguments " + quoteList(k.Properties)
	case *kind.Required:
		return "missing required " + quoteList(k.Missing)
	case *kind.ContentEncoding, *kind.ContentMediaType:
		return "has the wrong content encoding or media type"
	}
	return cut(k.LocalizedString(schemaPrinter), 2*maxQuoted)
}

func ratText(r interface{ FloatString(int) string }) string {
	if isNilValue(r) {
		return "?"
	}
	s := strings.TrimRight(strings.TrimRight(r.FloatString(6), "0"), ".")
	return cut(s, maxQuoted)
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

// checkHeader reports what is wrong with a definition's name and fixed type
// strings; it reads no schema.
func checkHeader(d Definition) []error {
	var errs []error
	if !validName(d.Function.Name) {
		errs = append(errs, problemf(ErrInvalidName, "name %s does not match ^[a-zA-Z0-9_-]{1,64}$", quote(d.Function.Name)))
	}
	if d.Type != "" && d.Type != "function" {
		errs = append(errs, problemf(ErrInvalidSchema, "type is %s, want \"function\"", quote(d.Type)))
	}
	if p := d.Function.Parameters; p.Type != "" && p.Type != "object" {
		errs = append(errs, problemf(ErrInvalidSchema, "parameters.type is %s, want \"object\"", quote(p.Type)))
	}
	return errs
}

// checkSchemaRules reports every problem of a normalized schema: property
// schemas that are not schemas, required keys that are not properties, and
// for Strict tools the strict-mode rules.
func checkSchemaRules(d Definition) []error {
	var errs []error
	p := d.Function.Parameters
	for _, k := range sortedKeys(p.Properties) {
		switch p.Properties[k].(type) {
		case map[string]any, bool:
		default:
			errs = append(errs, problemf(ErrInvalidSchema, "parameters.properties.%s is a %s, want a JSON Schema object", cut(k, maxQuoted), jsonKind(p.Properties[k])))
		}
	}
	for _, k := range p.Required {
		if _, ok := p.Properties[k]; !ok {
			errs = append(errs, problemf(ErrInvalidSchema, "parameters.required names %s, which is not in properties", quote(k)))
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
		props:    make(map[string]bool, len(p.Properties)),
		required: appendNew(nil, p.Required...), // no repeats: check counts them
		closed:   p.AdditionalProperties != nil && !*p.AdditionalProperties,
	}
	v.names = packed(sortedKeys(p.Properties))
	v.supported = supportedList(v.names)
	v.isRequired = make([]bool, len(v.names))
	for i, k := range v.names {
		v.props[k] = slices.Contains(v.required, k)
		v.isRequired[i] = v.props[k]
	}
	if full || d.Function.Strict {
		sch, err := compileSchema(p)
		if err != nil {
			return validator{}, err
		}
		v.schema = sch
		v.fast = newFastSchema(p)
	}
	return v, nil
}

// packed returns names with their bytes in one block, so that looking them
// all up touches a cache line or two rather than one per name.
func packed(names []string) []string {
	block := strings.Join(names, "")
	out := make([]string, len(names))
	off := 0
	for i, n := range names {
		out[i] = block[off : off+len(n)]
		off += len(n)
	}
	return out
}

// supportedList renders the argument names for messages, at most maxListed.
func supportedList(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:maxListed], ", ") + fmt.Sprintf(", and %d more", len(names)-maxListed)
}
