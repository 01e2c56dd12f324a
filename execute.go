package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Execute runs the tool name with args on behalf of call and returns what the
// model reads. It never panics. It is [Registry.Call] without the structure:
// Execute(...) == Call(...).Content.
//
// The steps, in order: look up the name; check that call.Access reaches the
// tool (a tool it does not reach reads exactly like an unknown name, unless
// a layer reveals why); validate args (nil means {}); run the guard with the
// resolved policy; check ctx; run the handler under the tool's timeout. A
// handler's successful string is returned unchanged. Every failure is
// {"error":"<message>","code":"<code>"} with one of the Code constants.
//
// Execute returns when ctx is done or the timeout passes even if the handler
// ignores its context; a result that arrives later is dropped and logged.
func (r *Registry) Execute(ctx context.Context, name string, args map[string]any, call CallContext) string {
	return r.do(ctx, name, args, nil, call, false).Content
}

// ExecuteJSON is [Registry.Execute] for the model's raw "arguments" string.
// "" (or only white space) means {}. Anything else must be one JSON object:
// a syntax error is reported with its byte offset, and a value of another
// kind (null, an array, ...) says what it was. Malformed arguments are never
// replaced by {}.
func (r *Registry) ExecuteJSON(ctx context.Context, name string, argsJSON string, call CallContext) string {
	return r.CallJSON(ctx, name, argsJSON, call).Content
}

// Call is [Registry.Execute] with the outcome as a [Result]: the content the
// model reads, the code that tells a handler's success from a registry
// failure, the call id and the duration.
func (r *Registry) Call(ctx context.Context, name string, args map[string]any, call CallContext) Result {
	return r.do(ctx, name, args, nil, call, true)
}

// CallJSON is [Registry.ExecuteJSON] with the outcome as a [Result].
func (r *Registry) CallJSON(ctx context.Context, name, argsJSON string, call CallContext) Result {
	args, err := parseArguments(argsJSON)
	return r.do(ctx, name, args, err, call, true)
}

// parseArguments decodes the model's arguments strictly.
func parseArguments(s string) (map[string]any, error) {
	trimmed := strings.TrimSpace(s)
	if trimmed == "" {
		return map[string]any{}, nil
	}
	if trimmed[0] != '{' {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, describeSyntax(err)
		}
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", jsonKind(v))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, describeSyntax(err)
	}
	return m, nil
}

func describeSyntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("arguments are not valid JSON: %s at byte offset %d", se.Error(), se.Offset)
	}
	return fmt.Errorf("arguments are not valid JSON: %v", err)
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

// do runs one call, emitting its events. full asks for a complete Result
// (an id and a duration) even when no listener needs them.
func (r *Registry) do(ctx context.Context, name string, args map[string]any, argErr error, call CallContext, full bool) Result {
	s := r.current()
	e := s.byName[name]
	ls := r.loadListeners()
	res := Result{Tool: name, CallID: call.CallID}
	if len(ls) == 0 && !full {
		res.Content, res.Code = r.run(ctx, s, e, name, args, argErr, call)
		return res
	}
	if res.CallID == "" {
		res.CallID = "call_" + strconv.FormatUint(r.callSeq.Add(1), 10)
	}
	var ev ExecuteEvent
	if len(ls) > 0 {
		ev = ExecuteEvent{
			Phase:     PhaseStart,
			CallID:    res.CallID,
			SessionID: call.SessionID,
			Platform:  call.Platform,
			ToolName:  name,
		}
		var rd *redaction
		if e != nil {
			ev.PluginName = e.tool.PluginName
			rd = e.redact
		}
		ev.Args = rd.apply(args)
		if ev.Args == nil && argErr == nil {
			ev.Args = map[string]any{}
		}
		r.emit(ls, ev)
	}
	start := time.Now()
	res.Content, res.Code = r.run(ctx, s, e, name, args, argErr, call)
	res.Duration = time.Since(start)
	if len(ls) > 0 {
		ev.Phase, ev.Result, ev.Code, ev.Duration = PhaseEnd, res.Content, res.Code, res.Duration
		r.emit(ls, ev)
	}
	return res
}

// run performs the steps of Execute and returns the result and its code.
func (r *Registry) run(ctx context.Context, s *snapshot, e *entry, name string, args map[string]any, argErr error, call CallContext) (string, string) {
	if e == nil {
		return notFound(s, r, name, &call.Access)
	}
	switch out, ref := r.reach(e, &call.Access); out {
	case hidden:
		return notFound(s, r, name, &call.Access)
	case reserved:
		return failureJSON(fmt.Sprintf("tool %s is not available", quote(name)), CodeNotAvailable), CodeNotAvailable
	case revealed:
		return failureJSON(fmt.Sprintf("tool %s is not available: %s", quote(name), ref.Reason), CodeNotAvailable), CodeNotAvailable
	}
	if argErr != nil {
		return invalidArguments(name, argErr.Error())
	}
	if msg := e.valid.check(args); msg != "" {
		return invalidArguments(name, msg)
	}
	if res, code := r.checkGuard(ctx, e, args, call); code != "" {
		r.logRefusal(e, call, code)
		return res, code
	}
	if ctx.Err() != nil {
		return r.contextFailure(ctx, e)
	}
	if args == nil {
		args = map[string]any{}
	}
	res, code := r.invoke(ctx, e, args, call)
	if e.policy.Visibility == VisibilityRestricted && r.cfg.logger.Enabled(ctx, slog.LevelInfo) {
		r.cfg.logger.Info("toolreg: restricted tool executed", "tool", name, "session", call.SessionID,
			"platform", platformName(call.Platform), "arg_count", len(args), "code", code)
	}
	return res, code
}

func notFound(s *snapshot, r *Registry, name string, a *Access) (string, string) {
	return failureJSON(r.notFoundMessage(s, name, a), CodeNotFound), CodeNotFound
}

func invalidArguments(name, msg string) (string, string) {
	return failureJSON(fmt.Sprintf("invalid arguments for tool %q: %s", name, msg), CodeInvalidArguments), CodeInvalidArguments
}

func (r *Registry) logRefusal(e *entry, call CallContext, code string) {
	r.cfg.logger.Info("toolreg: call refused by guard", "tool", e.name(), "session", call.SessionID,
		"platform", platformName(call.Platform), "code", code)
}

func platformName(p string) string {
	if p == "" {
		return "unknown"
	}
	return p
}

// errToolTimeout is the cause of a context ended by a tool's timeout.
var errToolTimeout = errors.New("toolreg: tool timeout")

func (r *Registry) timeout(e *entry) time.Duration {
	if e.tool.Timeout > 0 {
		return e.tool.Timeout
	}
	return r.cfg.defaultTimeout
}

// invoke calls the handler. With neither a timeout nor a cancelable context
// it calls it directly; otherwise on its own goroutine, so that a handler
// that ignores ctx cannot hold the caller past the deadline.
func (r *Registry) invoke(ctx context.Context, e *entry, args map[string]any, call CallContext) (string, string) {
	timeout := r.timeout(e)
	if timeout == 0 && ctx.Done() == nil {
		return r.callHandler(ctx, e, args, call)
	}
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, errToolTimeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()

	type outcome struct{ res, code string }
	done := make(chan outcome, 1)
	var state atomic.Int32 // 0 running, 1 delivered, 2 abandoned
	go func() {
		res, code := r.callHandler(ctx, e, args, call)
		if state.CompareAndSwap(0, 1) {
			done <- outcome{res, code}
			return
		}
		r.cfg.logger.Warn("toolreg: late result dropped", "tool", e.name(), "session", call.SessionID, "code", code)
	}()
	select {
	case out := <-done:
		return out.res, out.code
	case <-ctx.Done():
		if !state.CompareAndSwap(0, 2) {
			out := <-done // the handler finished in the same instant
			return out.res, out.code
		}
		return r.contextFailure(ctx, e)
	}
}

// callHandler runs the handler and contains its panic.
func (r *Registry) callHandler(ctx context.Context, e *entry, args map[string]any, call CallContext) (res, code string) {
	defer func() {
		if v := recover(); v != nil {
			r.logPanic("handler", e.name(), v)
			res, code = failureJSON(fmt.Sprintf("tool %q failed unexpectedly", e.name()), CodePanic), CodePanic
		}
	}()
	out, err := e.tool.Handler(ctx, args, call)
	if err != nil {
		if ctx.Err() != nil {
			return r.contextFailure(ctx, e)
		}
		return failureJSON(err.Error(), CodeToolError), CodeToolError
	}
	return r.limit(out), ""
}

// contextFailure reports a call ended by its context: "timeout" for the
// tool's timeout or a passed deadline, "canceled" otherwise.
func (r *Registry) contextFailure(ctx context.Context, e *entry) (string, string) {
	switch {
	case errors.Is(context.Cause(ctx), errToolTimeout):
		return failureJSON(fmt.Sprintf("tool %q timed out after %v", e.name(), r.timeout(e)), CodeTimeout), CodeTimeout
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return failureJSON(fmt.Sprintf("tool %q timed out: the caller's deadline passed", e.name()), CodeTimeout), CodeTimeout
	}
	return failureJSON(fmt.Sprintf("call of tool %q was canceled", e.name()), CodeCanceled), CodeCanceled
}

// truncated is what the model reads in place of a result over the limit.
type truncated struct {
	Result        string `json:"result"`
	Truncated     bool   `json:"truncated"`
	OriginalBytes int    `json:"original_bytes"`
}

// limit cuts out to the configured size, at a rune boundary.
func (r *Registry) limit(out string) string {
	n := r.cfg.maxResultBytes
	if n == 0 || len(out) <= n {
		return out
	}
	for n > 0 && !utf8.RuneStart(out[n]) {
		n--
	}
	b, _ := json.Marshal(truncated{Result: out[:n], Truncated: true, OriginalBytes: len(out)})
	return string(b)
}
