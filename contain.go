package toolreg

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"strings"
)

// Containment of user code. Handlers, guards, layers, listeners and change
// hooks are user code, and so are the values they hand back: an error's
// Error and Unwrap methods, a panic value's String method. Every touch of
// them goes through the functions here, which never let a panic escape and
// detect completion positively (a flag set after the call returned), so that
// panic(nil) under GODEBUG=panicnil=1 is never taken for success.

// maxUnwrap bounds the walk over an error's Unwrap tree: a hostile error may
// unwrap to itself forever.
const maxUnwrap = 64

// maxPanicText bounds the rendering of a panic value in the log.
const maxPanicText = 200

// errorText returns err.Error(), or ok false when err is a typed nil (an
// interface holding a nil pointer) or its Error method panics.
func errorText(err error) (msg string, ok bool) {
	if isNilValue(err) {
		return "", false
	}
	done := false
	defer func() {
		if !done {
			_ = recover()
			msg, ok = "", false
		}
	}()
	msg = err.Error()
	done = true
	return msg, true
}

// isNilValue reports whether v is nil or an interface holding a nil
// pointer, map, slice, func or channel.
func isNilValue(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// wraps reports whether err is target or wraps it, like errors.Is, but with
// every method call contained and the walk bounded: an error that unwraps to
// itself, or whose Is or Unwrap panics, does not wrap target.
func wraps(err, target error) (yes bool) {
	done := false
	defer func() {
		if !done {
			_ = recover()
			yes = false
		}
	}()
	yes = wrapsBounded(err, target)
	done = true
	return yes
}

func wrapsBounded(err, target error) bool {
	queue := []error{err}
	for n := 0; len(queue) > 0 && n < maxUnwrap; n++ {
		e := queue[0]
		queue = queue[1:]
		if isNilValue(e) {
			continue
		}
		if e == target {
			return true
		}
		if x, ok := e.(interface{ Is(error) bool }); ok && x.Is(target) {
			return true
		}
		switch x := e.(type) {
		case interface{ Unwrap() error }:
			queue = append(queue, x.Unwrap())
		case interface{ Unwrap() []error }:
			queue = append(queue, x.Unwrap()...)
		}
	}
	return false
}

// describePanic renders a recovered panic value for the log: its type and a
// short rendering in which secrets are replaced. full keeps the whole
// rendering (WithPanicValues). Formatting is itself contained: a value whose
// String method panics is described by its type alone.
func describePanic(v any, secrets []string, full bool) (typ, text string) {
	typ = fmt.Sprintf("%T", v) // reflection only: calls no method of v
	text = renderPanic(v)
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, redactedValue)
	}
	if !full {
		text = cut(text, maxPanicText)
	}
	return typ, text
}

func renderPanic(v any) (text string) {
	done := false
	defer func() {
		if !done {
			_ = recover()
			text = "<unprintable>"
		}
	}()
	switch x := v.(type) {
	case nil:
		text = "nil (panic(nil) or runtime.Goexit)"
	case string:
		text = x
	case error:
		if msg, ok := errorText(x); ok {
			text = msg
		} else {
			text = "<unprintable error>"
		}
	default:
		text = fmt.Sprint(v)
	}
	done = true
	return text
}

// logPanic records a recovered panic: its type, a short redacted rendering
// and the stack go to the log only, never to the model.
func (r *Registry) logPanic(where, tool string, v any, secrets ...string) {
	typ, text := describePanic(v, secrets, r.cfg.panicValues)
	r.logAt(context.Background(), slog.LevelError, "toolreg: recovered panic in "+where,
		"tool", cut(tool, 4*maxQuoted), "panic_type", typ, "panic", text, "stack", string(debug.Stack()))
}

// callContained runs fn, containing a panic, and reports whether fn
// returned normally. A panic is logged as coming from where.
func (r *Registry) callContained(where, tool string, fn func()) (ok bool) {
	done := false
	defer func() {
		if !done {
			r.logPanic(where, tool, recover())
		}
	}()
	fn()
	done = true
	return true
}
