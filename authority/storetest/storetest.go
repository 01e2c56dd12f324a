package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

// Racers is how many goroutines race for one grant use or one decision in
// the concurrency cases.
const Racers = 100

// base is the suite's clock: a fixed time, to the millisecond, as stores
// may keep times to the millisecond.
var base = time.UnixMilli(1_760_000_000_000).UTC()

var (
	alice = authority.Identity{Platform: "chat", UserID: "alice"}
	bob   = authority.Identity{Platform: "chat", UserID: "bob"}
)

func key(id authority.Identity, session, capability, digest string) authority.Key {
	return authority.Key{Identity: id, SessionID: session, Capability: capability, Digest: digest}
}

// Run runs every case against stores made by open.
func Run(t *testing.T, open func(t *testing.T) authority.Store) {
	t.Run("levels", func(t *testing.T) { levels(t, open) })
	t.Run("grants", func(t *testing.T) { grants(t, open) })
	t.Run("requests", func(t *testing.T) { requests(t, open) })
	t.Run("bounds", func(t *testing.T) { bounds(t, open) })
	t.Run("invalid records are refused", func(t *testing.T) { invalid(t, open) })
	t.Run("a grant's last use goes to exactly one racer", func(t *testing.T) { raceGrant(t, open) })
	t.Run("a decision goes to exactly one racer", func(t *testing.T) { raceDecision(t, open) })
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func levels(t *testing.T, open func(*testing.T) authority.Store) {
	ctx := context.Background()
	s := open(t)
	level := func(id authority.Identity) int {
		t.Helper()
		l, err := s.Level(ctx, id)
		must(t, err)
		return l
	}
	if got := level(alice); got != toolreg.DefaultAuthority {
		t.Errorf("an unknown identity has level %d, want the default %d", got, toolreg.DefaultAuthority)
	}
	must(t, s.SetLevel(ctx, alice, 3))
	must(t, s.SetLevel(ctx, bob, -1))
	if got := level(alice); got != 3 {
		t.Errorf("alice's level is %d, want 3", got)
	}
	if got := level(bob); got != -1 {
		t.Errorf("a ban reads as %d, want -1", got)
	}
	other := authority.Identity{Platform: "mail", UserID: "alice"}
	if got := level(other); got != 0 {
		t.Errorf("the same user id on another platform has level %d, want 0", got)
	}
	odd := authority.Identity{Platform: "chat", UserID: "a/\"b\\c\x00 \U0001F600 é"}
	must(t, s.SetLevel(ctx, odd, 2))
	if got := level(odd); got != 2 {
		t.Errorf("a user id with separators and NUL has level %d, want 2", got)
	}
	must(t, s.SetLevel(ctx, alice, 5))
	must(t, s.SetLevel(ctx, alice, toolreg.DefaultAuthority))
	if got := level(alice); got != 0 {
		t.Errorf("after resetting to the default, alice's level is %d", got)
	}
}

func grants(t *testing.T, open func(*testing.T) authority.Store) {
	ctx := context.Background()
	k := key(alice, "s1", "tool:rm", "")
	t.Run("a grant's uses are taken one by one, then it is gone", func(t *testing.T) {
		s := open(t)
		must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 2, Expires: base.Add(time.Hour)}, 10, base))
		for i, wantLeft := range []int{2, 1} {
			g, ok, err := s.UseGrant(ctx, k, base)
			must(t, err)
			if !ok || g.UsesLeft != wantLeft {
				t.Fatalf("use %d: ok %v, uses left before %d; want true, %d", i+1, ok, g.UsesLeft, wantLeft)
			}
			if g.Key != k || !g.Expires.Equal(base.Add(time.Hour)) {
				t.Errorf("use %d returned %+v", i+1, g)
			}
		}
		if _, ok, err := s.UseGrant(ctx, k, base); err != nil || ok {
			t.Errorf("a used-up grant gave another use (ok %v, err %v)", ok, err)
		}
		if gs, err := s.Grants(ctx, alice, "s1", base); err != nil || len(gs) != 0 {
			t.Errorf("a used-up grant is still listed: %v, %v", gs, err)
		}
	})
	t.Run("an unlimited grant is never used up", func(t *testing.T) {
		s := open(t)
		must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: authority.Unlimited, Expires: base.Add(time.Hour), Authorizes: true}, 10, base))
		for range 5 {
			g, ok, err := s.UseGrant(ctx, k, base)
			must(t, err)
			if !ok || g.UsesLeft != authority.Unlimited || !g.Authorizes {
				t.Fatalf("unlimited grant: ok %v, %+v", ok, g)
			}
		}
	})
	t.Run("an expired grant admits nothing", func(t *testing.T) {
		s := open(t)
		must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 5, Expires: base.Add(time.Minute)}, 10, base))
		if _, ok, _ := s.UseGrant(ctx, k, base.Add(time.Minute)); ok {
			t.Error("a grant was used at its expiry instant")
		}
		if gs, _ := s.Grants(ctx, alice, "s1", base); len(gs) != 0 {
			t.Errorf("an expired grant came back: %v", gs)
		}
	})
	t.Run("keys differ by every field", func(t *testing.T) {
		s := open(t)
		must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 1, Expires: base.Add(time.Hour)}, 10, base))
		for _, other := range []authority.Key{
			key(bob, "s1", "tool:rm", ""),
			key(authority.Identity{Platform: "mail", UserID: "alice"}, "s1", "tool:rm", ""),
			key(alice, "s2", "tool:rm", ""),
			key(alice, "s1", "tool:rmdir", ""),
			key(alice, "s1", "tool:rm", "d1"),
		} {
			if _, ok, _ := s.UseGrant(ctx, other, base); ok {
				t.Errorf("a grant for %+v admitted %+v", k, other)
			}
		}
	})
	t.Run("a grant replaces one with the same key", func(t *testing.T) {
		s := open(t)
		must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 1, Expires: base.Add(time.Hour)}, 10, base))
		must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 3, Expires: base.Add(2 * time.Hour), Authorizes: true}, 10, base))
		g, ok, err := s.UseGrant(ctx, k, base)
		must(t, err)
		if !ok || g.UsesLeft != 3 || !g.Authorizes || !g.Expires.Equal(base.Add(2*time.Hour)) {
			t.Errorf("after replacement: ok %v, %+v", ok, g)
		}
	})
	t.Run("grants of a session are listed in order, others not", func(t *testing.T) {
		s := open(t)
		put := func(k authority.Key, exp time.Duration) {
			must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 1, Expires: base.Add(exp)}, 10, base))
		}
		put(key(alice, "s1", "tool:b", ""), time.Hour)
		put(key(alice, "s1", "tool:a", "d2"), time.Hour)
		put(key(alice, "s1", "tool:a", ""), time.Hour)
		put(key(alice, "s1", "tool:c", ""), time.Minute)
		put(key(alice, "s2", "tool:a", ""), time.Hour)
		put(key(bob, "s1", "tool:a", ""), time.Hour)
		gs, err := s.Grants(ctx, alice, "s1", base.Add(2*time.Minute))
		must(t, err)
		var got []string
		for _, g := range gs {
			got = append(got, g.Capability+"/"+g.Digest)
		}
		want := []string{"tool:a/", "tool:a/d2", "tool:b/"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("listed %v, want %v", got, want)
		}
	})
	t.Run("a grant expired when put is not kept and removes the one it replaces", func(t *testing.T) {
		s := open(t)
		must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 1, Expires: base.Add(time.Hour)}, 10, base))
		must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 1, Expires: base}, 10, base))
		if _, ok, _ := s.UseGrant(ctx, k, base.Add(-time.Minute)); ok {
			t.Error("an expired grant was kept, or the grant it replaced survived")
		}
	})
	t.Run("a deleted grant admits nothing", func(t *testing.T) {
		s := open(t)
		must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: 1, Expires: base.Add(time.Hour)}, 10, base))
		must(t, s.DeleteGrant(ctx, k))
		must(t, s.DeleteGrant(ctx, k)) // deleting nothing is no error
		if _, ok, _ := s.UseGrant(ctx, k, base); ok {
			t.Error("a deleted grant was used")
		}
	})
}

func requests(t *testing.T, open func(*testing.T) authority.Store) {
	ctx := context.Background()
	k := key(alice, "s1", "tool:rm", "digest-1")
	newReq := func(id string, k authority.Key, ttl time.Duration) authority.Request {
		return authority.Request{ID: id, Key: k, Tool: "rm", Args: json.RawMessage(`{"path":"/tmp/x","n":[1,2]}`),
			State: authority.RequestPending, Created: base, Expires: base.Add(ttl)}
	}
	t.Run("a request is kept as opened and found by id", func(t *testing.T) {
		s := open(t)
		r, err := s.OpenRequest(ctx, newReq("r1", k, time.Hour), 10, base)
		must(t, err)
		got, ok, err := s.Request(ctx, "r1", base)
		must(t, err)
		if !ok {
			t.Fatal("the request is not found by id")
		}
		for _, r := range []authority.Request{r, got} {
			if r.ID != "r1" || r.Key != k || r.Tool != "rm" || r.State != authority.RequestPending ||
				!r.Created.Equal(base) || !r.Expires.Equal(base.Add(time.Hour)) || !sameJSON(r.Args, newReq("", k, 0).Args) {
				t.Errorf("request read back as %+v (args %s)", r, r.Args)
			}
		}
		if _, ok, _ := s.Request(ctx, "nope", base); ok {
			t.Error("an unknown id was found")
		}
	})
	t.Run("opening the same call again returns the live request", func(t *testing.T) {
		s := open(t)
		_, err := s.OpenRequest(ctx, newReq("r1", k, time.Hour), 10, base)
		must(t, err)
		r, err := s.OpenRequest(ctx, newReq("r2", k, time.Hour), 10, base.Add(time.Minute))
		must(t, err)
		if r.ID != "r1" {
			t.Errorf("reopening gave %q, want the live r1", r.ID)
		}
		if _, ok, _ := s.Request(ctx, "r2", base); ok {
			t.Error("the duplicate was stored")
		}
		other := k
		other.Digest = "digest-2"
		r, err = s.OpenRequest(ctx, newReq("r3", other, time.Hour), 10, base)
		must(t, err)
		if r.ID != "r3" {
			t.Errorf("other arguments gave request %q, want a new r3", r.ID)
		}
	})
	t.Run("an expired request is gone and its call opens a new one", func(t *testing.T) {
		s := open(t)
		_, err := s.OpenRequest(ctx, newReq("r1", k, time.Minute), 10, base)
		must(t, err)
		late := base.Add(time.Minute)
		if _, ok, _ := s.Request(ctx, "r1", late); ok {
			t.Error("an expired request was found")
		}
		if _, err := s.ResolveRequest(ctx, "r1", true, late.Add(time.Hour), late); !errors.Is(err, authority.ErrNotFound) {
			t.Errorf("approving an expired request: %v, want ErrNotFound", err)
		}
		r, err := s.OpenRequest(ctx, newReq("r2", k, time.Minute), 10, late)
		must(t, err)
		if r.ID != "r2" {
			t.Errorf("after expiry the call got %q, want a new r2", r.ID)
		}
	})
	t.Run("a request expired when opened is returned and not kept", func(t *testing.T) {
		s := open(t)
		r, err := s.OpenRequest(ctx, newReq("r1", k, 0), 10, base)
		must(t, err)
		if r.ID != "r1" || r.State != authority.RequestPending {
			t.Errorf("opened %+v", r)
		}
		if _, ok, _ := s.Request(ctx, "r1", base.Add(-time.Minute)); ok {
			t.Error("an expired request was kept")
		}
	})
	t.Run("a decision is resolved once and taken once", func(t *testing.T) {
		for _, approve := range []bool{true, false} {
			s := open(t)
			_, err := s.OpenRequest(ctx, newReq("r1", k, time.Minute), 10, base)
			must(t, err)
			if _, ok, _ := s.TakeDecision(ctx, k, base); ok {
				t.Fatal("a pending request was taken as a decision")
			}
			r, err := s.ResolveRequest(ctx, "r1", approve, base.Add(time.Hour), base)
			must(t, err)
			want := authority.RequestRejected
			if approve {
				want = authority.RequestApproved
			}
			if r.State != want || !r.Expires.Equal(base.Add(time.Hour)) {
				t.Errorf("resolved as %q until %v, want %q until %v", r.State, r.Expires, want, base.Add(time.Hour))
			}
			if _, err := s.ResolveRequest(ctx, "r1", !approve, base.Add(time.Hour), base); !errors.Is(err, authority.ErrResolved) {
				t.Errorf("resolving twice: %v, want ErrResolved", err)
			}
			if _, err := s.ResolveRequest(ctx, "nope", approve, base.Add(time.Hour), base); !errors.Is(err, authority.ErrNotFound) {
				t.Errorf("resolving an unknown id: %v, want ErrNotFound", err)
			}
			// The decision outlives the request's first expiry.
			later := base.Add(30 * time.Minute)
			other := k
			other.Digest = "digest-2"
			if _, ok, _ := s.TakeDecision(ctx, other, later); ok {
				t.Error("a decision was taken for other arguments")
			}
			d, ok, err := s.TakeDecision(ctx, k, later)
			must(t, err)
			if !ok || d.ID != "r1" || d.State != want {
				t.Errorf("took ok %v, %+v", ok, d)
			}
			if _, ok, _ := s.TakeDecision(ctx, k, later); ok {
				t.Error("a decision was taken twice")
			}
			if _, ok, _ := s.Request(ctx, "r1", later); ok {
				t.Error("a taken request is still found")
			}
		}
	})
	t.Run("a decision expires", func(t *testing.T) {
		s := open(t)
		_, err := s.OpenRequest(ctx, newReq("r1", k, time.Hour), 10, base)
		must(t, err)
		_, err = s.ResolveRequest(ctx, "r1", true, base.Add(time.Minute), base)
		must(t, err)
		if _, ok, _ := s.TakeDecision(ctx, k, base.Add(time.Minute)); ok {
			t.Error("an expired approval was taken")
		}
	})
	t.Run("arguments may be empty", func(t *testing.T) {
		s := open(t)
		r := newReq("r1", k, time.Hour)
		r.Args = nil
		_, err := s.OpenRequest(ctx, r, 10, base)
		must(t, err)
		got, ok, err := s.Request(ctx, "r1", base)
		must(t, err)
		if !ok || len(got.Args) != 0 {
			t.Errorf("empty arguments read back as %q (found %v)", got.Args, ok)
		}
	})
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func bounds(t *testing.T, open func(*testing.T) authority.Store) {
	ctx := context.Background()
	t.Run("a session holds at most limit grants", func(t *testing.T) {
		s := open(t)
		for i := range 3 {
			must(t, s.PutGrant(ctx, authority.Grant{Key: key(alice, "s1", fmt.Sprintf("tool:t%d", i), ""),
				UsesLeft: 1, Expires: base.Add(time.Duration(i+1) * time.Minute)}, 3, base))
		}
		fourth := authority.Grant{Key: key(alice, "s1", "tool:t3", ""), UsesLeft: 1, Expires: base.Add(time.Hour)}
		if err := s.PutGrant(ctx, fourth, 3, base); !errors.Is(err, authority.ErrFull) {
			t.Errorf("a fourth grant: %v, want ErrFull", err)
		}
		// Replacing one is no new grant, and other sessions have their own bound.
		must(t, s.PutGrant(ctx, authority.Grant{Key: key(alice, "s1", "tool:t0", ""), UsesLeft: 2, Expires: base.Add(time.Hour)}, 3, base))
		must(t, s.PutGrant(ctx, authority.Grant{Key: key(alice, "s2", "tool:t0", ""), UsesLeft: 2, Expires: base.Add(time.Hour)}, 3, base))
		// Expired grants do not count.
		must(t, s.PutGrant(ctx, fourth, 3, base.Add(3*time.Minute)))
		// limit <= 0 sets no bound.
		must(t, s.PutGrant(ctx, authority.Grant{Key: key(alice, "s1", "tool:t9", ""), UsesLeft: 1, Expires: base.Add(time.Hour)}, 0, base))
	})
	t.Run("a session holds at most limit requests", func(t *testing.T) {
		s := open(t)
		req := func(id, digest string, ttl time.Duration) authority.Request {
			return authority.Request{ID: id, Key: key(alice, "s1", "tool:rm", digest), Tool: "rm",
				State: authority.RequestPending, Created: base, Expires: base.Add(ttl)}
		}
		_, err := s.OpenRequest(ctx, req("r1", "d1", time.Minute), 2, base)
		must(t, err)
		_, err = s.OpenRequest(ctx, req("r2", "d2", time.Hour), 2, base)
		must(t, err)
		if _, err := s.OpenRequest(ctx, req("r3", "d3", time.Hour), 2, base); !errors.Is(err, authority.ErrFull) {
			t.Errorf("a third request: %v, want ErrFull", err)
		}
		if r, err := s.OpenRequest(ctx, req("r4", "d2", time.Hour), 2, base); err != nil || r.ID != "r2" {
			t.Errorf("reopening a live request at the bound: %q, %v; want r2", r.ID, err)
		}
		if _, err := s.OpenRequest(ctx, req("r3", "d3", time.Hour), 2, base.Add(time.Minute)); err != nil {
			t.Errorf("once r1 expired, r3 should fit: %v", err)
		}
	})
}

func invalid(t *testing.T, open func(*testing.T) authority.Store) {
	ctx := context.Background()
	s := open(t)
	good := authority.Grant{Key: key(alice, "s1", "tool:rm", ""), UsesLeft: 1, Expires: base.Add(time.Hour)}
	grants := map[string]func(*authority.Grant){
		"no uses":               func(g *authority.Grant) { g.UsesLeft = 0 },
		"negative uses":         func(g *authority.Grant) { g.UsesLeft = -2 },
		"no expiry":             func(g *authority.Grant) { g.Expires = time.Time{} },
		"no capability":         func(g *authority.Grant) { g.Capability = "" },
		"an invalid user id":    func(g *authority.Grant) { g.UserID = "\xff" },
		"an invalid session id": func(g *authority.Grant) { g.SessionID = "s\xfe" },
		"a huge capability":     func(g *authority.Grant) { g.Capability = string(make([]byte, 2000)) },
	}
	for name, spoil := range grants {
		g := good
		spoil(&g)
		if err := s.PutGrant(ctx, g, 10, base); !errors.Is(err, authority.ErrInvalid) {
			t.Errorf("a grant with %s: %v, want ErrInvalid", name, err)
		}
	}
	if err := s.SetLevel(ctx, authority.Identity{Platform: "chat", UserID: "\xff"}, 2); !errors.Is(err, authority.ErrInvalid) {
		t.Errorf("a level for an invalid user id: %v, want ErrInvalid", err)
	}
	goodReq := authority.Request{ID: "r1", Key: key(alice, "s1", "tool:rm", "d"), Tool: "rm",
		State: authority.RequestPending, Created: base, Expires: base.Add(time.Hour)}
	reqs := map[string]func(*authority.Request){
		"no id":               func(r *authority.Request) { r.ID = "" },
		"no digest":           func(r *authority.Request) { r.Key.Digest = "" },
		"no expiry":           func(r *authority.Request) { r.Expires = time.Time{} },
		"arguments not JSON":  func(r *authority.Request) { r.Args = json.RawMessage(`{"a":`) },
		"an invalid platform": func(r *authority.Request) { r.Key.Platform = "\xc3" },
	}
	for name, spoil := range reqs {
		r := goodReq
		spoil(&r)
		if _, err := s.OpenRequest(ctx, r, 10, base); !errors.Is(err, authority.ErrInvalid) {
			t.Errorf("a request with %s: %v, want ErrInvalid", name, err)
		}
	}
	// Lookups with keys a store cannot hold find nothing, without error.
	bad := key(authority.Identity{Platform: "chat", UserID: "\xff"}, "s1", "tool:rm", "d")
	if _, ok, err := s.UseGrant(ctx, bad, base); ok || err != nil {
		t.Errorf("using an invalid key: %v, %v", ok, err)
	}
	if _, ok, err := s.TakeDecision(ctx, bad, base); ok || err != nil {
		t.Errorf("taking with an invalid key: %v, %v", ok, err)
	}
}

// race runs try from Racers goroutines at once, reports their errors, and
// returns how many of them won.
func race(t *testing.T, try func() (bool, error)) int {
	var won atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, Racers)
	for range Racers {
		wg.Go(func() {
			ok, err := try()
			if err != nil {
				errs <- err
			}
			if ok {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return int(won.Load())
}

func raceGrant(t *testing.T, open func(*testing.T) authority.Store) {
	ctx := context.Background()
	s := open(t)
	k := key(alice, "s1", "tool:rm", "")
	const uses = 7
	must(t, s.PutGrant(ctx, authority.Grant{Key: k, UsesLeft: uses, Expires: base.Add(time.Hour)}, 10, base))
	won := race(t, func() (bool, error) {
		_, ok, err := s.UseGrant(ctx, k, base)
		return ok, err
	})
	if won != uses {
		t.Errorf("%d racers got a use of a grant with %d uses", won, uses)
	}
}

func raceDecision(t *testing.T, open func(*testing.T) authority.Store) {
	ctx := context.Background()
	s := open(t)
	k := key(alice, "s1", "tool:rm", "d1")
	_, err := s.OpenRequest(ctx, authority.Request{ID: "r1", Key: k, Tool: "rm", State: authority.RequestPending,
		Created: base, Expires: base.Add(time.Hour)}, 10, base)
	must(t, err)
	_, err = s.ResolveRequest(ctx, "r1", true, base.Add(time.Hour), base)
	must(t, err)
	won := race(t, func() (bool, error) {
		_, ok, err := s.TakeDecision(ctx, k, base)
		return ok, err
	})
	if won != 1 {
		t.Errorf("%d racers took one approval", won)
	}
}
