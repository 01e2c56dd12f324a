package toolreg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
)

// ErrConfirmationRequired, wrapped by an [ExecutionGuard]'s error, makes the
// call fail with code "confirmation_required" instead of "denied": the host
// asks a human and the model may call again once it has an answer.
var ErrConfirmationRequired = errors.New("toolreg: confirmation required")

// GuardRequest is what an [ExecutionGuard] decides on: the tool, its resolved
// policy and declared risk, the caller, and the validated arguments. The guard
// must not modify Args.
type GuardRequest struct {
	Name        string
	Type        string // always "tool"
	Visibility  Visibility
	Confirm     Confirm
	Risk        Risk
	SessionID   string
	Platform    string // "unknown" when the caller gave none
	UserID      string
	Args        map[string]any
	SkipConfirm bool     // the caller is trusted: skip interactive confirmation, never authorization
	PluginName  string   // the tool's plugin
	Groups      []string // the tool's groups
	Permissions []string // the caller's, from CallContext.Permissions
}

// ExecutionGuard authorizes a call before its handler runs. A nil error
// allows it; any other error denies it, and err.Error() is the reason the
// model reads. Wrap [ErrConfirmationRequired] to ask for confirmation instead.
//
// The guard runs with no registry lock held and may block, for instance while
// a human decides. A guard that panics denies the call.
type ExecutionGuard func(ctx context.Context, req GuardRequest) error

// SetExecutionGuard installs g as the registry's guard, replacing any other;
// nil removes it. Without a guard every call is allowed, unless the registry
// was built [WithFailClosed]. It is safe to call at any time: calls already
// past the guard are not affected.
func (r *Registry) SetExecutionGuard(g ExecutionGuard) {
	if g == nil {
		r.guard.Store(nil)
		return
	}
	r.guard.Store(&g)
}

// checkGuard runs the guard for one call and returns a failure result and
// code, or "" when the call may proceed. The guard gets its own deep copy of
// the arguments, so it cannot change what the handler receives. A refusal
// that comes after the caller's context ended reads as that context's
// failure ("canceled" or "timeout"), not as a denial.
func (r *Registry) checkGuard(q *request) (string, string) {
	e := q.e
	gp := r.guard.Load()
	if gp == nil {
		if r.cfg.failClosed && (e.policy.Visibility == VisibilityRestricted || e.policy.Confirm != ConfirmNone) {
			return r.failure(fmt.Sprintf("tool %s is denied: no execution guard is installed", quote(e.name())), CodeDenied)
		}
		return "", ""
	}
	req := GuardRequest{
		Name: e.name(), Type: "tool",
		Visibility: e.policy.Visibility, Confirm: e.policy.Confirm, Risk: e.tool.Risk,
		SessionID: q.call.SessionID, Platform: platformName(q.call.Platform), UserID: q.call.UserID,
		Args: guardArgs(q), SkipConfirm: q.call.SkipConfirm,
		PluginName: e.tool.PluginName, Groups: slices.Clone(e.tool.Groups), Permissions: slices.Clone(q.call.Permissions),
	}
	msg, confirm, ok := r.runGuard(q, *gp, req)
	switch {
	case ok:
		return "", ""
	case q.ctx.Err() != nil:
		return r.contextFailure(q.ctx, e)
	case confirm:
		return r.failure(msg, CodeConfirmationRequired)
	default:
		return r.failure(msg, CodeDenied)
	}
}

// guardArgs is the guard's own deep copy of the arguments, in JSON form
// when the caller passed Go values.
func guardArgs(q *request) map[string]any {
	if q.args == nil {
		return map[string]any{}
	}
	if !q.scan.native {
		if n, ok := mustNative(q.args); ok {
			return n
		}
		return map[string]any{}
	}
	return copyMap(q.args, nil)
}

func mustNative(args map[string]any) (map[string]any, bool) {
	n, err := toNative(args)
	m, ok := n.(map[string]any)
	return m, err == nil && ok
}

// runGuard calls g, contained: a guard that panics, panics with nil, or
// returns an error it cannot describe (a typed nil, an Error method that
// panics) denies the call. It returns the model's message and whether the
// guard asked for confirmation.
func (r *Registry) runGuard(q *request, g ExecutionGuard, req GuardRequest) (msg string, confirm, ok bool) {
	denied := fmt.Sprintf("tool %s is denied: the execution guard failed", quote(req.Name))
	done := false
	defer func() {
		if !done {
			r.logPanic("guard", req.Name, recover(), q.secrets()...)
			msg, confirm, ok = denied, false, false
		}
	}()
	err := g(q.ctx, req)
	switch {
	case err == nil:
		ok = true
	case isNilValue(err):
		r.logAt(q.ctx, slog.LevelError, "toolreg: guard returned a typed nil error; the call is denied", "tool", req.Name)
		msg = denied
	default:
		text, printable := errorText(err)
		if !printable {
			text = denied
		}
		msg, confirm = text, wraps(err, ErrConfirmationRequired)
	}
	done = true
	return msg, confirm, ok
}

// confirmationError asks for confirmation with a message of its own.
type confirmationError struct{ prompt string }

func (e *confirmationError) Error() string { return e.prompt }
func (e *confirmationError) Unwrap() error { return ErrConfirmationRequired }

// NeedConfirmation returns an error for an [ExecutionGuard] to ask for
// confirmation: the model reads prompt, with code "confirmation_required".
// It wraps [ErrConfirmationRequired].
func NeedConfirmation(prompt string) error { return &confirmationError{prompt: prompt} }

// ChainGuards returns a guard that asks guards in order and answers with the
// first refusal; no guard after it is called. nil entries are skipped, and a
// chain of only nil guards (or none) allows every call.
func ChainGuards(guards ...ExecutionGuard) ExecutionGuard {
	chain := slices.DeleteFunc(slices.Clone(guards), func(g ExecutionGuard) bool { return g == nil })
	return func(ctx context.Context, req GuardRequest) error {
		for _, g := range chain {
			if err := g(ctx, req); err != nil {
				return err
			}
		}
		return nil
	}
}
