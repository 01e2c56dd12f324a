package authority

import (
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/toolreg/toolreg"
)

// Defaults of the options below.
const (
	DefaultRequestTTL     = 15 * time.Minute // a deferred request, and the decision on it
	DefaultGrantTTL       = time.Hour        // a grant whose answer gave no duration
	DefaultConfirmTimeout = 5 * time.Minute  // one confirmer's answer
	DefaultMaxPending     = 16               // live deferred requests per session
	DefaultMaxGrants      = 256              // live grants per session
	DefaultMaxArgsBytes   = 16 << 10         // redacted arguments kept in a request
)

// Option configures an [Authority]; see [New]. Options are applied in
// order, and an invalid one makes New fail.
type Option func(*config)

type config struct {
	store          Store
	owners         map[Identity]struct{}
	deny, allow    []string
	minLevel       map[string]int
	confirm        map[string]toolreg.Confirm
	confirmers     map[string]Confirmer
	clock          func() time.Time
	logger         *slog.Logger
	registry       *toolreg.Registry
	requestTTL     time.Duration
	grantTTL       time.Duration
	confirmTimeout time.Duration
	maxPending     int
	maxGrants      int
	maxArgsBytes   int
	onPending      func(Request)
	errs           []error
}

func (c *config) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...))
}

// WithStore keeps the authority's state in s instead of a new
// [MemoryStore]. Replicas that must agree (a person approves on one, the
// model's retry lands on another) share one store. A nil s, typed or not,
// is an error.
func WithStore(s Store) Option {
	return func(c *config) {
		if s == nil || isNilPointer(s) {
			c.fail("WithStore: nil store")
			return
		}
		c.store = s
	}
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// WithOwners makes ids owners: they rank above every level and are denied
// only by hard-deny globs ([WithDeny]). Confirmation still applies to them.
// An owner needs a UserID; an empty Platform is [UnknownPlatform].
func WithOwners(ids ...Identity) Option {
	return func(c *config) {
		for _, id := range ids {
			if id.UserID == "" || !validText(id.Platform, id.UserID) {
				c.fail("WithOwners: owner %q needs a valid, non-empty user id", id)
				continue
			}
			c.owners[id.normalized()] = struct{}{}
		}
	}
}

// WithDeny adds hard-deny globs over capability ids ("tool:shell_*"): a
// matching call is refused for everyone, owners included, before anything
// else is considered, and the tool is hidden by [Authority.Layer]. In a
// glob, '*' matches any run of characters; every other character matches
// itself.
func WithDeny(globs ...string) Option {
	return func(c *config) {
		for _, g := range globs {
			if g == "" {
				c.fail("WithDeny: empty glob")
				continue
			}
			c.deny = append(c.deny, g)
		}
	}
}

// WithAllow adds allow globs over capability ids: a caller whose level is
// below a matching capability's minimum is admitted all the same. This is
// how an owner opens restricted tools to everyone in advance. It never
// admits a banned caller, never overrides [WithDeny], and does not skip
// confirmation.
func WithAllow(globs ...string) Option {
	return func(c *config) {
		for _, g := range globs {
			if g == "" {
				c.fail("WithAllow: empty glob")
				continue
			}
			c.allow = append(c.allow, g)
		}
	}
}

// WithMinLevel sets the level a caller needs for capability, in place of
// [toolreg.MinLevel] of the tool's risk and visibility. A negative level is
// an error: bans are not a minimum.
func WithMinLevel(capability string, level int) Option {
	return func(c *config) {
		if capability == "" || level < 0 {
			c.fail("WithMinLevel: capability %q with level %d: want a capability and a level >= 0", capability, level)
			return
		}
		c.minLevel[capability] = level
	}
}

// WithConfirm forces capability's confirmation, in place of the tool's
// declared one: [toolreg.ConfirmSession], [toolreg.ConfirmAlways], or
// [toolreg.ConfirmNone] to turn confirmation off.
func WithConfirm(capability string, mode toolreg.Confirm) Option {
	return func(c *config) {
		switch mode {
		case toolreg.ConfirmNone, toolreg.ConfirmSession, toolreg.ConfirmAlways:
		default:
			c.fail("WithConfirm: capability %q: confirm %q is not \"session\", \"always\" or empty (off)", capability, mode)
			return
		}
		if capability == "" {
			c.fail("WithConfirm: empty capability")
			return
		}
		c.confirm[capability] = mode
	}
}

// WithConfirmer asks cf to confirm the calls of callers on platform ("" is
// [UnknownPlatform]); a later confirmer for the same platform replaces it.
// Calls that need confirmation on a platform without a confirmer are
// denied. A nil cf is an error.
func WithConfirmer(platform string, cf Confirmer) Option {
	return func(c *config) {
		if cf == nil {
			c.fail("WithConfirmer: nil confirmer for platform %q", platform)
			return
		}
		c.confirmers[Identity{Platform: platform}.normalized().Platform] = cf
	}
}

// WithDeferredApproval makes every confirmation on the given platforms a
// deferred request: the call fails with "confirmation_required" and a
// request id, a person answers later through [Authority.Approve] or
// [Authority.Reject], and the same call made again then proceeds once. It
// is WithConfirmer with a confirmer that always answers [Defer].
func WithDeferredApproval(platforms ...string) Option {
	return func(c *config) {
		for _, p := range platforms {
			WithConfirmer(p, deferAll)(c)
		}
	}
}

// WithClock makes the authority read the time from now, for expiry. nil
// keeps time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithLogger sends the authority's log lines to l; the default discards
// them, and nil keeps the default. No line carries argument values.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithRegistry lets the authority read tool schemas from r, so that
// arguments marked "x-sensitive": true read "[redacted]" in what a
// [Confirmer] receives and in stored requests. Without it the arguments are
// shown as the model wrote them.
func WithRegistry(r *toolreg.Registry) Option {
	return func(c *config) { c.registry = r }
}

// WithRequestTTL sets how long a deferred request waits for a decision, and
// how long a decision then waits for the call made again. d <= 0 keeps
// [DefaultRequestTTL].
func WithRequestTTL(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.requestTTL = d
		}
	}
}

// WithGrantTTL sets how long a grant lasts when the [Answer] that made it
// gave no duration. d <= 0 keeps [DefaultGrantTTL].
func WithGrantTTL(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.grantTTL = d
		}
	}
}

// WithConfirmTimeout bounds the wait for one confirmer's answer; past it the
// call is denied. d <= 0 keeps [DefaultConfirmTimeout].
func WithConfirmTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.confirmTimeout = d
		}
	}
}

// WithMaxPending bounds the live deferred requests of one session; beyond
// it, calls that would open another are denied. n <= 0 keeps
// [DefaultMaxPending].
func WithMaxPending(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxPending = n
		}
	}
}

// WithMaxGrants bounds the live grants of one session; beyond it, a new
// grant is not remembered (the call it came with still runs) and
// [Authority.Grant] fails with [ErrFull]. n <= 0 keeps [DefaultMaxGrants].
func WithMaxGrants(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxGrants = n
		}
	}
}

// WithMaxArgsBytes bounds the redacted arguments, as JSON, kept in a
// deferred request; larger ones are not kept (the request's Args is empty).
// n <= 0 keeps [DefaultMaxArgsBytes].
func WithMaxArgsBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxArgsBytes = n
		}
	}
}

// WithOnPending calls f each time the guard opens a deferred request (not
// when a retry finds the same request still pending), so the host can tell
// a person: send a chat message, show a page. f runs on the calling
// goroutine with no lock held, after the request is stored; it should
// return quickly. A panic in f is logged and changes nothing. nil removes
// the hook.
func WithOnPending(f func(Request)) Option {
	return func(c *config) { c.onPending = f }
}
