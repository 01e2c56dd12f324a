package authority_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

// fakeClock is a clock the tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.UnixMilli(1_760_000_000_000)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// asker is a confirmer that records what it is asked and gives one answer.
type asker struct {
	mu     sync.Mutex
	asked  []authority.ConfirmRequest
	answer authority.Answer
	err    error
}

func allowing(g authority.GrantScope) *asker {
	return &asker{answer: authority.Answer{Decision: authority.Allow, Grant: g}}
}

func (a *asker) confirm(_ context.Context, req authority.ConfirmRequest) (authority.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.answer, a.err
}

func (a *asker) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

func (a *asker) last() authority.ConfirmRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.asked[len(a.asked)-1]
}

var (
	owner    = authority.Identity{Platform: "chat", UserID: "olivia"}
	friend   = authority.Identity{Platform: "chat", UserID: "frank"}
	stranger = authority.Identity{Platform: "chat", UserID: "sam"}
)

// Policies of the test tools.
var (
	safe       = toolreg.PolicyDecl{Risk: toolreg.RiskSafe}
	sensitive  = toolreg.PolicyDecl{Risk: toolreg.RiskSensitive}
	dangerous  = toolreg.PolicyDecl{Risk: toolreg.RiskDangerous}
	undeclared = toolreg.PolicyDecl{}
)

// guardReq is what the registry would pass the guard for this call.
func guardReq(tool string, decl toolreg.PolicyDecl, id authority.Identity, session string, args map[string]any) toolreg.GuardRequest {
	p := toolreg.ResolvePolicy(decl, "")
	platform := id.Platform
	if platform == "" {
		platform = "unknown"
	}
	return toolreg.GuardRequest{Name: tool, Type: "tool", Visibility: p.Visibility, Confirm: p.Confirm, Risk: decl.Risk,
		SessionID: session, Platform: platform, UserID: id.UserID, Args: args}
}

// reasonOf is the Reason of the guard's answer, "" when it allowed.
func reasonOf(t *testing.T, err error) authority.Reason {
	t.Helper()
	if err == nil {
		return ""
	}
	var de *authority.DecisionError
	require.True(t, errors.As(err, &de), "the guard returned %T %v, want *DecisionError", err, err)
	if de.Reason == authority.ReasonPending {
		require.ErrorIs(t, err, toolreg.ErrConfirmationRequired)
		require.NotErrorIs(t, err, authority.ErrDenied)
	} else {
		require.ErrorIs(t, err, authority.ErrDenied)
		require.NotErrorIs(t, err, toolreg.ErrConfirmationRequired)
	}
	return de.Reason
}

// newAuthority builds an authority with olivia as owner, frank at level 1
// and the clock, plus opts.
func newAuthority(t *testing.T, clock *fakeClock, opts ...authority.Option) *authority.Authority {
	t.Helper()
	a, err := authority.New(append([]authority.Option{authority.WithOwners(owner), authority.WithClock(clock.Now)}, opts...)...)
	require.NoError(t, err)
	require.NoError(t, a.SetLevel(context.Background(), friend, 1))
	return a
}
