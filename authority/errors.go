package authority

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
)

// Errors that callers branch on with errors.Is.
var (
	// ErrDenied is wrapped by every refusal of the guard except a pending
	// deferred request, which wraps [toolreg.ErrConfirmationRequired].
	ErrDenied = errors.New("authority: denied")
	// ErrInvalid: a store was given a record it cannot keep exactly, or the
	// authority was given a value it does not accept.
	ErrInvalid = errors.New("authority: invalid")
	// ErrFull: a bound was reached (records in a store, grants or pending
	// requests of one session).
	ErrFull = errors.New("authority: full")
	// ErrNotFound: no live deferred request has that id.
	ErrNotFound = errors.New("authority: request not found")
	// ErrResolved: the deferred request was already approved or rejected.
	ErrResolved = errors.New("authority: request already resolved")
	// ErrCorrupt: a file store's file is truncated or corrupt.
	ErrCorrupt = errors.New("authority: corrupt store file")
)

// Reason says why the guard refused a call, or asked for approval.
type Reason string

// The reasons of a [*DecisionError].
const (
	ReasonHardDeny      Reason = "hard_deny"      // a deny glob matches the capability (owners included)
	ReasonBanned        Reason = "banned"         // the caller's level is negative
	ReasonLevel         Reason = "level"          // the caller's level is below the capability's minimum
	ReasonInvalidCaller Reason = "invalid_caller" // identity or session is not valid UTF-8 or is too long
	ReasonInvalidArgs   Reason = "invalid_args"   // an approval is needed and the arguments have no JSON form to bind it to
	ReasonNoConfirmer   Reason = "no_confirmer"   // confirmation is needed and the platform has no confirmer
	ReasonDeclined      Reason = "declined"       // the person asked said no
	ReasonConfirmFailed Reason = "confirm_failed" // the confirmer failed, panicked or timed out
	ReasonCanceled      Reason = "canceled"       // the call's context ended while the confirmer waited
	ReasonRejected      Reason = "rejected"       // the deferred request for this call was rejected
	ReasonPending       Reason = "pending"        // a deferred request waits for a person: confirmation_required
	ReasonTooMany       Reason = "too_many"       // the session holds too many pending requests
	ReasonUnavailable   Reason = "unavailable"    // the store failed
)

// DecisionError is the error the guard returns when it does not allow a
// call. Its Error is what the model reads; Err, the underlying store or
// confirmer error, is for the host's logs and never shown to the model.
//
// It unwraps to [toolreg.ErrConfirmationRequired] when Reason is
// [ReasonPending], so the registry answers "confirmation_required", and to
// [ErrDenied] otherwise.
type DecisionError struct {
	Tool       string
	Capability string
	Platform   string // the caller's platform
	Reason     Reason
	MinLevel   int    // for ReasonLevel: the level the capability needs
	RequestID  string // for ReasonPending and ReasonRejected
	Detail     string // for ReasonDeclined: the person's reason, if any
	Err        error
}

// maxDetailBytes bounds a confirmer's reason as the model reads it.
const maxDetailBytes = 256

// Error returns the sentence the model reads.
func (e *DecisionError) Error() string {
	tool := fmt.Sprintf("tool %q", e.Tool)
	switch e.Reason {
	case ReasonHardDeny:
		return "authority: " + tool + " is denied by policy"
	case ReasonBanned:
		return "authority: " + tool + " is denied: the caller is banned"
	case ReasonLevel:
		return fmt.Sprintf("authority: %s needs authority level %d", tool, e.MinLevel)
	case ReasonInvalidCaller:
		return "authority: " + tool + " is denied: the caller's identity or session is not valid UTF-8 or is too long"
	case ReasonInvalidArgs:
		return "authority: " + tool + " is denied: its arguments have no JSON form to approve"
	case ReasonNoConfirmer:
		return fmt.Sprintf("authority: %s needs confirmation and no one can confirm on platform %q", tool, e.Platform)
	case ReasonDeclined:
		if e.Detail != "" {
			return fmt.Sprintf("authority: %s was declined: %s", tool, e.Detail)
		}
		return "authority: " + tool + " was declined"
	case ReasonConfirmFailed:
		return "authority: " + tool + " is denied: confirmation failed"
	case ReasonCanceled:
		return "authority: " + tool + " is denied: the call ended while waiting for confirmation"
	case ReasonRejected:
		return fmt.Sprintf("authority: %s was rejected (request %q)", tool, e.RequestID)
	case ReasonPending:
		return fmt.Sprintf("authority: %s needs a person's approval: request %q is pending; call it again with the same arguments once it is approved", tool, e.RequestID)
	case ReasonTooMany:
		return "authority: " + tool + " is denied: too many approval requests are pending in this session"
	}
	return "authority: " + tool + " is denied: the authority's state is unavailable"
}

// Unwrap returns [toolreg.ErrConfirmationRequired] for a pending request and
// [ErrDenied] otherwise. Err is deliberately left out, so that nothing a
// confirmer or a store returns can turn a denial into another outcome.
func (e *DecisionError) Unwrap() error {
	if e.Reason == ReasonPending {
		return toolreg.ErrConfirmationRequired
	}
	return ErrDenied
}

// detail makes a confirmer's reason safe to show: valid UTF-8, one line,
// at most maxDetailBytes.
func detail(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxDetailBytes {
		cut := maxDetailBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
