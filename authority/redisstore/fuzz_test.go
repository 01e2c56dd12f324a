package redisstore_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/toolreg/toolreg/authority"
)

// FuzzAgainstMemory gives the Redis store and the memory store the same
// records, with identities, sessions and capabilities as hostile as a
// remote peer could make them, and checks that they answer alike.
func FuzzAgainstMemory(f *testing.F) {
	f.Add("chat", "alice", "s1", "tool:rm", "d", 2, int64(60_000), int64(0))
	f.Add("", "", "", "*", "", -1, int64(1), int64(1))
	f.Add("a.b", "c", "d:e", "tool:x", "\x00", 1, int64(5_000), int64(10_000))
	f.Add("p", "u\xff", "s", "tool:x", "d", 3, int64(60_000), int64(0))
	f.Add("p", "{tag}", "s\n", "tool:*", "d", 9, int64(-5), int64(0))
	f.Fuzz(func(t *testing.T, platform, user, session, capability, digest string, uses int, ttl, later int64) {
		ctx := context.Background()
		base := time.UnixMilli(1_760_000_000_000)
		now := base.Add(time.Duration(later%100_000) * time.Millisecond)
		red, mem := newStore(t), authority.NewMemoryStore()
		id := authority.Identity{Platform: platform, UserID: user}
		k := authority.Key{Identity: id, SessionID: session, Capability: capability, Digest: digest}
		// Redis also drops records by itself after their time in real
		// time: give live records at least 10s, so that only the times
		// passed in decide.
		ttl %= 1_000_000
		if ttl > 0 && ttl < 10_000 {
			ttl += 10_000
		}
		g := authority.Grant{Key: k, UsesLeft: uses, Expires: base.Add(time.Duration(ttl) * time.Millisecond), Authorizes: uses%2 == 0}

		same := func(what string, a, b any) {
			t.Helper()
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: redis %#v, memory %#v", what, a, b)
			}
		}
		kind := func(err error) string {
			for _, k := range []error{authority.ErrInvalid, authority.ErrFull, authority.ErrNotFound, authority.ErrResolved} {
				if errors.Is(err, k) {
					return k.Error()
				}
			}
			if err != nil {
				return "other: " + err.Error()
			}
			return ""
		}
		norm := func(gs []authority.Grant) []authority.Grant {
			for i := range gs {
				gs[i].Expires = time.UnixMilli(gs[i].Expires.UnixMilli())
			}
			if len(gs) == 0 {
				return nil
			}
			return gs
		}

		same("set level", kind(red.SetLevel(ctx, id, uses)), kind(mem.SetLevel(ctx, id, uses)))
		lr, er := red.Level(ctx, id)
		lm, em := mem.Level(ctx, id)
		same("level", []any{lr, kind(er)}, []any{lm, kind(em)})

		same("put grant", kind(red.PutGrant(ctx, g, 4, base)), kind(mem.PutGrant(ctx, g, 4, base)))
		gr, er := red.Grants(ctx, id, session, now)
		gm, em := mem.Grants(ctx, id, session, now)
		same("grants", []any{norm(gr), kind(er)}, []any{norm(gm), kind(em)})
		for i := range 3 {
			ur, okr, er := red.UseGrant(ctx, k, now)
			um, okm, em := mem.UseGrant(ctx, k, now)
			same("use grant", []any{i, norm([]authority.Grant{ur}), okr, kind(er)}, []any{i, norm([]authority.Grant{um}), okm, kind(em)})
		}

		r := authority.Request{ID: "r-" + digest, Key: k, Tool: "t", State: authority.RequestPending,
			Created: base, Expires: g.Expires}
		rr, er := red.OpenRequest(ctx, r, 2, base)
		rm, em := mem.OpenRequest(ctx, r, 2, base)
		same("open request", []any{rr.ID, rr.State, kind(er)}, []any{rm.ID, rm.State, kind(em)})
		_, okr, er := red.Request(ctx, r.ID, now)
		_, okm, em := mem.Request(ctx, r.ID, now)
		same("request", []any{okr, kind(er)}, []any{okm, kind(em)})
		_, er = red.ResolveRequest(ctx, r.ID, uses > 0, base.Add(time.Hour), now)
		_, em = mem.ResolveRequest(ctx, r.ID, uses > 0, base.Add(time.Hour), now)
		same("resolve", kind(er), kind(em))
		tr, okr, er := red.TakeDecision(ctx, k, now)
		tm, okm, em := mem.TakeDecision(ctx, k, now)
		same("take", []any{tr.ID, tr.State, okr, kind(er)}, []any{tm.ID, tm.State, okm, kind(em)})
	})
}
