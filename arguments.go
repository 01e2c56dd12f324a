package toolreg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Bounds of the arguments of one call. They keep every walk over arguments
// (validation, redaction, digests) cheap and free of stack overflows,
// whatever a model or a Go caller passes.
const (
	// MaxArgumentDepth is how deeply arguments may nest: an object or array
	// inside the arguments object is level 2. Deeper arguments, and Go
	// values that contain themselves, are refused as "invalid_arguments".
	MaxArgumentDepth = 64
	// MaxArgumentValues is how many values (objects, arrays and scalars) the
	// arguments of one call may hold.
	MaxArgumentValues = 1 << 20
	// DefaultMaxArgumentBytes is the default bound on the raw arguments
	// string of [Registry.ExecuteJSON]; see [WithMaxArgumentBytes].
	DefaultMaxArgumentBytes = 4 << 20
)

// parseArguments decodes the model's arguments strictly: "" means {},
// anything else must be one JSON object. Numbers are float64 unless
// useNumber asks for json.Number; then they keep their text exactly. As
// float64, an integer that float64 cannot hold exactly is refused rather
// than silently rounded.
func parseArguments(s string, useNumber bool) (map[string]any, error) {
	trimmed := strings.TrimSpace(s)
	if trimmed == "" {
		return map[string]any{}, nil
	}
	if trimmed[0] != '{' {
		var v any
		if err := json.Unmarshal([]byte(trimmed), &v); err != nil {
			return nil, describeSyntax(err)
		}
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", jsonKind(v))
	}
	exact := !useNumber && hasLongDigitRun(trimmed)
	if !useNumber && !exact {
		var m map[string]any
		if err := json.Unmarshal([]byte(trimmed), &m); err != nil {
			return nil, describeSyntax(err)
		}
		return m, nil
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, describeSyntax(err)
	}
	if dec.More() || dec.InputOffset() != int64(len(trimmed)) {
		if _, err := dec.Token(); err != nil || dec.More() {
			return nil, fmt.Errorf("arguments are not valid JSON: text after the object at byte offset %d", dec.InputOffset())
		}
	}
	if exact {
		if err := toFloats(m, ""); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// hasLongDigitRun reports whether s holds 16 or more digits in a row: every
// integer of 15 digits or fewer fits a float64 exactly, so only then can a
// number lose precision.
func hasLongDigitRun(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; '0' <= c && c <= '9' {
			if run++; run >= 16 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// toFloats replaces the json.Numbers in v with float64, refusing an integer
// that float64 would round.
func toFloats(v any, path string) error {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if n, ok := e.(json.Number); ok {
				f, err := exactFloat(n, joinPath(path, k))
				if err != nil {
					return err
				}
				v[k] = f
			} else if err := toFloats(e, joinPath(path, k)); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			p := path + index(i)
			if n, ok := e.(json.Number); ok {
				f, err := exactFloat(n, p)
				if err != nil {
					return err
				}
				v[i] = f
			} else if err := toFloats(e, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// joinPath appends a property name to a dotted argument path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// exactFloat converts n, refusing an integer literal that float64 cannot
// hold exactly.
func exactFloat(n json.Number, path string) (float64, error) {
	lit := string(n)
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("argument %s: %s is not a number", quote(path), quote(lit))
	}
	if strings.ContainsAny(lit, ".eE") {
		return f, nil // a decimal: rounding is what the writer expects
	}
	if err != nil || strconv.FormatFloat(f, 'f', -1, 64) != lit {
		return 0, fmt.Errorf("argument %s: the integer %s cannot be represented exactly; pass it as a string", quote(path), quote(lit))
	}
	return f, nil
}

func describeSyntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("arguments are not valid JSON: %s at byte offset %d", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("arguments must be a JSON object, got %s", te.Value)
	}
	return fmt.Errorf("arguments are not valid JSON: %s", cut(err.Error(), maxQuoted))
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// argShape is what checkArgs learns about arguments beyond their validity.
type argShape struct {
	native  bool // only what encoding/json decodes into: no reflection needed
	numbers bool // a json.Number among them
}

// checkArgs walks args once, bounded, and refuses what no later step could
// handle: nesting deeper than MaxArgumentDepth (a value that contains itself
// never ends), more than MaxArgumentValues values, NaN or an infinity (JSON
// has no such number), and values with no JSON form (channels, funcs, maps
// with non-string keys). It allocates nothing for valid arguments.
func checkArgs(args map[string]any) (argShape, error) {
	w := argWalker{shape: argShape{native: true}}
	for k, v := range args {
		if err := w.walk(v, 2); err != nil {
			return w.shape, err.at(k).render()
		}
	}
	return w.shape, nil
}

type argWalker struct {
	shape argShape
	count int
}

// argError is a problem found deep in the arguments. Its path is collected
// on the way out, innermost first, so the walk builds no path while the
// arguments are valid.
type argError struct {
	rev []string // path segments, innermost first
	msg string
}

func (e *argError) at(seg string) *argError { e.rev = append(e.rev, seg); return e }

func (e *argError) render() error {
	var sb strings.Builder
	for i := len(e.rev) - 1; i >= 0; i-- {
		seg := e.rev[i]
		if seg[0] != '[' && sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(seg)
	}
	if sb.Len() == 0 {
		return errors.New(e.msg)
	}
	return fmt.Errorf("argument %s: %s", quote(sb.String()), e.msg)
}

func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

var (
	errTooDeep = "nested deeper than " + strconv.Itoa(MaxArgumentDepth) + " levels (or contains itself)"
	errTooMany = "the arguments hold more than " + strconv.Itoa(MaxArgumentValues) + " values"
)

func (w *argWalker) walk(v any, depth int) *argError {
	if w.count++; w.count > MaxArgumentValues {
		return &argError{msg: errTooMany}
	}
	if depth > MaxArgumentDepth {
		return &argError{msg: errTooDeep}
	}
	switch v := v.(type) {
	case nil, bool, string:
		return nil
	case json.Number:
		w.shape.numbers = true
		if !validNumber(string(v)) {
			return &argError{msg: quote(string(v)) + " is not a valid JSON number"}
		}
		return nil
	case float64:
		return checkFloat(v)
	case map[string]any:
		for k, e := range v {
			if err := w.walk(e, depth+1); err != nil {
				return err.at(k)
			}
		}
		return nil
	case []any:
		for i, e := range v {
			if err := w.walk(e, depth+1); err != nil {
				return err.at(index(i))
			}
		}
		return nil
	}
	w.shape.native = false
	w.count--
	return w.walkReflect(reflect.ValueOf(v), depth)
}

// walkReflect checks a Go-typed value (ints, []string, structs, pointers).
func (w *argWalker) walkReflect(v reflect.Value, depth int) *argError {
	if w.count++; w.count > MaxArgumentValues {
		return &argError{msg: errTooMany}
	}
	if depth > MaxArgumentDepth {
		return &argError{msg: errTooDeep}
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return checkFloat(v.Float())
	case reflect.String:
		if v.Type() == numberType && !validNumber(v.String()) {
			return &argError{msg: quote(v.String()) + " is not a valid JSON number"}
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return w.walkReflect(v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // []byte encodes as a string
		}
		for i := range v.Len() {
			if err := w.walkReflect(v.Index(i), depth+1); err != nil {
				return err.at(index(i))
			}
		}
	case reflect.Map:
		if k := v.Type().Key().Kind(); k != reflect.String && !isIntKind(k) {
			return &argError{msg: "a map with " + v.Type().Key().String() + " keys has no JSON form"}
		}
		it := v.MapRange()
		for it.Next() {
			if err := w.walkReflect(it.Value(), depth+1); err != nil {
				return err.at(keyText(it.Key()))
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				if err := w.walkReflect(v.Field(i), depth+1); err != nil {
					return err.at(t.Field(i).Name)
				}
			}
		}
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return &argError{msg: "a " + v.Kind().String() + " has no JSON form"}
	}
	return nil
}

// keyText renders a string or integer map key without calling its methods.
func keyText(k reflect.Value) string {
	switch {
	case k.Kind() == reflect.String:
		return k.String()
	case k.CanInt():
		return strconv.FormatInt(k.Int(), 10)
	case k.CanUint():
		return strconv.FormatUint(k.Uint(), 10)
	}
	return "?"
}

var numberType = reflect.TypeFor[json.Number]()

func isIntKind(k reflect.Kind) bool {
	return reflect.Int <= k && k <= reflect.Uintptr
}

func checkFloat(f float64) *argError {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return &argError{msg: strconv.FormatFloat(f, 'g', -1, 64) + " is not a JSON number"}
	}
	return nil
}

// toNative returns v as encoding/json would decode it (map[string]any,
// []any, json.Number, ...), for values that checkArgs found Go-typed.
func toNative(v any) (any, error) {
	b, err := marshalContained(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// marshalContained is json.Marshal with a panic in a value's MarshalJSON or
// MarshalText method (user code) turned into an error.
func marshalContained(v any) (b []byte, err error) {
	done := false
	defer func() {
		if !done {
			_ = recover()
			b, err = nil, errors.New("a value's JSON encoding failed")
		}
	}()
	b, err = json.Marshal(v)
	if err != nil {
		err = errors.New(cut(err.Error(), 2*maxQuoted))
	}
	done = true
	return b, err
}

// validNumber reports whether s follows the JSON number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
