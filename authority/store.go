package authority

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Key names what a grant or a deferred request is about: one identity, in
// one session, for one capability ("tool:<name>"), and, when Digest is set,
// for the arguments whose [toolreg.ArgsDigest] it is.
type Key struct {
	Identity
	SessionID  string
	Capability string
	Digest     string // "" in a grant: any arguments
}

// normalized returns k with its identity normalized.
func (k Key) normalized() Key {
	k.Identity = k.Identity.normalized()
	return k
}

// Validate reports, wrapping [ErrInvalid], a key a store cannot keep
// exactly: a string that is not valid UTF-8 or longer than 1 KiB.
func (k Key) Validate() error {
	if !validText(k.Platform, k.UserID, k.SessionID, k.Capability, k.Digest) {
		return fmt.Errorf("%w: key holds invalid UTF-8 or a string over %d bytes", ErrInvalid, maxTextBytes)
	}
	return nil
}

// Unlimited, as [Grant.UsesLeft], lets a grant admit any number of calls
// until it expires.
const Unlimited = -1

// Grant is a remembered approval: calls that match its [Key] need no new
// confirmation while it has uses left and has not expired.
type Grant struct {
	Key
	// UsesLeft is how many more calls the grant admits: a positive number,
	// or [Unlimited]. A store removes the grant when it reaches zero.
	UsesLeft int
	// Expires is when the grant stops admitting calls. Every grant expires.
	Expires time.Time
	// Authorizes makes the grant admit a caller whose level is below the
	// capability's minimum. Only grants an owner set up with
	// [Authority.Grant] carry it; approvals a caller gave by confirming its
	// own calls never do. No grant admits a banned caller or a hard-denied
	// capability.
	Authorizes bool
}

// RequestState is where a deferred request stands.
type RequestState string

// The states of a deferred request.
const (
	RequestPending  RequestState = "pending"
	RequestApproved RequestState = "approved"
	RequestRejected RequestState = "rejected"
)

// Request is a deferred approval: a call that waits for a person who answers
// later, through [Authority.Approve] or [Authority.Reject]. Key.Digest is
// always set: an approval admits the same tool with the same arguments, in
// the same session, once.
type Request struct {
	ID    string // random, unguessable; what the host shows and approves
	Key   Key
	Tool  string
	Args  json.RawMessage // the arguments with sensitive values redacted; empty when they could not be kept
	State RequestState
	// Created is when the request was opened; Expires is when it, or the
	// decision on it, lapses.
	Created time.Time
	Expires time.Time
}

// Store keeps the authority's state: levels, grants and deferred requests.
// Replicas that share one store share their decisions. Every method must be
// safe for concurrent use, across processes for a shared store. Times are
// the caller's clock; a store must compare expiry with the now it is given,
// not with its own clock, and may also let expired records vanish by
// itself.
//
// Strings reaching a store are valid UTF-8 of at most 1 KiB; a store may
// refuse others with [ErrInvalid]. The storetest package checks that an
// implementation behaves as the built-in ones.
type Store interface {
	LevelStore
	GrantStore
	RequestStore
}

// LevelStore keeps each identity's level.
type LevelStore interface {
	// Level returns id's level, [toolreg.DefaultAuthority] when none is set.
	Level(ctx context.Context, id Identity) (int, error)
	// SetLevel sets id's level; [toolreg.DefaultAuthority] removes the
	// record. Levels never expire.
	SetLevel(ctx context.Context, id Identity, level int) error
}

// GrantStore keeps grants.
type GrantStore interface {
	// PutGrant stores g, replacing a grant with the same Key; a g already
	// expired at now only removes the grant it replaces. When the
	// session of g (its identity and session id) already holds limit live
	// grants under other keys, it fails with [ErrFull]; limit <= 0 sets no
	// per-session bound.
	PutGrant(ctx context.Context, g Grant, limit int, now time.Time) error
	// UseGrant atomically takes one use of the live grant stored under
	// exactly k and returns it as it was before the use. Two callers racing
	// for a grant's last use never both get it.
	UseGrant(ctx context.Context, k Key, now time.Time) (Grant, bool, error)
	// Grants returns the live grants of one session, sorted by capability
	// then digest.
	Grants(ctx context.Context, id Identity, sessionID string, now time.Time) ([]Grant, error)
	// DeleteGrant removes the grant stored under exactly k, if any.
	DeleteGrant(ctx context.Context, k Key) error
}

// RequestStore keeps deferred requests.
type RequestStore interface {
	// OpenRequest stores r as pending, unless a live request with the same
	// Key exists: then it returns that one, whatever its state, and stores
	// nothing. An r already expired at now is returned and not kept. When
	// the session already holds limit live requests it fails with
	// [ErrFull]; limit <= 0 sets no per-session bound.
	OpenRequest(ctx context.Context, r Request, limit int, now time.Time) (Request, error)
	// Request returns the live request with the given id.
	Request(ctx context.Context, id string, now time.Time) (Request, bool, error)
	// ResolveRequest moves a live pending request to approved or rejected,
	// with a new expiry, and returns it. An unknown or expired id fails with
	// [ErrNotFound], a request already decided with [ErrResolved].
	ResolveRequest(ctx context.Context, id string, approve bool, expires, now time.Time) (Request, error)
	// TakeDecision atomically removes and returns the live decided
	// (approved or rejected) request for k. A pending request stays and is
	// not returned. Two callers racing for one decision never both get it.
	TakeDecision(ctx context.Context, k Key, now time.Time) (Request, bool, error)
}

// sessionOf identifies the session a grant or request belongs to: the unit
// of the per-session bounds.
type sessionOf struct {
	Identity
	SessionID string
}

func (k Key) session() sessionOf { return sessionOf{k.Identity, k.SessionID} }

// Validate reports, wrapping [ErrInvalid], what makes g unstorable: an
// invalid key, no capability, no expiry, or uses left that are neither
// positive nor [Unlimited]. Stores call it in PutGrant.
func (g Grant) Validate() error {
	if err := g.Key.Validate(); err != nil {
		return err
	}
	switch {
	case g.Capability == "":
		return fmt.Errorf("%w: grant has no capability", ErrInvalid)
	case g.UsesLeft == 0 || g.UsesLeft < Unlimited:
		return fmt.Errorf("%w: grant uses left %d is neither positive nor Unlimited", ErrInvalid, g.UsesLeft)
	case g.Expires.IsZero():
		return fmt.Errorf("%w: grant has no expiry", ErrInvalid)
	}
	return nil
}

// Validate reports, wrapping [ErrInvalid], what makes r unstorable: an
// empty id, an invalid key, no capability or digest, no expiry, arguments
// that are not JSON, or an unknown state. Stores call it in OpenRequest.
func (r Request) Validate() error {
	if err := r.Key.Validate(); err != nil {
		return err
	}
	switch {
	case r.ID == "" || !validText(r.ID, r.Tool):
		return fmt.Errorf("%w: request id or tool is empty, invalid UTF-8 or over %d bytes", ErrInvalid, maxTextBytes)
	case r.State != RequestPending && r.State != RequestApproved && r.State != RequestRejected:
		return fmt.Errorf("%w: request state %q is not pending, approved or rejected", ErrInvalid, r.State)
	case r.Key.Capability == "" || r.Key.Digest == "":
		return fmt.Errorf("%w: request has no capability or digest", ErrInvalid)
	case r.Expires.IsZero():
		return fmt.Errorf("%w: request has no expiry", ErrInvalid)
	case len(r.Args) > 0 && !json.Valid(r.Args):
		return fmt.Errorf("%w: request arguments are not JSON", ErrInvalid)
	}
	return nil
}
