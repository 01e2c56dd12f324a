package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
)

// Format names, as they appear in errors.
const (
	formatChat      = "openai-chat"
	formatResponses = "openai-responses"
	formatAnthropic = "anthropic"
	formatGemini    = "gemini"
)

// callReader collects the tool calls of one response within the Adapter's
// bounds.
type callReader struct {
	format string
	lim    Limits
	calls  []toolreg.ToolCall
	seen   map[string]bool
}

// read checks raw against the size bound, UTF-8 and JSON syntax, and that it
// is one JSON object or array, which it returns without surrounding space.
func (a *Adapter) read(format string, raw []byte) (*callReader, json.RawMessage, error) {
	r := &callReader{format: format, lim: a.cfg.limits}
	if len(raw) > r.lim.ResponseBytes {
		return nil, nil, r.fail(-1, "", fmt.Errorf("%w: response of %d bytes exceeds the bound of %d", ErrTooLarge, len(raw), r.lim.ResponseBytes))
	}
	if !utf8.Valid(raw) {
		return nil, nil, r.fail(-1, "", fmt.Errorf("%w (at byte %d)", ErrInvalidUTF8, invalidUTF8At(raw)))
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return nil, nil, r.fail(-1, "", fmt.Errorf("%w: expected a JSON object or array", ErrMalformed))
	}
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, nil, r.fail(-1, "", fmt.Errorf("%w: %v (at byte %d)", ErrMalformed, se, se.Offset))
		}
		return nil, nil, r.fail(-1, "", fmt.Errorf("%w: %v", ErrMalformed, err))
	}
	return r, trimmed, nil
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

func (r *callReader) fail(index int, id string, err error) error {
	return &ParseError{Format: r.format, Index: index, CallID: id, Err: err}
}

// decode unmarshals part of the response, reporting a shape mismatch as
// ErrMalformed with what was being read.
func (r *callReader) decode(data json.RawMessage, v any, what string) error {
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return r.fail(-1, "", fmt.Errorf("%w: %s: field %q is %s, not %s", ErrMalformed, what, te.Field, te.Value, te.Type))
		}
		return r.fail(-1, "", fmt.Errorf("%w: %s: %v", ErrMalformed, what, err))
	}
	return nil
}

// providerError reports the provider's error object, when top holds one
// and not the key a message would have.
func (r *callReader) providerError(top map[string]json.RawMessage, messageKey string) error {
	raw, ok := top["error"]
	if !ok || isNull(raw) {
		return nil
	}
	if _, ok := top[messageKey]; ok {
		return nil
	}
	var e struct {
		Message string `json:"message"`
	}
	msg := ""
	if json.Unmarshal(raw, &e) == nil {
		msg = e.Message
	} else {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			msg = s
		}
	}
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	if msg == "" {
		return r.fail(-1, "", ErrProviderError)
	}
	return r.fail(-1, "", fmt.Errorf("%w: %s", ErrProviderError, msg))
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// add appends one call. args is the raw JSON value of the arguments: a JSON
// string holding the arguments text (OpenAI) or the arguments object itself
// (Anthropic, Gemini); null or absent means "" (no arguments). requireID
// refuses a call without an id.
func (r *callReader) add(id, name string, args json.RawMessage, requireID bool) error {
	index := len(r.calls)
	if index >= r.lim.Calls {
		return r.fail(-1, "", fmt.Errorf("%w: more than %d in one response", ErrTooManyCalls, r.lim.Calls))
	}
	shownID := id
	if len(shownID) > 64 {
		shownID = shownID[:64] + "..."
	}
	if len(id) > r.lim.IDBytes {
		return r.fail(index, shownID, fmt.Errorf("%w: id of %d bytes exceeds the bound of %d", ErrTooLarge, len(id), r.lim.IDBytes))
	}
	if id == "" && requireID {
		return r.fail(index, "", ErrMissingID)
	}
	if id != "" {
		if r.seen[id] {
			return r.fail(index, shownID, ErrDuplicateID)
		}
		if r.seen == nil {
			r.seen = map[string]bool{}
		}
		r.seen[id] = true
	}
	text, err := argumentsText(args)
	if err != nil {
		return r.fail(index, shownID, err)
	}
	if len(text) > r.lim.ArgumentBytes {
		return r.fail(index, shownID, fmt.Errorf("%w: arguments of %d bytes exceed the bound of %d", ErrTooLarge, len(text), r.lim.ArgumentBytes))
	}
	if d := nesting(text); d > r.lim.Depth {
		return r.fail(index, shownID, fmt.Errorf("%w: arguments nest %d levels, the bound is %d", ErrTooDeep, d, r.lim.Depth))
	}
	r.calls = append(r.calls, toolreg.ToolCall{ID: id, Name: name, Arguments: text})
	return nil
}

// argumentsText turns the raw arguments value into the text the registry
// parses: a JSON string is unquoted, any other value is compacted, so that
// its numbers stay exactly as the model wrote them.
func argumentsText(args json.RawMessage) (string, error) {
	args = bytes.TrimSpace(args)
	if isNull(args) {
		return "", nil
	}
	if args[0] == '"' {
		var s string
		if err := json.Unmarshal(args, &s); err != nil {
			return "", fmt.Errorf("%w: arguments: %v", ErrMalformed, err)
		}
		return s, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, args); err != nil {
		return "", fmt.Errorf("%w: arguments: %v", ErrMalformed, err)
	}
	return buf.String(), nil
}

// nesting returns the deepest nesting of objects and arrays in JSON text,
// ignoring brackets inside strings. It reads text that need not be valid.
func nesting(text string) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// objectOrArray decodes the top level: an object into top, an array is
// returned as is.
func (r *callReader) objectOrArray(raw json.RawMessage) (top map[string]json.RawMessage, array json.RawMessage, err error) {
	if raw[0] == '[' {
		return nil, raw, nil
	}
	if err := r.decode(raw, &top, "response"); err != nil {
		return nil, nil, err
	}
	return top, nil, nil
}

func malformed(msg string) error { return fmt.Errorf("%w: %s", ErrMalformed, msg) }
