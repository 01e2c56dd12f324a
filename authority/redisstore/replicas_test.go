package redisstore_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
	"github.com/toolreg/toolreg/authority/redisstore"
)

// replica is one agent server: its own registry, authority, Redis client
// and store, sharing only the Redis server and the key prefix.
type replica struct {
	reg  *toolreg.Registry
	auth *authority.Authority
}

var webOwner = authority.Identity{Platform: "web", UserID: "olivia"}

// newReplicas builds n replicas whose "delete_files" tool (dangerous)
// counts its runs in runs.
func newReplicas(t *testing.T, n int, runs *atomic.Int32, opts ...authority.Option) []replica {
	t.Helper()
	prefix := newPrefix()
	out := make([]replica, n)
	for i := range out {
		store := redisstore.New(newClient(t), redisstore.WithPrefix(prefix))
		a, err := authority.New(append([]authority.Option{authority.WithStore(store), authority.WithOwners(webOwner),
			authority.WithDeferredApproval("web")}, opts...)...)
		require.NoError(t, err)
		reg := toolreg.New()
		_, err = reg.Register(toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: "delete_files", Description: "Delete files.",
				Parameters: toolreg.Parameters{Properties: map[string]any{"path": map[string]any{"type": "string"}}, Required: []string{"path"}}}},
			Risk: toolreg.RiskDangerous,
			Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
				runs.Add(1)
				return "deleted", nil
			},
		}, "files")
		require.NoError(t, err)
		reg.SetExecutionGuard(a.Guard())
		out[i] = replica{reg: reg, auth: a}
	}
	return out
}

// requestID reads the request id of a confirmation_required result.
func requestID(t *testing.T, a *authority.Authority, res toolreg.Result) string {
	t.Helper()
	require.Equal(t, toolreg.CodeConfirmationRequired, res.Code, res.Content)
	var f struct{ Error string }
	require.NoError(t, json.Unmarshal([]byte(res.Content), &f))
	// The id is the only 32-character hex word in the message.
	for i := 0; i+32 <= len(f.Error); i++ {
		id := f.Error[i : i+32]
		if _, err := a.Request(context.Background(), id); err == nil {
			return id
		}
	}
	t.Fatalf("no live request id in %q", f.Error)
	return ""
}

func TestTwoReplicasConsumeOneApprovalExactlyOnce(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	replicas := newReplicas(t, 2, &runs)
	one, two := replicas[0], replicas[1]
	call := toolreg.CallContext{SessionID: "s1", Platform: "web", UserID: "olivia"}
	args := map[string]any{"path": "/srv/old"}

	// The model calls on replica one; a person approves through replica one.
	id := requestID(t, one.auth, one.reg.Call(ctx, "delete_files", args, call))
	r, err := one.auth.Approve(ctx, id)
	require.NoError(t, err)
	require.Equal(t, authority.RequestApproved, r.State)

	// 100 retries race, split across both replicas.
	const retries = 100
	var wg sync.WaitGroup
	results := make([]toolreg.Result, retries)
	start := make(chan struct{})
	for i := range retries {
		rep := replicas[i%2]
		wg.Go(func() {
			<-start
			results[i] = rep.reg.Call(ctx, "delete_files", args, call)
		})
	}
	close(start)
	wg.Wait()

	ok, pending := 0, 0
	for _, res := range results {
		switch res.Code {
		case "":
			ok++
		case toolreg.CodeConfirmationRequired:
			pending++
		default:
			t.Errorf("unexpected result %s", res.Content)
		}
	}
	assert.Equal(t, 1, ok, "exactly one retry ran")
	assert.Equal(t, retries-1, pending, "every other retry needs a new approval")
	assert.Equal(t, int32(1), runs.Load(), "the handler ran exactly once across both replicas")

	// The others now wait on one new request, visible from either replica.
	next := requestID(t, two.auth, two.reg.Call(ctx, "delete_files", args, call))
	assert.NotEqual(t, id, next)
	assert.Equal(t, next, requestID(t, one.auth, one.reg.Call(ctx, "delete_files", args, call)))
}

func TestApprovalOnOneReplicaIsConsumedOnTheOther(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	replicas := newReplicas(t, 2, &runs)
	one, two := replicas[0], replicas[1]
	call := toolreg.CallContext{SessionID: "s1", Platform: "web", UserID: "olivia"}
	args := map[string]any{"path": "/srv/old"}

	id := requestID(t, one.auth, one.reg.Call(ctx, "delete_files", args, call))
	_, err := two.auth.Approve(ctx, id)
	require.NoError(t, err, "the other replica sees the request")
	_, err = one.auth.Reject(ctx, id)
	require.ErrorIs(t, err, authority.ErrResolved, "and its decision")
	assert.Equal(t, toolreg.CodeConfirmationRequired, two.reg.Call(ctx, "delete_files", map[string]any{"path": "/"}, call).Code,
		"other arguments are not approved")
	assert.Equal(t, "", one.reg.Call(ctx, "delete_files", args, call).Code)
	assert.Equal(t, toolreg.CodeConfirmationRequired, two.reg.Call(ctx, "delete_files", args, call).Code)
	assert.Equal(t, int32(1), runs.Load())
}

func TestReplicasShareLevelsAndGrants(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	ask := func(context.Context, authority.ConfirmRequest) (authority.Answer, error) {
		return authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession}, nil
	}
	replicas := newReplicas(t, 2, &runs, authority.WithConfirmer("chat", ask))
	one, two := replicas[0], replicas[1]
	sam := authority.Identity{Platform: "chat", UserID: "sam"}
	call := toolreg.CallContext{SessionID: "s1", Platform: "chat", UserID: "sam"}

	assert.Equal(t, toolreg.CodeDenied, two.reg.Call(ctx, "delete_files", map[string]any{"path": "/x"}, call).Code)
	require.NoError(t, one.auth.SetLevel(ctx, sam, 2))
	assert.Equal(t, "", two.reg.Call(ctx, "delete_files", map[string]any{"path": "/x"}, call).Code, "the level set on one replica holds on the other")

	grants, err := one.auth.Grants(ctx, sam, "s1")
	require.NoError(t, err)
	require.Len(t, grants, 1, "the session grant made on replica two is seen on replica one")
	assert.Equal(t, "tool:delete_files", grants[0].Capability)

	require.NoError(t, one.auth.SetLevel(ctx, sam, -1))
	assert.Equal(t, toolreg.CodeDenied, two.reg.Call(ctx, "delete_files", map[string]any{"path": "/x"}, call).Code, "a ban holds everywhere")
	assert.Equal(t, int32(1), runs.Load())
}
