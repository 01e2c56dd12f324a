package authority

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolreg/toolreg"
)

// Guard returns the authority as a [toolreg.ExecutionGuard], for
// [toolreg.Registry.SetExecutionGuard] or [toolreg.ChainGuards]. It reads
// the caller from each request (platform, user, session), never from
// anything global, so one guard serves every caller.
//
// For each call it decides, in this order:
//
//  1. A hard-deny glob ([WithDeny]) matching the capability refuses it,
//     for everyone, owners included.
//  2. An owner is authorized.
//  3. Anyone else is refused when banned (negative level), and authorized
//     when their level reaches the capability's minimum ([WithMinLevel],
//     else [toolreg.MinLevel] of the tool's risk and visibility). Below it,
//     only what an owner set up beforehand admits the caller: an allow glob
//     ([WithAllow]) or an authorizing grant ([Authority.Grant]). The caller
//     is never asked to approve its own call.
//  4. Confirmation, for authorized callers, owners included: the
//     capability's override ([WithConfirm]) or the tool's resolved confirm.
//     "session" is skipped for a SkipConfirm caller, by an owner's
//     auto-confirm window and by a live grant; "always" is asked every time.
//     A decided deferred request for this very call answers first; else the
//     platform's [Confirmer] is asked.
//
// A refusal is a [*DecisionError] wrapping [ErrDenied]; a deferred request
// wraps [toolreg.ErrConfirmationRequired], so the registry answers
// "confirmation_required". A store failure denies.
func (a *Authority) Guard() toolreg.ExecutionGuard { return a.check }

// call is one guard decision in progress.
type call struct {
	req       toolreg.GuardRequest
	id        Identity
	cap       string
	owner     bool
	digest    string // computed by digestArgs
	digestErr error
	digested  bool
}

func (c *call) key(digest string) Key {
	return Key{Identity: c.id, SessionID: c.req.SessionID, Capability: c.cap, Digest: digest}
}

// digestArgs computes the arguments' digest once. Arguments with no JSON
// form have none: approvals cannot be bound to them.
func (c *call) digestArgs() error {
	if !c.digested {
		c.digest, c.digestErr = toolreg.DigestArgs(c.req.Args)
		c.digested = true
	}
	return c.digestErr
}

// argsDigest is the digest computed by digestArgs, which must have
// succeeded.
func (c *call) argsDigest() string { return c.digest }

func (c *call) refuse(r Reason, err error) *DecisionError {
	return &DecisionError{Tool: c.req.Name, Capability: c.cap, Platform: c.id.Platform, Reason: r, Err: err}
}

func (a *Authority) check(ctx context.Context, req toolreg.GuardRequest) error {
	c := &call{req: req, id: Identity{req.Platform, req.UserID}.normalized(), cap: Capability(req.Name)}
	err := a.decide(ctx, c)
	if err != nil {
		a.cfg.logger.Info("authority: call not allowed", "tool", req.Name, "platform", c.id.Platform,
			"session", req.SessionID, "reason", string(err.Reason), "error", err.Err)
		return err
	}
	return nil
}

func (a *Authority) decide(ctx context.Context, c *call) *DecisionError {
	if !validText(c.id.Platform, c.id.UserID, c.req.SessionID) {
		return c.refuse(ReasonInvalidCaller, nil)
	}
	if matchAny(a.cfg.deny, c.cap) {
		return c.refuse(ReasonHardDeny, nil)
	}
	c.owner = a.IsOwner(c.id)
	admittedByGrant := false
	if !c.owner {
		level, err := a.cfg.store.Level(ctx, c.id)
		if err != nil {
			return c.refuse(ReasonUnavailable, err)
		}
		if level < 0 {
			return c.refuse(ReasonBanned, nil)
		}
		if min := a.minLevel(c.cap, c.req.Risk, c.req.Visibility); level < min && !matchAny(a.cfg.allow, c.cap) {
			ok, err := a.useAuthorizingGrant(ctx, c)
			if err != nil {
				return c.refuse(ReasonUnavailable, err)
			}
			if !ok {
				e := c.refuse(ReasonLevel, nil)
				e.MinLevel = min
				return e
			}
			admittedByGrant = true
		}
	}
	mode := a.confirmMode(c.cap, c.req.Confirm)
	if mode == toolreg.ConfirmNone || mode == toolreg.ConfirmSession && (c.req.SkipConfirm || admittedByGrant) {
		return nil
	}
	if err := c.digestArgs(); err != nil {
		return c.refuse(ReasonInvalidArgs, err)
	}
	if mode == toolreg.ConfirmSession {
		ok, err := a.remembered(ctx, c)
		if err != nil {
			return c.refuse(ReasonUnavailable, err)
		}
		if ok {
			return nil
		}
	}
	return a.confirm(ctx, c, mode)
}

// minLevel is the level a capability needs: its override, else the tool's.
func (a *Authority) minLevel(capability string, r toolreg.Risk, v toolreg.Visibility) int {
	if l, ok := a.cfg.minLevel[capability]; ok {
		return l
	}
	return toolreg.MinLevel(r, v)
}

// confirmMode is a capability's confirmation: its override, else the
// tool's resolved confirm. An unknown value asks every time.
func (a *Authority) confirmMode(capability string, declared toolreg.Confirm) toolreg.Confirm {
	if m, ok := a.cfg.confirm[capability]; ok {
		return m
	}
	switch declared {
	case toolreg.ConfirmNone, toolreg.ConfirmSession:
		return declared
	}
	return toolreg.ConfirmAlways
}

// useAuthorizingGrant takes one use of a grant an owner set up for this
// caller, session and capability: first one bound to these arguments, then
// one for any arguments. Grants without Authorizes are not touched.
func (a *Authority) useAuthorizingGrant(ctx context.Context, c *call) (bool, error) {
	now := a.cfg.clock()
	grants, err := a.cfg.store.Grants(ctx, c.id, c.req.SessionID, now)
	if err != nil {
		return false, err
	}
	bound := c.digestArgs() == nil // arguments with no digest match only grants for any arguments
	var exact, any bool
	for _, g := range grants {
		if g.Capability != c.cap || !g.Authorizes {
			continue
		}
		switch {
		case g.Digest == "":
			any = true
		case bound && g.Digest == c.argsDigest():
			exact = true
		}
	}
	for _, try := range []struct {
		ok     bool
		digest string
	}{{exact, c.argsDigest()}, {any, ""}} {
		if !try.ok {
			continue
		}
		g, ok, err := a.cfg.store.UseGrant(ctx, c.key(try.digest), now)
		if err != nil {
			return false, err
		}
		if ok && g.Authorizes {
			return true, nil
		}
	}
	return false, nil
}

// remembered reports whether an earlier approval covers a "session"
// confirmation: an owner's auto-confirm window, a grant for these
// arguments, or a grant for the whole session. It takes one use of the
// grant it relies on.
func (a *Authority) remembered(ctx context.Context, c *call) (bool, error) {
	now := a.cfg.clock()
	if c.owner {
		if _, ok, err := a.cfg.store.UseGrant(ctx, autoConfirmKey(c.id), now); err != nil || ok {
			return ok, err
		}
	}
	for _, digest := range []string{c.argsDigest(), ""} {
		if _, ok, err := a.cfg.store.UseGrant(ctx, c.key(digest), now); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// confirm settles a confirmation that nothing remembered covers: a decided
// deferred request for this very call, else the platform's confirmer.
func (a *Authority) confirm(ctx context.Context, c *call, mode toolreg.Confirm) *DecisionError {
	now := a.cfg.clock()
	if r, ok, err := a.cfg.store.TakeDecision(ctx, c.key(c.argsDigest()), now); err != nil {
		return c.refuse(ReasonUnavailable, err)
	} else if ok {
		if r.State == RequestApproved {
			a.cfg.logger.Info("authority: approved request consumed", "request", r.ID, "tool", c.req.Name,
				"platform", c.id.Platform, "session", c.req.SessionID)
			return nil
		}
		e := c.refuse(ReasonRejected, nil)
		e.RequestID = r.ID
		return e
	}
	cf := a.cfg.confirmers[c.id.Platform]
	if cf == nil {
		return c.refuse(ReasonNoConfirmer, nil)
	}
	redacted := a.redact(c.req.Name, c.req.Args)
	ans, reason, err := a.ask(ctx, cf, ConfirmRequest{
		Tool: c.req.Name, Capability: c.cap, Identity: c.id, SessionID: c.req.SessionID,
		Owner: c.owner, Confirm: mode, Risk: c.req.Risk,
		Args: redacted, ArgsDigest: c.argsDigest(),
	})
	if reason != "" {
		return c.refuse(reason, err)
	}
	switch ans.Decision {
	case Allow:
		if mode == toolreg.ConfirmSession {
			a.remember(ctx, c, ans)
		}
		return nil
	case Defer:
		return a.openRequest(ctx, c, redacted)
	}
	e := c.refuse(ReasonDeclined, nil)
	e.Detail = detail(ans.Reason)
	return e
}

// remember stores the grant an Allow asked for. Failing to store it does
// not deny the call the person allowed; it is logged, and the next call
// asks again.
func (a *Authority) remember(ctx context.Context, c *call, ans Answer) {
	var g Grant
	switch ans.Grant {
	case GrantOnce:
		g = Grant{Key: c.key(c.argsDigest()), UsesLeft: 1}
	case GrantSession:
		g = Grant{Key: c.key(""), UsesLeft: Unlimited}
	default:
		return
	}
	if ans.Uses > 0 {
		g.UsesLeft = ans.Uses
	}
	now := a.cfg.clock()
	d := ans.For
	if d <= 0 {
		d = a.cfg.grantTTL
	}
	g.Expires = now.Add(d)
	if err := a.cfg.store.PutGrant(ctx, g, a.cfg.maxGrants, now); err != nil {
		a.cfg.logger.Warn("authority: grant not remembered", "tool", c.req.Name, "platform", c.id.Platform,
			"session", c.req.SessionID, "error", err)
	}
}

// openRequest opens (or finds) the deferred request for this call and
// answers confirmation_required with its id.
func (a *Authority) openRequest(ctx context.Context, c *call, redacted map[string]any) *DecisionError {
	now := a.cfg.clock()
	args, err := json.Marshal(redacted)
	if err != nil || len(args) > a.cfg.maxArgsBytes {
		args = nil
	}
	id := newRequestID()
	r, err := a.cfg.store.OpenRequest(ctx, Request{
		ID: id, Key: c.key(c.argsDigest()), Tool: c.req.Name, Args: args,
		State: RequestPending, Created: now, Expires: now.Add(a.cfg.requestTTL),
	}, a.cfg.maxPending, now)
	switch {
	case errors.Is(err, ErrFull):
		return c.refuse(ReasonTooMany, err)
	case err != nil:
		return c.refuse(ReasonUnavailable, err)
	}
	if r.ID == id && a.cfg.onPending != nil {
		a.notifyPending(r)
	}
	e := c.refuse(ReasonPending, nil)
	e.RequestID = r.ID
	return e
}

func (a *Authority) notifyPending(r Request) {
	defer func() {
		if p := recover(); p != nil {
			a.cfg.logger.Error("authority: recovered panic in the pending hook", "request", r.ID, "panic", fmt.Sprint(p))
		}
	}()
	a.cfg.onPending(r)
}
