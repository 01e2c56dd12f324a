package toolreg

import (
	"context"
	"fmt"
	"log/slog"
	"time"
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
// args may hold Go values (ints, []string, structs) as well as what
// encoding/json decodes. Arguments nested deeper than [MaxArgumentDepth] (a
// value that contains itself never ends), holding more than
// [MaxArgumentValues] values, NaN or an infinity are refused as
// "invalid_arguments". A nil ctx means context.Background().
//
// Unless the tool runs inline (see [RegisteredTool.Inline]), the handler
// runs on a goroutine of its own: Execute returns when ctx is done or the
// timeout passes even if the handler ignores its context, and a handler
// that panics or calls runtime.Goexit ends as code "panic". A result that
// arrives after Execute returned is dropped; see [Registry.Stats].
func (r *Registry) Execute(ctx context.Context, name string, args map[string]any, call CallContext) string {
	if res, _, ok := r.direct(ctx, name, args, "", false, &call); ok {
		return res
	}
	return r.do(ctx, name, args, "", false, call, false).Content
}

// direct runs the commonest call the short way: no listener, an inline
// handler with no timeout, no guard to ask, a tool the Access reaches, and
// arguments that pass. It reports false, having run
// nothing, whenever any of that does not hold; the full path then decides.
// It returns the result and its code ("" on success).
func (r *Registry) direct(ctx context.Context, name string, args map[string]any, raw string, isRaw bool, call *CallContext) (string, string, bool) {
	if ctx == nil || len(r.loadListeners()) > 0 || r.guard.Load() != nil {
		return "", "", false
	}
	e := r.current().lookup(name)
	if e == nil || !e.short {
		return "", "", false
	}
	if out, _ := r.reach(e, &call.Access); out != reached {
		return "", "", false
	}
	if isRaw {
		var err error
		if len(raw) > r.cfg.maxArgBytes {
			return "", "", false
		}
		if args, err = parseArguments(raw, e.tool.UseNumber); err != nil {
			return "", "", false
		}
	}
	sc, err := e.valid.scan(args)
	if err != nil || e.valid.check(args, sc) != "" || ctx.Err() != nil {
		return "", "", false
	}
	if args == nil {
		args = map[string]any{}
	}
	res, code := r.callDirect(ctx, e, name, args, call, sc.native)
	return res, code, true
}

// callDirect calls the handler of a call that direct admitted, contained as
// callHandler contains it.
func (r *Registry) callDirect(ctx context.Context, e *entry, name string, args map[string]any, call *CallContext, native bool) (res, code string) {
	done := false
	defer func() {
		if !done {
			q := request{ctx: ctx, name: name, e: e, args: args, scan: argScan{native: native}}
			r.logPanic("handler", name, recover(), q.secrets()...)
			res, code = r.failure(fmt.Sprintf("tool %s failed unexpectedly", quote(name)), CodePanic)
		}
	}()
	out, err := e.tool.Handler(ctx, args, *call)
	if err != nil {
		q := request{ctx: ctx, name: name, e: e, args: args}
		res, code = r.handlerError(ctx, &q, err)
	} else {
		res = r.limit(out)
	}
	done = true
	return res, code
}

// ExecuteJSON is [Registry.Execute] for the model's raw "arguments" string.
// "" (or only white space) means {}. Anything else must be one JSON object:
// a syntax error is reported with its byte offset, and a value of another
// kind (null, an array, ...) says what it was. Malformed arguments are never
// replaced by {}. Numbers are float64, and an integer that float64 cannot
// hold exactly is refused, unless the tool asked for json.Number (see
// [RegisteredTool.UseNumber]). A string longer than the registry's bound
// (see [WithMaxArgumentBytes]) is refused without being parsed.
func (r *Registry) ExecuteJSON(ctx context.Context, name string, argsJSON string, call CallContext) string {
	if res, _, ok := r.direct(ctx, name, nil, argsJSON, true, &call); ok {
		return res
	}
	return r.do(ctx, name, nil, argsJSON, true, call, false).Content
}

// Call is [Registry.Execute] with the outcome as a [Result]: the content the
// model reads, the code that tells a handler's success from a registry
// failure, the call id and the duration.
func (r *Registry) Call(ctx context.Context, name string, args map[string]any, call CallContext) Result {
	if res, ok := r.directResult(ctx, name, args, "", false, &call); ok {
		return res
	}
	return r.do(ctx, name, args, "", false, call, true)
}

// CallJSON is [Registry.ExecuteJSON] with the outcome as a [Result].
func (r *Registry) CallJSON(ctx context.Context, name, argsJSON string, call CallContext) Result {
	if res, ok := r.directResult(ctx, name, nil, argsJSON, true, &call); ok {
		return res
	}
	return r.do(ctx, name, nil, argsJSON, true, call, true)
}

// directResult is [Registry.direct] with its outcome as a Result.
func (r *Registry) directResult(ctx context.Context, name string, args map[string]any, raw string, isRaw bool, call *CallContext) (Result, bool) {
	start := sinceStart()
	content, code, ok := r.direct(ctx, name, args, raw, isRaw, call)
	if !ok {
		return Result{}, false
	}
	res := Result{Content: content, Code: code, CallID: call.CallID, Tool: name, Duration: sinceStart() - start}
	if res.CallID == "" {
		res.CallID = r.newCallID()
	}
	return res, true
}

// request is one call on its way through the steps of Execute.
type request struct {
	ctx    context.Context
	name   string
	e      *entry // nil: unknown name
	args   map[string]any
	argErr error
	scan   argScan // the arguments' shape and how they stand to the schema
	call   CallContext
}

// do runs one call, emitting its events. full asks for a complete Result
// (an id and a duration) even when no listener needs them. isRaw says the
// arguments are the JSON text raw rather than args.
func (r *Registry) do(ctx context.Context, name string, args map[string]any, raw string, isRaw bool, call CallContext, full bool) Result {
	if ctx == nil {
		ctx = context.Background()
	}
	s := r.current()
	q := request{ctx: ctx, name: name, e: s.lookup(name), args: args, call: call}
	if q.e != nil {
		r.prepareArgs(&q, raw, isRaw)
	} else {
		q.args = nil // an unknown name's arguments are never read
	}
	res := Result{Tool: name, CallID: call.CallID}
	ls := r.loadListeners()
	if len(ls) == 0 && !full {
		res.Content, res.Code = r.runContained(s, &q)
		return res
	}
	if res.CallID == "" {
		res.CallID = r.newCallID()
	}
	ev := ExecuteEvent{CallID: res.CallID, SessionID: call.SessionID, Platform: call.Platform, ToolName: name}
	if len(ls) > 0 {
		ev.Phase, ev.Args = PhaseStart, r.eventArgs(&q)
		if q.e != nil {
			ev.PluginName = q.e.tool.PluginName
		}
		r.emit(ls, &ev)
	}
	start := sinceStart()
	res.Content, res.Code = r.runContained(s, &q)
	res.Duration = sinceStart() - start
	if len(ls) > 0 {
		ev.Phase, ev.Result, ev.Code, ev.Duration = PhaseEnd, res.Content, res.Code, res.Duration
		r.emit(ls, &ev)
	}
	return res
}

// prepareArgs parses raw arguments and checks the shape of Go ones.
func (r *Registry) prepareArgs(q *request, raw string, isRaw bool) {
	if isRaw {
		if len(raw) > r.cfg.maxArgBytes {
			q.args, q.argErr = nil, fmt.Errorf("arguments are %d bytes, more than the %d this registry accepts", len(raw), r.cfg.maxArgBytes)
			return
		}
		q.args, q.argErr = parseArguments(raw, q.e.tool.UseNumber)
		if q.argErr != nil {
			return
		}
	}
	q.scan, q.argErr = q.e.valid.scan(q.args)
}

// eventArgs is the events' deep, redacted copy of the arguments: nil for an
// unknown name or arguments that could not be read, {} for none.
func (r *Registry) eventArgs(q *request) map[string]any {
	if q.e == nil || q.argErr != nil {
		return nil
	}
	if q.args == nil {
		return map[string]any{}
	}
	args := q.args
	if !q.scan.native {
		n, err := toNative(args)
		m, ok := n.(map[string]any)
		if err != nil || !ok {
			return nil
		}
		args = m
	}
	return q.e.redact.copyArgs(args)
}

// runContained is run behind a last line of defence: whatever escapes the
// containment of each step (a context whose methods panic, say) becomes a
// "panic" result instead of a crash.
func (r *Registry) runContained(s *snapshot, q *request) (res, code string) {
	done := false
	defer func() {
		if !done {
			r.logPanic("registry", q.name, recover(), q.secrets()...)
			res, code = r.failure(fmt.Sprintf("tool %s failed unexpectedly", quote(q.name)), CodePanic)
		}
	}()
	res, code = r.run(s, q)
	done = true
	return res, code
}

// secrets are the argument strings a log line about this call must not show.
func (q *request) secrets() []string {
	if q.e == nil {
		return nil
	}
	args := q.args
	if !q.scan.native {
		n, ok := mustNative(args)
		if !ok {
			return nil
		}
		args = n
	}
	return q.e.redact.logSecrets(args)
}

// run performs the steps of Execute and returns the result and its code.
func (r *Registry) run(s *snapshot, q *request) (string, string) {
	e, name := q.e, q.name
	if e == nil {
		return r.notFound(s, name, &q.call.Access)
	}
	switch out, ref := r.reach(e, &q.call.Access); out {
	case hidden:
		return r.notFound(s, name, &q.call.Access)
	case reserved:
		return r.failure(fmt.Sprintf("tool %s is not available", quote(name)), CodeNotAvailable)
	case revealed:
		return r.failure(fmt.Sprintf("tool %s is not available: %s", quote(name), cut(ref.Reason, 4*maxQuoted)), CodeNotAvailable)
	}
	if q.argErr != nil {
		return r.invalidArguments(name, q.argErr.Error())
	}
	if msg := e.valid.check(q.args, q.scan); msg != "" {
		return r.invalidArguments(name, msg)
	}
	if res, code := r.checkGuard(q); code != "" {
		r.logRefusal(q, code)
		return res, code
	}
	if q.ctx.Err() != nil {
		return r.contextFailure(q.ctx, e)
	}
	if q.args == nil {
		q.args = map[string]any{}
	}
	res, code := r.invoke(q)
	if e.policy.Visibility == VisibilityRestricted && r.enabled(q.ctx, slog.LevelInfo) {
		r.logAt(q.ctx, slog.LevelInfo, "toolreg: restricted tool executed", "tool", name, "session", q.call.SessionID,
			"platform", platformName(q.call.Platform), "arg_count", len(q.args), "code", code)
	}
	return res, code
}

func (r *Registry) notFound(s *snapshot, name string, a *Access) (string, string) {
	return r.failure(r.notFoundMessage(s, name, a), CodeNotFound)
}

func (r *Registry) invalidArguments(name, msg string) (string, string) {
	return r.failure(fmt.Sprintf("invalid arguments for tool %s: %s", quote(name), msg), CodeInvalidArguments)
}

func (r *Registry) logRefusal(q *request, code string) {
	r.logAt(q.ctx, slog.LevelInfo, "toolreg: call refused by guard", "tool", q.name, "session", q.call.SessionID,
		"platform", platformName(q.call.Platform), "code", code)
}

func platformName(p string) string {
	if p == "" {
		return "unknown"
	}
	return p
}

// processStart is when the package was initialized: durations are measured
// as differences of sinceStart, one read of the monotonic clock each, where
// time.Now would also read the wall clock.
var processStart = time.Now()

// sinceStart returns the monotonic time elapsed since processStart.
func sinceStart() time.Duration { return time.Since(processStart) }
