package authority

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/toolreg/toolreg"
)

// Authority decides who may run which tool, and asks people to confirm
// calls. Create it with [New]; the zero value is not usable. It keeps its
// state in a [Store] and holds no per-caller state of its own, so replicas
// that share a store share every decision. It is safe for concurrent use,
// and holds no lock while a confirmer waits.
//
// What callers can grow is bounded per session of an identity: at most
// [DefaultMaxPending] live deferred requests ([WithMaxPending]) and
// [DefaultMaxGrants] live grants ([WithMaxGrants]), each expiring; the
// built-in stores also bound their records in total ([WithMaxRecords]).
type Authority struct {
	cfg config
}

// New returns an authority configured by opts, with a new [MemoryStore]
// unless [WithStore] gives another. It reports every invalid option at once,
// each wrapping [ErrInvalid]. It starts no goroutine.
func New(opts ...Option) (*Authority, error) {
	c := config{
		owners:         map[Identity]struct{}{},
		minLevel:       map[string]int{},
		confirm:        map[string]toolreg.Confirm{},
		confirmers:     map[string]Confirmer{},
		clock:          time.Now,
		logger:         slog.New(slog.DiscardHandler),
		requestTTL:     DefaultRequestTTL,
		grantTTL:       DefaultGrantTTL,
		confirmTimeout: DefaultConfirmTimeout,
		maxPending:     DefaultMaxPending,
		maxGrants:      DefaultMaxGrants,
		maxArgsBytes:   DefaultMaxArgsBytes,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	if c.store == nil {
		c.store = NewMemoryStore()
	}
	return &Authority{cfg: c}, nil
}

// Capability returns the capability id of the tool named tool:
// "tool:<name>". Deny and allow globs, level and confirm overrides, grants
// and requests all name capabilities.
func Capability(tool string) string { return "tool:" + tool }

// IsOwner reports whether id is one of the configured owners.
func (a *Authority) IsOwner(id Identity) bool {
	_, ok := a.cfg.owners[id.normalized()]
	return ok
}

// Level returns id's level from the store: [toolreg.DefaultAuthority] for
// an identity with none, negative for a banned one. An owner's stored level
// is returned as stored; owners rank above every level all the same.
func (a *Authority) Level(ctx context.Context, id Identity) (int, error) {
	return a.cfg.store.Level(ctx, id.normalized())
}

// SetLevel stores id's level. A negative level bans id: it can run nothing,
// and no grant or allow glob admits it. [toolreg.DefaultAuthority] removes
// the record.
func (a *Authority) SetLevel(ctx context.Context, id Identity, level int) error {
	if !validText(id.Platform, id.UserID) {
		return fmt.Errorf("%w: identity %q holds invalid UTF-8 or a string over %d bytes", ErrInvalid, id, maxTextBytes)
	}
	return a.cfg.store.SetLevel(ctx, id.normalized(), level)
}

// Grant stores an approval set up in advance by an owner or the host: calls
// matching g.Key (identity, session, capability and, when g.Digest is set,
// exactly those arguments) need no confirmation while it lasts, unless the
// capability's confirmation is "always". With g.Authorizes it also admits a
// caller whose level is too low. A zero UsesLeft means [Unlimited]; a zero
// Expires means [WithGrantTTL] from now. A grant never admits a banned
// caller or a hard-denied capability. The session's grants are bounded by
// [WithMaxGrants].
func (a *Authority) Grant(ctx context.Context, g Grant) error {
	g.Key = g.Key.normalized()
	if g.UsesLeft == 0 {
		g.UsesLeft = Unlimited
	}
	now := a.cfg.clock()
	if g.Expires.IsZero() {
		g.Expires = now.Add(a.cfg.grantTTL)
	}
	if g.Capability == autoConfirmCapability {
		return fmt.Errorf("%w: capability %q is reserved for AutoConfirm", ErrInvalid, g.Capability)
	}
	return a.cfg.store.PutGrant(ctx, g, a.cfg.maxGrants, now)
}

// Revoke removes the grant stored under exactly k, if any.
func (a *Authority) Revoke(ctx context.Context, k Key) error {
	return a.cfg.store.DeleteGrant(ctx, k.normalized())
}

// Grants returns the live grants of one session of id, sorted by
// capability then digest.
func (a *Authority) Grants(ctx context.Context, id Identity, sessionID string) ([]Grant, error) {
	return a.cfg.store.Grants(ctx, id.normalized(), sessionID, a.cfg.clock())
}

// autoConfirmCapability is the capability of the grant that holds an
// owner's auto-confirm window. No tool has it: capabilities of tools start
// with "tool:".
const autoConfirmCapability = "*"

// autoConfirmKey is where an owner's auto-confirm window is stored: a grant
// in the session "" for the capability "*".
func autoConfirmKey(owner Identity) Key {
	return Key{Identity: owner.normalized(), Capability: autoConfirmCapability}
}

// AutoConfirm opens an auto-confirm window of d for owner: until it closes,
// the owner's calls of capabilities whose confirmation is "session" run
// without asking, in every session. "always" is still asked every time.
// d <= 0 closes the window. It fails with [ErrInvalid] when owner is not an
// owner. The window is a grant in the store (session "", capability "*"),
// so replicas sharing the store share it.
func (a *Authority) AutoConfirm(ctx context.Context, owner Identity, d time.Duration) error {
	if !a.IsOwner(owner) {
		return fmt.Errorf("%w: %q is not an owner", ErrInvalid, owner)
	}
	k := autoConfirmKey(owner)
	if d <= 0 {
		return a.cfg.store.DeleteGrant(ctx, k)
	}
	now := a.cfg.clock()
	return a.cfg.store.PutGrant(ctx, Grant{Key: k, UsesLeft: Unlimited, Expires: now.Add(d)}, 0, now)
}

// Request returns the live deferred request with the given id, for a host
// that shows it to a person. An unknown or expired id fails with
// [ErrNotFound].
func (a *Authority) Request(ctx context.Context, id string) (Request, error) {
	r, ok, err := a.cfg.store.Request(ctx, id, a.cfg.clock())
	if err != nil {
		return Request{}, err
	}
	if !ok {
		return Request{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return r, nil
}

// Approve approves the pending deferred request id: the same tool, called
// again with the same arguments in the same session by the same caller,
// then runs exactly once, even when replicas sharing the store race on it.
// The approval lapses after [WithRequestTTL]. An unknown or expired id fails
// with [ErrNotFound], a request already decided with [ErrResolved].
//
// The authority does not know who approves: the host must check that the
// person answering may approve this request (its caller, or an owner)
// before calling Approve.
func (a *Authority) Approve(ctx context.Context, id string) (Request, error) {
	return a.resolve(ctx, id, true)
}

// Reject rejects the pending deferred request id: the next matching call is
// refused, once; a later one asks again. Errors are as for
// [Authority.Approve].
func (a *Authority) Reject(ctx context.Context, id string) (Request, error) {
	return a.resolve(ctx, id, false)
}

func (a *Authority) resolve(ctx context.Context, id string, approve bool) (Request, error) {
	now := a.cfg.clock()
	r, err := a.cfg.store.ResolveRequest(ctx, id, approve, now.Add(a.cfg.requestTTL), now)
	if err != nil {
		return r, err
	}
	a.cfg.logger.Info("authority: request resolved", "request", id, "tool", r.Tool,
		"platform", r.Key.Platform, "session", r.Key.SessionID, "state", string(r.State))
	return r, nil
}

// newRequestID returns 128 random bits in hex.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
