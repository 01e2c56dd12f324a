package toolreg

import (
	"context"
	"errors"
	"fmt"
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
// code, or "" when the call may proceed.
func (r *Registry) checkGuard(ctx context.Context, e *entry, args map[string]any, call CallContext) (string, string) {
	gp := r.guard.Load()
	if gp == nil {
		if r.cfg.failClosed && (e.policy.Visibility == VisibilityRestricted || e.policy.Confirm != ConfirmNone) {
			return failureJSON(fmt.Sprintf("tool %q is denied: no execution guard is installed", e.name()), CodeDenied), CodeDenied
		}
		return "", ""
	}
	platform := call.Platform
	if platform == "" {
		platform = "unknown"
	}
	req := GuardRequest{
		Name: e.name(), Type: "tool",
		Visibility: e.policy.Visibility, Confirm: e.policy.Confirm, Risk: e.tool.Risk,
		SessionID: call.SessionID, Platform: platform, UserID: call.UserID,
		Args: args, SkipConfirm: call.SkipConfirm,
		PluginName: e.tool.PluginName, Groups: slices.Clone(e.tool.Groups), Permissions: call.Permissions,
	}
	err := r.runGuard(ctx, *gp, req)
	switch {
	case err == nil:
		return "", ""
	case errors.Is(err, ErrConfirmationRequired):
		return failureJSON(err.Error(), CodeConfirmationRequired), CodeConfirmationRequired
	default:
		return failureJSON(err.Error(), CodeDenied), CodeDenied
	}
}

// runGuard calls g and turns a panic into a denial.
func (r *Registry) runGuard(ctx context.Context, g ExecutionGuard, req GuardRequest) (err error) {
	defer func() {
		if v := recover(); v != nil {
			r.logPanic("guard", req.Name, v)
			err = fmt.Errorf("tool %q is denied: the execution guard failed", req.Name)
		}
	}()
	return g(ctx, req)
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
