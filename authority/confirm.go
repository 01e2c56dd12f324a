package authority

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolreg/toolreg"
)

// Confirmer asks a person whether a call may run, on one platform (a
// terminal, a chat, a web page). It is called with no lock held and may
// block until the person answers; it should return when ctx is done, which
// happens when the call ends or the confirmation times out
// ([WithConfirmTimeout]). The authority stops waiting then in any case and
// denies the call. An error or a panic denies the call too.
//
// The confirmer is asked only for callers already authorized: an
// unauthorized caller is never asked to approve its own call.
type Confirmer func(ctx context.Context, req ConfirmRequest) (Answer, error)

// ConfirmRequest is what a [Confirmer] shows the person.
type ConfirmRequest struct {
	Tool       string
	Capability string // "tool:<name>"
	Identity   Identity
	SessionID  string
	Owner      bool            // the caller is an owner
	Confirm    toolreg.Confirm // why it is asked: session or always
	Risk       toolreg.Risk    // as the tool declared it
	// Args are the call's arguments, deep-copied, with values marked
	// "x-sensitive": true in the tool's schema replaced by "[redacted]"
	// (see [WithRegistry]).
	Args map[string]any
	// ArgsDigest is [toolreg.ArgsDigest] of the arguments as they will run,
	// unredacted: what a GrantOnce answer binds to.
	ArgsDigest string
}

// Decision is a confirmer's verdict.
type Decision int

// Decisions. The zero Decision denies.
const (
	Deny  Decision = iota // the call is refused
	Allow                 // the call runs
	// Defer answers later: the call fails with "confirmation_required" and
	// a request id that the host approves or rejects (see
	// [Authority.Approve]).
	Defer
)

// GrantScope says what an allowed call's approval is remembered for.
type GrantScope string

// Grant scopes. Nothing is remembered for a capability whose confirmation
// is "always".
const (
	GrantNone    GrantScope = ""        // this call only
	GrantOnce    GrantScope = "once"    // calls with exactly these arguments
	GrantSession GrantScope = "session" // every call of the capability in this session
)

// Answer is a confirmer's reply.
type Answer struct {
	Decision Decision
	// Grant remembers an Allow for later calls of the same caller in the
	// same session, so that they are not asked again.
	Grant GrantScope
	// For is how long the grant lasts; 0 means [WithGrantTTL].
	For time.Duration
	// Uses is how many later calls the grant admits; 0 means one for
	// GrantOnce and no limit (until it expires) for GrantSession.
	Uses int
	// Reason, for a Deny, is shown to the model (one line, at most 256
	// bytes).
	Reason string
}

// deferAll is the confirmer of [WithDeferredApproval].
func deferAll(context.Context, ConfirmRequest) (Answer, error) { return Answer{Decision: Defer}, nil }

// errConfirmTimeout is the cause of a confirmation that took too long.
var errConfirmTimeout = errors.New("authority: confirmation timed out")

// ask runs cf on its own goroutine, so that a confirmer that ignores its
// context cannot hold the call past its end or the confirmation timeout.
// Such a confirmer's goroutine ends when it returns; its late answer is
// dropped.
func (a *Authority) ask(ctx context.Context, cf Confirmer, req ConfirmRequest) (Answer, Reason, error) {
	cctx, cancel := context.WithTimeoutCause(ctx, a.cfg.confirmTimeout, errConfirmTimeout)
	defer cancel()
	type outcome struct {
		ans Answer
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o = outcome{err: fmt.Errorf("authority: confirmer panicked: %v", p)}
			}
			done <- o
		}()
		o.ans, o.err = cf(cctx, req)
	}()
	var o outcome
	answered := false
	select {
	case o = <-done:
		answered = true
	case <-cctx.Done():
	}
	switch {
	case ctx.Err() != nil:
		return Answer{}, ReasonCanceled, context.Cause(ctx)
	case !answered:
		return Answer{}, ReasonConfirmFailed, context.Cause(cctx)
	case o.err != nil:
		return Answer{}, ReasonConfirmFailed, o.err
	}
	return o.ans, "", nil
}
