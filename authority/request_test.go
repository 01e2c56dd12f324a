package authority_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

// pendingID returns the request id of a confirmation_required answer.
func pendingID(t *testing.T, err error) string {
	t.Helper()
	require.Equal(t, authority.ReasonPending, reasonOf(t, err), "%v", err)
	var de *authority.DecisionError
	require.ErrorAs(t, err, &de)
	require.Len(t, de.RequestID, 32)
	return de.RequestID
}

func TestDeferredApproval(t *testing.T) {
	ctx := context.Background()
	args := map[string]any{"path": "/tmp/x"}
	other := map[string]any{"path": "/tmp/y"}
	setup := func(t *testing.T, opts ...authority.Option) (*authority.Authority, toolreg.ExecutionGuard, *fakeClock) {
		clock := newClock()
		a := newAuthority(t, clock, append([]authority.Option{authority.WithDeferredApproval("web")}, opts...)...)
		return a, a.Guard(), clock
	}
	webOwner := authority.Identity{Platform: "web", UserID: "olivia"}
	call := func(g toolreg.ExecutionGuard, args map[string]any) error {
		return g(ctx, guardReq("rm", dangerous, webOwner, "s1", args))
	}
	setupOwner := func(t *testing.T, opts ...authority.Option) (*authority.Authority, toolreg.ExecutionGuard, *fakeClock) {
		return setup(t, append([]authority.Option{authority.WithOwners(webOwner)}, opts...)...)
	}

	t.Run("the guard answers confirmation_required with a request id, the same while it is pending", func(t *testing.T) {
		a, g, _ := setupOwner(t)
		err := call(g, args)
		id := pendingID(t, err)
		assert.Contains(t, err.Error(), id)
		assert.Equal(t, id, pendingID(t, call(g, args)), "a retry finds the same request")
		assert.NotEqual(t, id, pendingID(t, call(g, other)), "other arguments are another request")
		r, err := a.Request(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, authority.RequestPending, r.State)
		assert.Equal(t, "rm", r.Tool)
		assert.Equal(t, toolreg.ArgsDigest(args), r.Key.Digest)
		assert.Equal(t, webOwner, r.Key.Identity)
		assert.JSONEq(t, `{"path":"/tmp/x"}`, string(r.Args))
	})
	t.Run("once approved, the same call proceeds exactly once", func(t *testing.T) {
		a, g, _ := setupOwner(t)
		id := pendingID(t, call(g, args))
		r, err := a.Approve(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, authority.RequestApproved, r.State)
		assert.Equal(t, authority.ReasonPending, reasonOf(t, call(g, other)), "other arguments are not approved")
		require.NoError(t, call(g, args))
		next := pendingID(t, call(g, args))
		assert.NotEqual(t, id, next, "the approval was consumed; a new request is opened")
	})
	t.Run("the approval is for the same session and caller only", func(t *testing.T) {
		a, g, _ := setupOwner(t, authority.WithOwners(authority.Identity{Platform: "web", UserID: "omar"}))
		id := pendingID(t, call(g, args))
		_, err := a.Approve(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, authority.ReasonPending, reasonOf(t, g(ctx, guardReq("rm", dangerous, webOwner, "s2", args))))
		assert.Equal(t, authority.ReasonPending, reasonOf(t, g(ctx, guardReq("rm", dangerous, authority.Identity{Platform: "web", UserID: "omar"}, "s1", args))))
		require.NoError(t, call(g, args))
	})
	t.Run("a rejected request denies the next call once", func(t *testing.T) {
		a, g, _ := setupOwner(t)
		id := pendingID(t, call(g, args))
		_, err := a.Reject(ctx, id)
		require.NoError(t, err)
		err = call(g, args)
		assert.Equal(t, authority.ReasonRejected, reasonOf(t, err))
		assert.Contains(t, err.Error(), id)
		pendingID(t, call(g, args))
	})
	t.Run("a request and an approval expire", func(t *testing.T) {
		a, g, clock := setupOwner(t, authority.WithRequestTTL(10*time.Minute))
		id := pendingID(t, call(g, args))
		clock.Add(10 * time.Minute)
		_, err := a.Approve(ctx, id)
		assert.ErrorIs(t, err, authority.ErrNotFound)
		_, err = a.Request(ctx, id)
		assert.ErrorIs(t, err, authority.ErrNotFound)

		id = pendingID(t, call(g, args))
		clock.Add(9 * time.Minute)
		_, err = a.Approve(ctx, id)
		require.NoError(t, err, "approved within its time")
		clock.Add(10 * time.Minute)
		assert.Equal(t, authority.ReasonPending, reasonOf(t, call(g, args)), "the approval lapsed before the call came back")
	})
	t.Run("approving twice, or an unknown id, fails", func(t *testing.T) {
		a, g, _ := setupOwner(t)
		id := pendingID(t, call(g, args))
		_, err := a.Approve(ctx, id)
		require.NoError(t, err)
		_, err = a.Reject(ctx, id)
		assert.ErrorIs(t, err, authority.ErrResolved)
		_, err = a.Approve(ctx, "0123")
		assert.ErrorIs(t, err, authority.ErrNotFound)
	})
	t.Run("a session holds a bounded number of pending requests", func(t *testing.T) {
		_, g, _ := setupOwner(t, authority.WithMaxPending(2))
		pendingID(t, call(g, map[string]any{"n": 1.0}))
		pendingID(t, call(g, map[string]any{"n": 2.0}))
		assert.Equal(t, authority.ReasonTooMany, reasonOf(t, call(g, map[string]any{"n": 3.0})))
		pendingID(t, call(g, map[string]any{"n": 1.0}))
	})
	t.Run("arguments too large to keep are left out of the request", func(t *testing.T) {
		a, g, _ := setupOwner(t, authority.WithMaxArgsBytes(10))
		id := pendingID(t, call(g, map[string]any{"text": "a long piece of text"}))
		r, err := a.Request(ctx, id)
		require.NoError(t, err)
		assert.Empty(t, r.Args)
		assert.Equal(t, toolreg.ArgsDigest(map[string]any{"text": "a long piece of text"}), r.Key.Digest)
	})
	t.Run("arguments with no JSON form open no request", func(t *testing.T) {
		_, g, _ := setupOwner(t)
		assert.Equal(t, authority.ReasonInvalidArgs, reasonOf(t, call(g, map[string]any{"x": func() {}})))
	})
	t.Run("an unauthorized caller gets no request", func(t *testing.T) {
		_, g, _ := setup(t)
		err := g(ctx, guardReq("rm", dangerous, authority.Identity{Platform: "web", UserID: "sam"}, "s1", args))
		assert.Equal(t, authority.ReasonLevel, reasonOf(t, err))
	})
	t.Run("a confirmer may defer one request and answer another", func(t *testing.T) {
		a := newAuthority(t, newClock(), authority.WithConfirmer("chat", func(_ context.Context, r authority.ConfirmRequest) (authority.Answer, error) {
			if r.Args["later"] == true {
				return authority.Answer{Decision: authority.Defer}, nil
			}
			return authority.Answer{Decision: authority.Allow}, nil
		}))
		require.NoError(t, a.Guard()(ctx, guardReq("rm", dangerous, owner, "s1", nil)))
		pendingID(t, a.Guard()(ctx, guardReq("rm", dangerous, owner, "s1", map[string]any{"later": true})))
	})
	t.Run("sensitive values are redacted in the stored request", func(t *testing.T) {
		reg := toolreg.New()
		_, err := reg.Register(toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: "rm", Description: "Remove.",
				Parameters: toolreg.Parameters{Properties: map[string]any{"token": map[string]any{"type": "string", "x-sensitive": true}}}}},
			Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "", nil },
		}, "p")
		require.NoError(t, err)
		a, g, _ := setupOwner(t, authority.WithRegistry(reg))
		id := pendingID(t, call(g, map[string]any{"token": "s3cret"}))
		r, err := a.Request(ctx, id)
		require.NoError(t, err)
		var stored map[string]any
		require.NoError(t, json.Unmarshal(r.Args, &stored))
		assert.Equal(t, map[string]any{"token": "[redacted]"}, stored)
	})
	t.Run("the pending hook hears of each new request once", func(t *testing.T) {
		var heard []authority.Request
		a, g, _ := setupOwner(t, authority.WithOnPending(func(r authority.Request) { heard = append(heard, r) }))
		id := pendingID(t, call(g, args))
		pendingID(t, call(g, args))
		require.Len(t, heard, 1)
		assert.Equal(t, id, heard[0].ID)
		assert.Equal(t, authority.RequestPending, heard[0].State)
		_, err := a.Approve(ctx, id)
		require.NoError(t, err)
		require.NoError(t, call(g, args))
		pendingID(t, call(g, args))
		assert.Len(t, heard, 2)
	})
	t.Run("a panicking pending hook changes nothing", func(t *testing.T) {
		_, g, _ := setupOwner(t, authority.WithOnPending(func(authority.Request) { panic("boom") }))
		pendingID(t, call(g, args))
	})
	t.Run("request ids are unguessable and distinct", func(t *testing.T) {
		_, g, _ := setupOwner(t, authority.WithMaxPending(64))
		seen := map[string]bool{}
		for i := range 50 {
			id := pendingID(t, call(g, map[string]any{"n": float64(i)}))
			require.False(t, seen[id])
			seen[id] = true
		}
	})
}
