package authority_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

func TestNewRejectsInvalidOptions(t *testing.T) {
	var nilFile *authority.FileStore
	tests := []struct {
		name string
		opt  authority.Option
	}{
		{"a nil store", authority.WithStore(nil)},
		{"a typed nil store", authority.WithStore(nilFile)},
		{"an owner without user id", authority.WithOwners(authority.Identity{Platform: "chat"})},
		{"an owner with invalid UTF-8", authority.WithOwners(authority.Identity{Platform: "chat", UserID: "\xff"})},
		{"an empty deny glob", authority.WithDeny("")},
		{"an empty allow glob", authority.WithAllow("tool:x", "")},
		{"a negative minimum level", authority.WithMinLevel("tool:x", -1)},
		{"a minimum level without capability", authority.WithMinLevel("", 1)},
		{"an unknown confirm mode", authority.WithConfirm("tool:x", "sometimes")},
		{"a confirm override without capability", authority.WithConfirm("", toolreg.ConfirmAlways)},
		{"a nil confirmer", authority.WithConfirmer("chat", nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name+" is an error", func(t *testing.T) {
			a, err := authority.New(tc.opt)
			assert.Nil(t, a)
			assert.ErrorIs(t, err, authority.ErrInvalid)
		})
	}
	t.Run("every problem is reported at once", func(t *testing.T) {
		_, err := authority.New(authority.WithDeny(""), authority.WithMinLevel("tool:x", -1))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "WithDeny")
		assert.Contains(t, err.Error(), "WithMinLevel")
	})
	t.Run("nil options and defaults build an authority", func(t *testing.T) {
		a, err := authority.New(nil, authority.WithClock(nil), authority.WithLogger(nil), authority.WithRequestTTL(-1),
			authority.WithGrantTTL(0), authority.WithConfirmTimeout(0), authority.WithMaxPending(0),
			authority.WithMaxGrants(-3), authority.WithMaxArgsBytes(0))
		require.NoError(t, err)
		require.NoError(t, a.Guard()(context.Background(), guardReq("echo", safe, stranger, "s", nil)))
	})
}

func TestAutoConfirmWindow(t *testing.T) {
	ctx := context.Background()
	clock := newClock()
	ask := allowing("")
	a := newAuthority(t, clock, authority.WithConfirmer("chat", ask.confirm))
	g := a.Guard()
	always := toolreg.PolicyDecl{Risk: toolreg.RiskDangerous, Confirm: toolreg.ConfirmAlways}

	require.ErrorIs(t, a.AutoConfirm(ctx, friend, time.Hour), authority.ErrInvalid, "only owners have a window")
	require.NoError(t, a.AutoConfirm(ctx, owner, 10*time.Minute))

	require.NoError(t, g(ctx, guardReq("rm", dangerous, owner, "s1", nil)))
	require.NoError(t, g(ctx, guardReq("rm", dangerous, owner, "s2", nil)))
	assert.Equal(t, 0, ask.count(), "session confirmation is skipped in every session")
	require.NoError(t, g(ctx, guardReq("rm", always, owner, "s1", nil)))
	assert.Equal(t, 1, ask.count(), "always is still asked")

	require.NoError(t, g(ctx, guardReq("rm", toolreg.PolicyDecl{Visibility: toolreg.VisibilityPublic, Confirm: toolreg.ConfirmSession}, friend, "s1", nil)))
	assert.Equal(t, 2, ask.count(), "another caller's confirmation is not skipped")

	clock.Add(10 * time.Minute)
	require.NoError(t, g(ctx, guardReq("rm", dangerous, owner, "s1", nil)))
	assert.Equal(t, 3, ask.count(), "the window closed")

	require.NoError(t, a.AutoConfirm(ctx, owner, time.Hour))
	require.NoError(t, a.AutoConfirm(ctx, owner, 0))
	require.NoError(t, g(ctx, guardReq("rm", dangerous, owner, "s1", nil)))
	assert.Equal(t, 4, ask.count(), "a zero window closes it")

	err := a.Grant(ctx, authority.Grant{Key: authority.Key{Identity: owner, Capability: "*"}})
	assert.ErrorIs(t, err, authority.ErrInvalid, "the window's capability is reserved")
}

func TestGrantsAdministration(t *testing.T) {
	ctx := context.Background()
	clock := newClock()
	a := newAuthority(t, clock, authority.WithMaxGrants(2), authority.WithGrantTTL(time.Minute))
	noPlatform := authority.Identity{UserID: "sam"}
	require.NoError(t, a.Grant(ctx, authority.Grant{Key: authority.Key{Identity: noPlatform, SessionID: "s", Capability: "tool:a"}}))
	require.NoError(t, a.Grant(ctx, authority.Grant{Key: authority.Key{Identity: noPlatform, SessionID: "s", Capability: "tool:b"}, UsesLeft: 2}))
	err := a.Grant(ctx, authority.Grant{Key: authority.Key{Identity: noPlatform, SessionID: "s", Capability: "tool:c"}})
	assert.ErrorIs(t, err, authority.ErrFull)

	gs, err := a.Grants(ctx, authority.Identity{Platform: "unknown", UserID: "sam"}, "s")
	require.NoError(t, err)
	require.Len(t, gs, 2)
	assert.Equal(t, "unknown", gs[0].Platform, "an empty platform is stored as unknown")
	assert.Equal(t, authority.Unlimited, gs[0].UsesLeft, "zero uses means unlimited")
	assert.Equal(t, clock.Now().Add(time.Minute), gs[0].Expires, "zero expiry means the grant TTL")
	assert.Equal(t, 2, gs[1].UsesLeft)

	require.NoError(t, a.Revoke(ctx, authority.Key{Identity: noPlatform, SessionID: "s", Capability: "tool:a"}))
	gs, err = a.Grants(ctx, noPlatform, "s")
	require.NoError(t, err)
	require.Len(t, gs, 1)

	level, err := a.Level(ctx, friend)
	require.NoError(t, err)
	assert.Equal(t, 1, level)
	assert.ErrorIs(t, a.SetLevel(ctx, authority.Identity{UserID: "\xff"}, 1), authority.ErrInvalid)
	assert.True(t, a.IsOwner(owner))
	assert.False(t, a.IsOwner(friend))
}

func TestHostileCallers(t *testing.T) {
	ctx := context.Background()
	a := newAuthority(t, newClock(), authority.WithConfirmer("chat", allowing(authority.GrantSession).confirm))
	g := a.Guard()
	tests := []struct {
		name string
		req  toolreg.GuardRequest
		want authority.Reason
	}{
		{"invalid UTF-8 in the user id", guardReq("echo", safe, authority.Identity{Platform: "chat", UserID: "olivia\xff"}, "s", nil), authority.ReasonInvalidCaller},
		{"invalid UTF-8 in the session", guardReq("echo", safe, owner, "s\xfe", nil), authority.ReasonInvalidCaller},
		{"a huge user id", guardReq("echo", safe, authority.Identity{Platform: "chat", UserID: strings.Repeat("a", 5000)}, "s", nil), authority.ReasonInvalidCaller},
		{"a user id that differs from an owner's by a NUL", guardReq("rm", sensitive, authority.Identity{Platform: "chat", UserID: "olivia\x00"}, "s", nil), authority.ReasonLevel},
		{"an owner's user id on another platform", guardReq("rm", sensitive, authority.Identity{Platform: "chat2", UserID: "olivia"}, "s", nil), authority.ReasonLevel},
		{"an unknown risk is read as unset", toolreg.GuardRequest{Name: "rm", Risk: "catastrophic", Visibility: toolreg.VisibilityRestricted, Platform: "chat", UserID: "frank"}, authority.ReasonLevel},
		{"an unknown confirm asks every time", toolreg.GuardRequest{Name: "rm", Confirm: "maybe", Platform: "chat", UserID: "olivia"}, ""},
		{"deeply nested arguments cannot be approved", guardReq("rm", dangerous, owner, "s", nested(10000)), authority.ReasonInvalidArgs},
		{"a NaN argument cannot be approved", guardReq("rm", dangerous, owner, "s", map[string]any{"x": nan()}), authority.ReasonInvalidArgs},
		{"a func argument cannot be approved", guardReq("rm", dangerous, owner, "s", map[string]any{"x": func() {}}), authority.ReasonInvalidArgs},
		{"arguments with no JSON form need no digest when nothing is approved", guardReq("rm", sensitive, owner, "s", map[string]any{"x": nan()}), ""},
		{"arguments with no JSON form leave a caller below the level where it was", guardReq("rm", sensitive, stranger, "s", map[string]any{"x": nan()}), authority.ReasonLevel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, reasonOf(t, g(ctx, tc.req)))
		})
	}
}

func nested(depth int) map[string]any {
	m := map[string]any{"leaf": true}
	for range depth {
		m = map[string]any{"n": m}
	}
	return m
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

// failingStore fails every operation.
type failingStore struct{ *authority.MemoryStore }

var errStoreDown = errors.New("store is down")

func (*failingStore) Level(context.Context, authority.Identity) (int, error) { return 0, errStoreDown }
func (*failingStore) UseGrant(context.Context, authority.Key, time.Time) (authority.Grant, bool, error) {
	return authority.Grant{}, false, errStoreDown
}
func (*failingStore) Grants(context.Context, authority.Identity, string, time.Time) ([]authority.Grant, error) {
	return nil, errStoreDown
}
func (*failingStore) TakeDecision(context.Context, authority.Key, time.Time) (authority.Request, bool, error) {
	return authority.Request{}, false, errStoreDown
}
func (*failingStore) OpenRequest(context.Context, authority.Request, int, time.Time) (authority.Request, error) {
	return authority.Request{}, errStoreDown
}

func TestStoreFailureDenies(t *testing.T) {
	ctx := context.Background()
	a, err := authority.New(authority.WithStore(&failingStore{authority.NewMemoryStore()}), authority.WithOwners(owner),
		authority.WithDeferredApproval("chat"))
	require.NoError(t, err)
	for _, r := range []toolreg.GuardRequest{
		guardReq("rm", sensitive, friend, "s", nil), // level lookup
		guardReq("rm", dangerous, owner, "s", nil),  // grant lookup
	} {
		err := a.Guard()(ctx, r)
		assert.Equal(t, authority.ReasonUnavailable, reasonOf(t, err))
		assert.NotContains(t, err.Error(), "store is down")
		var de *authority.DecisionError
		require.ErrorAs(t, err, &de)
		assert.ErrorIs(t, de.Err, errStoreDown, "the cause is kept for the host")
	}
}

func TestNoLockIsHeldWhileAConfirmerWaits(t *testing.T) {
	ctx := context.Background()
	waiting := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	a := newAuthority(t, newClock(), authority.WithConfirmer("chat", func(ctx context.Context, r authority.ConfirmRequest) (authority.Answer, error) {
		if r.Args["slow"] == true {
			once.Do(func() { close(waiting) })
			<-release
		}
		return authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession}, nil
	}))
	g := a.Guard()
	done := make(chan error, 1)
	go func() { done <- g(ctx, guardReq("rm", dangerous, owner, "s1", map[string]any{"slow": true})) }()
	<-waiting
	// While one call waits for a person, everything else goes on.
	require.NoError(t, g(ctx, guardReq("rm", dangerous, owner, "s2", nil)))
	require.NoError(t, a.SetLevel(ctx, stranger, 1))
	require.NoError(t, a.Grant(ctx, authority.Grant{Key: authority.Key{Identity: stranger, SessionID: "s", Capability: "tool:x"}}))
	_, err := a.Grants(ctx, owner, "s2")
	require.NoError(t, err)
	close(release)
	require.NoError(t, <-done)
}

func TestGuardIsSafeForConcurrentUse(t *testing.T) {
	ctx := context.Background()
	a := newAuthority(t, newClock(), authority.WithConfirmer("chat", allowing(authority.GrantOnce).confirm),
		authority.WithDeferredApproval("web"), authority.WithOwners(authority.Identity{Platform: "web", UserID: "w"}))
	g := a.Guard()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 50 {
				args := map[string]any{"i": float64(i), "j": float64(j % 5)}
				_ = g(ctx, guardReq("rm", dangerous, owner, "s", args))
				_ = g(ctx, guardReq("rm", sensitive, friend, "s", args))
				err := g(ctx, guardReq("rm", dangerous, authority.Identity{Platform: "web", UserID: "w"}, "s", args))
				var de *authority.DecisionError
				if errors.As(err, &de) && de.RequestID != "" && j%2 == 0 {
					_, _ = a.Approve(ctx, de.RequestID)
				}
				_ = a.SetLevel(ctx, stranger, j%3)
			}
		})
	}
	wg.Wait()
}
