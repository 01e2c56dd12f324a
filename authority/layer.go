package authority

import (
	"context"
	"fmt"

	"github.com/toolreg/toolreg"
)

// LayerName is the name of the layers [Authority.Layer] returns, as
// refusals and [toolreg.Registry.Explain] show it.
const LayerName = "authority"

// Layer returns a [toolreg.Layer] that hides from a caller's listing the
// tools it can never run: hard-denied ones (for owners too), every tool for
// a banned caller, and tools whose minimum level is above the caller's,
// unless an allow glob or an authorizing grant of this session admits
// them. Tools that only need confirmation stay offered. Put it in the
// caller's [toolreg.Access] for listing and executing alike; a hidden tool
// then reads as an unknown name.
//
// The layer reads the store once, here: it holds the caller's level and
// grants as they are now, so Admit is pure and fast. Build a new one per
// turn (or when levels or grants change); the guard still decides every
// call on the current state. On error it returns a nil Layer, which a
// registry treats as admitting nothing.
func (a *Authority) Layer(ctx context.Context, id Identity, sessionID string) (toolreg.Layer, error) {
	id = id.normalized()
	if !validText(id.Platform, id.UserID, sessionID) {
		return nil, fmt.Errorf("%w: identity %q or its session holds invalid UTF-8 or a string over %d bytes", ErrInvalid, id, maxTextBytes)
	}
	l := &layer{a: a, owner: a.IsOwner(id)}
	if l.owner {
		return l, nil
	}
	level, err := a.cfg.store.Level(ctx, id)
	if err != nil {
		return nil, err
	}
	l.level = level
	if level < 0 {
		return l, nil
	}
	grants, err := a.cfg.store.Grants(ctx, id, sessionID, a.cfg.clock())
	if err != nil {
		return nil, err
	}
	for _, g := range grants {
		if g.Authorizes {
			if l.granted == nil {
				l.granted = map[string]bool{}
			}
			l.granted[g.Capability] = true
		}
	}
	return l, nil
}

// layer is one caller's view of the authority at one moment.
type layer struct {
	a       *Authority
	owner   bool
	level   int
	granted map[string]bool // capabilities an authorizing grant of the session covers
}

func (l *layer) Name() string { return LayerName }

func (l *layer) Admit(t toolreg.ToolInfo) toolreg.Verdict {
	capability := Capability(t.Name)
	switch {
	case matchAny(l.a.cfg.deny, capability):
		return toolreg.Verdict{Reason: "denied by policy"}
	case l.owner:
		return toolreg.Verdict{Allowed: true}
	case l.level < 0:
		return toolreg.Verdict{Reason: "the caller is banned"}
	}
	min := l.a.minLevel(capability, t.Risk, t.Visibility)
	if l.level >= min || matchAny(l.a.cfg.allow, capability) || l.granted[capability] {
		return toolreg.Verdict{Allowed: true}
	}
	return toolreg.Verdict{Reason: fmt.Sprintf("needs authority level %d", min)}
}
