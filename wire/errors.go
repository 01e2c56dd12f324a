package wire

import (
	"errors"
	"fmt"
)

// Sentinel errors. The errors of this package wrap one of them, so callers
// can branch with [errors.Is].
var (
	// ErrMalformed: a provider response is not valid JSON or not shaped as
	// that provider's response (a field of the wrong JSON type).
	ErrMalformed = errors.New("malformed response")
	// ErrInvalidUTF8: a provider response holds bytes that are not UTF-8.
	ErrInvalidUTF8 = errors.New("response is not valid UTF-8")
	// ErrTooLarge: a response, a call's arguments or a call id exceeds its
	// bound (see [Limits]).
	ErrTooLarge = errors.New("too large")
	// ErrTooDeep: a call's arguments nest deeper than [Limits.Depth].
	ErrTooDeep = errors.New("nested too deeply")
	// ErrTooManyCalls: a response holds more tool calls than [Limits.Calls].
	ErrTooManyCalls = errors.New("too many tool calls")
	// ErrMissingID: a tool call of a provider that always sends call ids
	// came without one, so its result could not be matched to it.
	ErrMissingID = errors.New("tool call has no id")
	// ErrDuplicateID: two tool calls of one response share an id.
	ErrDuplicateID = errors.New("duplicate tool call id")
	// ErrProviderError: the response is the provider's error object, not a
	// message.
	ErrProviderError = errors.New("provider returned an error")

	// ErrInvalidSchema: a tool's schema is not a JSON Schema this package
	// can convert (a $ref that is not a string, a schema that is a number).
	ErrInvalidSchema = errors.New("invalid schema")
	// ErrRecursiveSchema: a schema refers to itself through $ref, which a
	// format without references (Gemini) cannot express.
	ErrRecursiveSchema = errors.New("recursive schema")
	// ErrUnresolvedRef: a $ref points to nothing in the schema, or outside it.
	ErrUnresolvedRef = errors.New("unresolved $ref")
	// ErrSchemaTooLarge: inlining references would exceed
	// [Limits.SchemaDepth] or [Limits.SchemaNodes].
	ErrSchemaTooLarge = errors.New("schema too large once inlined")
	// ErrInvalidName: a tool name the target format does not accept
	// (Gemini names must start with a letter or an underscore).
	ErrInvalidName = errors.New("invalid name for this format")
	// ErrNoSearchTool: tools are deferred to client-side search, but the
	// search tool (see [WithSearchTool]) is not offered to this Access, so
	// the model could never find them.
	ErrNoSearchTool = errors.New("search tool not offered")
)

// ParseError reports why a provider response could not be turned into tool
// calls. Index and CallID are set when one call is at fault (Index is -1
// otherwise).
type ParseError struct {
	Format string // "openai-chat", "openai-responses", "anthropic" or "gemini"
	Index  int    // position of the offending call among the response's calls, or -1
	CallID string // its id, when it has one
	Err    error  // wraps one of the sentinel errors
}

func (e *ParseError) Error() string {
	switch {
	case e.Index >= 0 && e.CallID != "":
		return fmt.Sprintf("wire: %s: tool call %d (id %q): %v", e.Format, e.Index, e.CallID, e.Err)
	case e.Index >= 0:
		return fmt.Sprintf("wire: %s: tool call %d: %v", e.Format, e.Index, e.Err)
	}
	return fmt.Sprintf("wire: %s: %v", e.Format, e.Err)
}

// Unwrap returns e.Err.
func (e *ParseError) Unwrap() error { return e.Err }

// ToolError reports a tool that could not be written in a provider's format.
// The other tools are still returned; errors.Join gathers one ToolError per
// failing tool.
type ToolError struct {
	Format string // as in [ParseError]
	Tool   string
	Path   string // JSON pointer into the tool's parameters, "" for the tool itself
	Err    error  // wraps one of the sentinel errors
}

func (e *ToolError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("wire: %s: tool %q: parameters%s: %v", e.Format, e.Tool, e.Path, e.Err)
	}
	return fmt.Sprintf("wire: %s: tool %q: %v", e.Format, e.Tool, e.Err)
}

// Unwrap returns e.Err.
func (e *ToolError) Unwrap() error { return e.Err }
