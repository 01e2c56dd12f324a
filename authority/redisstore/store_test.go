package redisstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg/authority"
	"github.com/toolreg/toolreg/authority/redisstore"
	"github.com/toolreg/toolreg/authority/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) authority.Store { return newStore(t) })
}

// TestConformanceAcrossClients runs the suite with every operation on a
// client of its own, as replicas would.
func TestConformanceAcrossClients(t *testing.T) {
	storetest.Run(t, func(t *testing.T) authority.Store {
		prefix := newPrefix()
		stores := []*redisstore.Store{
			redisstore.New(newClient(t), redisstore.WithPrefix(prefix)),
			redisstore.New(newClient(t), redisstore.WithPrefix(prefix)),
		}
		return &alternating{stores: stores}
	})
}

// keysUnder lists the keys that start with prefix.
func keysUnder(t *testing.T, c *redis.Client, prefix string) []string {
	t.Helper()
	var keys []string
	iter := c.Scan(context.Background(), 0, prefix+"*", 100).Iterator()
	for iter.Next(context.Background()) {
		keys = append(keys, iter.Val())
	}
	require.NoError(t, iter.Err())
	return keys
}

func TestServerSideExpiry(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	prefix := newPrefix()
	s := redisstore.New(c, redisstore.WithPrefix(prefix))
	now := time.Now()
	alice := authority.Identity{Platform: "chat", UserID: "alice"}
	k := authority.Key{Identity: alice, SessionID: "s1", Capability: "tool:rm"}
	require.NoError(t, s.SetLevel(ctx, alice, 2))
	require.NoError(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 3, Expires: now.Add(150 * time.Millisecond)}, 10, now))
	rk := k
	rk.Digest = "d"
	_, err := s.OpenRequest(ctx, authority.Request{ID: "r1", Key: rk, Tool: "rm", State: authority.RequestPending,
		Created: now, Expires: now.Add(150 * time.Millisecond)}, 10, now)
	require.NoError(t, err)
	rk2 := rk
	rk2.Digest = "d2"
	_, err = s.OpenRequest(ctx, authority.Request{ID: "r2", Key: rk2, Tool: "rm", State: authority.RequestPending,
		Created: now, Expires: now.Add(time.Hour)}, 10, now)
	require.NoError(t, err)
	_, err = s.ResolveRequest(ctx, "r2", true, now.Add(150*time.Millisecond), now)
	require.NoError(t, err)
	require.Greater(t, len(keysUnder(t, c, prefix)), 1)

	require.Eventually(t, func() bool { return len(keysUnder(t, c, prefix)) == 1 }, 5*time.Second, 20*time.Millisecond,
		"the server drops grants, requests, decisions and their indexes by itself; left: %v", keysUnder(t, c, prefix))
	assert.Equal(t, []string{prefix + "level:" + "Y2hhdA.YWxpY2U"}, keysUnder(t, c, prefix), "levels never expire")
}

func TestKeysDoNotCollide(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	// Identities whose naive joins would be equal.
	a := authority.Identity{Platform: "chat.x", UserID: "y"}
	b := authority.Identity{Platform: "chat", UserID: "x.y"}
	c := authority.Identity{Platform: "chat:x", UserID: "y"}
	require.NoError(t, s.SetLevel(ctx, a, 1))
	require.NoError(t, s.SetLevel(ctx, b, 2))
	require.NoError(t, s.SetLevel(ctx, c, 3))
	for id, want := range map[authority.Identity]int{a: 1, b: 2, c: 3} {
		got, err := s.Level(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%v", id)
	}
}

func TestUnreachableServerIsAnError(t *testing.T) {
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	s := redisstore.New(c)
	_, err := s.Level(ctx, authority.Identity{UserID: "u"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redisstore: level")
	a, err := authority.New(authority.WithStore(s))
	require.NoError(t, err)
	l, err := a.Layer(ctx, authority.Identity{UserID: "u"}, "s")
	assert.Error(t, err)
	assert.Nil(t, l)
}

func TestCorruptRecordsAreErrors(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	prefix := newPrefix()
	s := redisstore.New(c, redisstore.WithPrefix(prefix))
	alice := authority.Identity{Platform: "chat", UserID: "alice"}
	require.NoError(t, s.SetLevel(ctx, alice, 2))
	require.NoError(t, c.Set(ctx, prefix+"level:Y2hhdA.YWxpY2U", "two", 0).Err())
	_, err := s.Level(ctx, alice)
	assert.ErrorContains(t, err, "not a number")
}

// alternating sends each call to the next of its stores in turn.
type alternating struct {
	stores []*redisstore.Store
	n      atomic.Int64
}

func (a *alternating) next() *redisstore.Store {
	return a.stores[int(a.n.Add(1))%len(a.stores)]
}

func (a *alternating) Level(ctx context.Context, id authority.Identity) (int, error) {
	return a.next().Level(ctx, id)
}

func (a *alternating) SetLevel(ctx context.Context, id authority.Identity, level int) error {
	return a.next().SetLevel(ctx, id, level)
}

func (a *alternating) PutGrant(ctx context.Context, g authority.Grant, limit int, now time.Time) error {
	return a.next().PutGrant(ctx, g, limit, now)
}

func (a *alternating) UseGrant(ctx context.Context, k authority.Key, now time.Time) (authority.Grant, bool, error) {
	return a.next().UseGrant(ctx, k, now)
}

func (a *alternating) Grants(ctx context.Context, id authority.Identity, session string, now time.Time) ([]authority.Grant, error) {
	return a.next().Grants(ctx, id, session, now)
}

func (a *alternating) DeleteGrant(ctx context.Context, k authority.Key) error {
	return a.next().DeleteGrant(ctx, k)
}

func (a *alternating) OpenRequest(ctx context.Context, r authority.Request, limit int, now time.Time) (authority.Request, error) {
	return a.next().OpenRequest(ctx, r, limit, now)
}

func (a *alternating) Request(ctx context.Context, id string, now time.Time) (authority.Request, bool, error) {
	return a.next().Request(ctx, id, now)
}

func (a *alternating) ResolveRequest(ctx context.Context, id string, approve bool, expires, now time.Time) (authority.Request, error) {
	return a.next().ResolveRequest(ctx, id, approve, expires, now)
}

func (a *alternating) TakeDecision(ctx context.Context, k authority.Key, now time.Time) (authority.Request, bool, error) {
	return a.next().TakeDecision(ctx, k, now)
}
