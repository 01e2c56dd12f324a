package authority_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg/authority"
	"github.com/toolreg/toolreg/authority/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) authority.Store { return authority.NewMemoryStore() })
}

func TestMemoryStoreBoundsRecords(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s := authority.NewMemoryStore(authority.WithMaxRecords(3))
	id := func(u string) authority.Identity { return authority.Identity{Platform: "p", UserID: u} }
	grant := func(session string, ttl time.Duration) authority.Grant {
		return authority.Grant{Key: authority.Key{Identity: id("a"), SessionID: session, Capability: "tool:x"},
			UsesLeft: 1, Expires: now.Add(ttl)}
	}
	require.NoError(t, s.SetLevel(ctx, id("a"), 1))
	require.NoError(t, s.PutGrant(ctx, grant("s1", time.Minute), 0, now))
	require.NoError(t, s.PutGrant(ctx, grant("s2", time.Hour), 0, now))

	t.Run("a full store refuses a new record", func(t *testing.T) {
		require.ErrorIs(t, s.PutGrant(ctx, grant("s3", time.Hour), 0, now), authority.ErrFull)
		require.ErrorIs(t, s.SetLevel(ctx, id("b"), 1), authority.ErrFull)
	})
	t.Run("changing an existing level needs no room", func(t *testing.T) {
		require.NoError(t, s.SetLevel(ctx, id("a"), 2))
	})
	t.Run("expired records make room", func(t *testing.T) {
		require.NoError(t, s.PutGrant(ctx, grant("s3", time.Hour), 0, now.Add(2*time.Minute)))
	})
	t.Run("levels are never dropped to make room", func(t *testing.T) {
		l, err := s.Level(ctx, id("a"))
		require.NoError(t, err)
		require.Equal(t, 2, l)
		require.True(t, errors.Is(s.SetLevel(ctx, id("c"), -1), authority.ErrFull))
	})
}
