package toolreg

import (
	"errors"
	"fmt"
)

// Errors that [Registry.Register], [Registry.Reserve] and [Scope.Register]
// wrap. Branch on them with errors.Is; every problem of one registration is
// reported together in a [RegisterError].
var (
	// ErrInvalidName: a tool or group name is empty or does not match
	// ^[a-zA-Z0-9_-]{1,64}$.
	ErrInvalidName = errors.New("toolreg: invalid name")
	// ErrInvalidSchema: the definition or its parameter schema is malformed,
	// breaks the strict-mode rules, or does not compile.
	ErrInvalidSchema = errors.New("toolreg: invalid schema")
	// ErrDuplicate: the name is taken and the registry was built with
	// [WithRejectDuplicates].
	ErrDuplicate = errors.New("toolreg: duplicate tool")
	// ErrInvalidPolicy: an unknown visibility, confirm or risk value, or a
	// negative timeout.
	ErrInvalidPolicy = errors.New("toolreg: invalid policy")
	// ErrMissingHandler: Register was given a tool without a Handler. Use
	// [Registry.Reserve] to declare a tool that has no executor yet.
	ErrMissingHandler = errors.New("toolreg: missing handler")
)

// ErrInvalidArguments, wrapped by a handler's error, makes the call fail
// with code "invalid_arguments" instead of "tool_error": the handler found
// the arguments wrong in a way the schema could not say (a date in the past,
// an unknown id). The model reads the error's text, as with any handler
// error.
var ErrInvalidArguments = errors.New("toolreg: invalid arguments")

// RegisterError reports everything wrong with one registration. Each entry
// of Problems wraps one of the sentinel errors above, so errors.Is(err,
// ErrInvalidName) works on a RegisterError.
type RegisterError struct {
	Kind     string  // what was registered: "tool" when empty, "group" or "pack"
	Name     string  // the name as given
	Plugin   string  // the registering plugin
	Problems []error // in the order they were found
}

// Error lists every problem on one line.
func (e *RegisterError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	kind := e.Kind
	if kind == "" {
		kind = "tool"
	}
	return fmt.Sprintf("toolreg: register %s %s (plugin %s): %s", kind, quote(e.Name), quote(e.Plugin), joinBounded(msgs))
}

// Unwrap returns the problems, for errors.Is and errors.As.
func (e *RegisterError) Unwrap() []error { return e.Problems }

// problem is one registration problem: a short message that wraps a sentinel
// without repeating its text.
type problem struct {
	kind error
	msg  string
}

func (p problem) Error() string { return p.msg }
func (p problem) Unwrap() error { return p.kind }

func problemf(kind error, format string, args ...any) error {
	return problem{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Result codes of [Registry.Execute]: the "code" field of every failure.
const (
	CodeNotFound             = "not_found"
	CodeNotAvailable         = "not_available"
	CodeInvalidArguments     = "invalid_arguments"
	CodeDenied               = "denied"
	CodeConfirmationRequired = "confirmation_required"
	CodeCanceled             = "canceled"
	CodeTimeout              = "timeout"
	CodeToolError            = "tool_error"
	CodePanic                = "panic"
)
