package authority_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

func TestAuthorization(t *testing.T) {
	ctx := context.Background()
	banned := authority.Identity{Platform: "chat", UserID: "bart"}
	admin := authority.Identity{Platform: "chat", UserID: "ada"}
	elsewhere := authority.Identity{Platform: "mail", UserID: "frank"} // frank's user id on another platform
	restricted := toolreg.PolicyDecl{Visibility: toolreg.VisibilityRestricted}
	safeRestricted := toolreg.PolicyDecl{Risk: toolreg.RiskSafe, Visibility: toolreg.VisibilityRestricted}
	tests := []struct {
		name string
		id   authority.Identity
		decl toolreg.PolicyDecl
		tool string
		want authority.Reason
	}{
		{"an unknown identity has level 0 and runs an undeclared tool", stranger, undeclared, "echo", ""},
		{"an unknown identity runs a safe tool", stranger, safe, "echo", ""},
		{"an unknown identity is below a sensitive tool", stranger, sensitive, "read_mail", authority.ReasonLevel},
		{"an anonymous caller is below a sensitive tool", authority.Identity{}, sensitive, "read_mail", authority.ReasonLevel},
		{"level 1 reaches a sensitive tool", friend, sensitive, "read_mail", ""},
		{"level 1 is below a restricted tool without risk", friend, restricted, "admin_panel", authority.ReasonLevel},
		{"level 2 reaches a restricted tool without risk", admin, restricted, "admin_panel", ""},
		{"the same user id on another platform is another identity", elsewhere, sensitive, "read_mail", authority.ReasonLevel},
		{"a declared risk shadows visibility: safe but restricted needs 0", stranger, safeRestricted, "echo", ""},
		{"a ban refuses even an undeclared tool", banned, undeclared, "echo", authority.ReasonBanned},
		{"a ban is not lifted by an allow glob", banned, sensitive, "weather", authority.ReasonBanned},
		{"an owner ranks above every level", owner, restricted, "admin_panel", ""},
		{"an owner with a negative stored level is still an owner", owner, sensitive, "read_mail", ""},
		{"a per-capability override raises the minimum", friend, sensitive, "read_secrets", authority.ReasonLevel},
		{"a per-capability override lowers the minimum", stranger, sensitive, "read_calendar", ""},
		{"an allow glob admits a caller below the level", stranger, sensitive, "weather", ""},
		{"a hard deny glob refuses an owner", owner, safe, "shell_exec", authority.ReasonHardDeny},
		{"a hard deny glob refuses anyone", admin, safe, "shell_run", authority.ReasonHardDeny},
		{"a hard deny glob wins over an allow glob", stranger, undeclared, "weather_shell", authority.ReasonHardDeny},
		{"a glob matches the whole capability only", owner, safe, "shellfish", ""},
	}
	clock := newClock()
	a := newAuthority(t, clock,
		authority.WithDeny("tool:shell_*", "tool:*_shell"),
		authority.WithAllow("tool:weather*"),
		authority.WithMinLevel("tool:read_secrets", 3),
		authority.WithMinLevel("tool:read_calendar", 0),
	)
	require.NoError(t, a.SetLevel(ctx, banned, -1))
	require.NoError(t, a.SetLevel(ctx, admin, 2))
	require.NoError(t, a.SetLevel(ctx, owner, -5))
	guard := a.Guard()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := guard(ctx, guardReq(tc.tool, tc.decl, tc.id, "s1", nil))
			assert.Equal(t, tc.want, reasonOf(t, err), "error: %v", err)
		})
	}
	t.Run("a level refusal names the level needed", func(t *testing.T) {
		err := guard(ctx, guardReq("read_secrets", sensitive, friend, "s1", nil))
		var de *authority.DecisionError
		require.ErrorAs(t, err, &de)
		assert.Equal(t, 3, de.MinLevel)
		assert.Equal(t, "authority: tool \"read_secrets\" needs authority level 3", err.Error())
		assert.Equal(t, "tool:read_secrets", de.Capability)
	})
}

func TestUnauthorizedCallerIsNeverAskedToApproveItsOwnCall(t *testing.T) {
	ctx := context.Background()
	clock := newClock()
	ask := allowing(authority.GrantSession)
	a := newAuthority(t, clock, authority.WithConfirmer("chat", ask.confirm), authority.WithAllow("tool:deploy"))
	guard := a.Guard()
	args := map[string]any{"path": "/tmp/x"}
	grantFor := func(id authority.Identity, session, tool, digest string, authorizes bool) authority.Grant {
		return authority.Grant{Key: authority.Key{Identity: id, SessionID: session, Capability: authority.Capability(tool), Digest: digest},
			UsesLeft: 1, Authorizes: authorizes}
	}

	t.Run("a caller below the level is refused without asking", func(t *testing.T) {
		assert.Equal(t, authority.ReasonLevel, reasonOf(t, guard(ctx, guardReq("rm", dangerous, stranger, "s1", args))))
		assert.Equal(t, 0, ask.count())
	})
	t.Run("a grant without Authorizes does not admit it", func(t *testing.T) {
		require.NoError(t, a.Grant(ctx, grantFor(stranger, "s1", "rm", "", false)))
		assert.Equal(t, authority.ReasonLevel, reasonOf(t, guard(ctx, guardReq("rm", dangerous, stranger, "s1", args))))
		require.NoError(t, a.Revoke(ctx, authority.Key{Identity: stranger, SessionID: "s1", Capability: "tool:rm"}))
	})
	t.Run("an authorizing grant for another session does not admit it", func(t *testing.T) {
		require.NoError(t, a.Grant(ctx, grantFor(stranger, "s2", "rm", "", true)))
		assert.Equal(t, authority.ReasonLevel, reasonOf(t, guard(ctx, guardReq("rm", dangerous, stranger, "s1", args))))
	})
	t.Run("an authorizing grant for other arguments does not admit it", func(t *testing.T) {
		require.NoError(t, a.Grant(ctx, grantFor(stranger, "s1", "rm", toolreg.ArgsDigest(map[string]any{"path": "/etc"}), true)))
		assert.Equal(t, authority.ReasonLevel, reasonOf(t, guard(ctx, guardReq("rm", dangerous, stranger, "s1", args))))
	})
	t.Run("an authorizing grant set up beforehand admits it, and covers session confirmation", func(t *testing.T) {
		require.NoError(t, a.Grant(ctx, grantFor(stranger, "s1", "rm", toolreg.ArgsDigest(args), true)))
		assert.Equal(t, authority.Reason(""), reasonOf(t, guard(ctx, guardReq("rm", dangerous, stranger, "s1", args))))
		assert.Equal(t, 0, ask.count(), "the owner's grant was the approval")
		assert.Equal(t, authority.ReasonLevel, reasonOf(t, guard(ctx, guardReq("rm", dangerous, stranger, "s1", args))),
			"its single use is gone")
	})
	t.Run("an allow glob admits it; confirmation then applies as to anyone authorized", func(t *testing.T) {
		assert.Equal(t, authority.Reason(""), reasonOf(t, guard(ctx, guardReq("deploy", dangerous, stranger, "s1", args))))
		assert.Equal(t, 1, ask.count())
	})
	t.Run("a banned caller is not admitted by an authorizing grant", func(t *testing.T) {
		require.NoError(t, a.SetLevel(ctx, stranger, -1))
		require.NoError(t, a.Grant(ctx, grantFor(stranger, "s1", "rm", "", true)))
		assert.Equal(t, authority.ReasonBanned, reasonOf(t, guard(ctx, guardReq("rm", dangerous, stranger, "s1", args))))
	})
}

func TestConfirmation(t *testing.T) {
	ctx := context.Background()
	args := map[string]any{"path": "/tmp/x"}
	t.Run("applies to owners", func(t *testing.T) {
		ask := allowing(authority.GrantNone)
		a := newAuthority(t, newClock(), authority.WithConfirmer("chat", ask.confirm))
		require.NoError(t, a.Guard()(ctx, guardReq("rm", dangerous, owner, "s1", args)))
		require.Equal(t, 1, ask.count())
		assert.True(t, ask.last().Owner)
	})
	t.Run("no confirmer for the platform denies", func(t *testing.T) {
		a := newAuthority(t, newClock(), authority.WithConfirmer("mail", allowing("").confirm))
		err := a.Guard()(ctx, guardReq("rm", dangerous, owner, "s1", args))
		assert.Equal(t, authority.ReasonNoConfirmer, reasonOf(t, err))
		assert.Contains(t, err.Error(), `platform "chat"`)
	})
	t.Run("a caller without platform is confirmed by the unknown platform's confirmer", func(t *testing.T) {
		ask := allowing(authority.GrantNone)
		noPlatform := authority.Identity{UserID: "olivia"}
		a := newAuthority(t, newClock(), authority.WithOwners(noPlatform), authority.WithConfirmer("", ask.confirm))
		require.NoError(t, a.Guard()(ctx, guardReq("rm", dangerous, noPlatform, "s1", args)))
		assert.Equal(t, "unknown", ask.last().Identity.Platform)
	})
	t.Run("a declined call is denied with the person's reason, on one line", func(t *testing.T) {
		ask := &asker{answer: authority.Answer{Decision: authority.Deny, Reason: "not\nnow \xff"}}
		a := newAuthority(t, newClock(), authority.WithConfirmer("chat", ask.confirm))
		err := a.Guard()(ctx, guardReq("rm", dangerous, owner, "s1", args))
		assert.Equal(t, authority.ReasonDeclined, reasonOf(t, err))
		assert.Equal(t, "authority: tool \"rm\" was declined: not now \uFFFD", err.Error())
	})
	t.Run("a confirmer error denies", func(t *testing.T) {
		ask := &asker{answer: authority.Answer{Decision: authority.Allow}, err: errors.New("chat is down")}
		a := newAuthority(t, newClock(), authority.WithConfirmer("chat", ask.confirm))
		err := a.Guard()(ctx, guardReq("rm", dangerous, owner, "s1", args))
		assert.Equal(t, authority.ReasonConfirmFailed, reasonOf(t, err))
		assert.NotContains(t, err.Error(), "chat is down", "the confirmer's error stays out of the model's sight")
	})
	t.Run("a panicking confirmer denies", func(t *testing.T) {
		a := newAuthority(t, newClock(), authority.WithConfirmer("chat", func(context.Context, authority.ConfirmRequest) (authority.Answer, error) {
			panic("boom")
		}))
		assert.Equal(t, authority.ReasonConfirmFailed, reasonOf(t, a.Guard()(ctx, guardReq("rm", dangerous, owner, "s1", args))))
	})
	t.Run("an unknown decision denies", func(t *testing.T) {
		ask := &asker{answer: authority.Answer{Decision: 42}}
		a := newAuthority(t, newClock(), authority.WithConfirmer("chat", ask.confirm))
		assert.Equal(t, authority.ReasonDeclined, reasonOf(t, a.Guard()(ctx, guardReq("rm", dangerous, owner, "s1", args))))
	})
	t.Run("the call's context ending while the confirmer waits denies", func(t *testing.T) {
		waiting := make(chan struct{})
		a := newAuthority(t, newClock(), authority.WithConfirmer("chat", func(ctx context.Context, _ authority.ConfirmRequest) (authority.Answer, error) {
			close(waiting)
			<-ctx.Done()
			return authority.Answer{Decision: authority.Allow}, nil // too late
		}))
		cctx, cancel := context.WithCancel(ctx)
		go func() { <-waiting; cancel() }()
		assert.Equal(t, authority.ReasonCanceled, reasonOf(t, a.Guard()(cctx, guardReq("rm", dangerous, owner, "s1", args))))
	})
	t.Run("a confirmer that ignores its context is abandoned at the timeout", func(t *testing.T) {
		release := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		a := newAuthority(t, newClock(), authority.WithConfirmTimeout(20*time.Millisecond),
			authority.WithConfirmer("chat", func(context.Context, authority.ConfirmRequest) (authority.Answer, error) {
				defer wg.Done()
				<-release
				return authority.Answer{Decision: authority.Allow}, nil
			}))
		start := time.Now()
		assert.Equal(t, authority.ReasonConfirmFailed, reasonOf(t, a.Guard()(ctx, guardReq("rm", dangerous, owner, "s1", args))))
		assert.Less(t, time.Since(start), 5*time.Second)
		close(release)
		wg.Wait()
	})
}

func TestConfirmerReceivesTheRequest(t *testing.T) {
	ctx := context.Background()
	reg := toolreg.New()
	_, err := reg.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{Name: "send_mail", Description: "Send mail.",
			Parameters: toolreg.Parameters{Properties: map[string]any{
				"to":       map[string]any{"type": "string"},
				"password": map[string]any{"type": "string", "x-sensitive": true},
				"auth":     map[string]any{"type": "object", "properties": map[string]any{"token": map[string]any{"type": "string", "x-sensitive": true}}},
				"keys":     map[string]any{"type": "array", "items": map[string]any{"type": "string", "x-sensitive": true}},
			}}}},
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "sent", nil },
		Risk:    toolreg.RiskDangerous,
	}, "mail")
	require.NoError(t, err)
	ask := allowing("")
	a := newAuthority(t, newClock(), authority.WithConfirmer("chat", ask.confirm), authority.WithRegistry(reg))
	args := map[string]any{"to": "bob", "password": "hunter2", "auth": map[string]any{"token": "t0k", "user": "me"},
		"keys": []any{"k1", "k2"}, "extra": []any{map[string]any{"a": 1.0}}}
	require.NoError(t, a.Guard()(ctx, guardReq("send_mail", dangerous, owner, "s9", args)))
	got := ask.last()
	assert.Equal(t, authority.ConfirmRequest{
		Tool: "send_mail", Capability: "tool:send_mail", Identity: owner, SessionID: "s9", Owner: true,
		Confirm: toolreg.ConfirmSession, Risk: toolreg.RiskDangerous,
		Args: map[string]any{"to": "bob", "password": "[redacted]", "auth": map[string]any{"token": "[redacted]", "user": "me"},
			"keys": []any{"[redacted]", "[redacted]"}, "extra": []any{map[string]any{"a": 1.0}}},
		ArgsDigest: toolreg.ArgsDigest(args),
	}, got)
	got.Args["extra"].([]any)[0].(map[string]any)["a"] = 2.0
	assert.Equal(t, 1.0, args["extra"].([]any)[0].(map[string]any)["a"], "the confirmer's copy is its own")
	assert.Equal(t, "hunter2", args["password"], "the call's arguments are untouched")
}

func TestConfirmationModes(t *testing.T) {
	ctx := context.Background()
	args := map[string]any{"path": "/tmp/x"}
	other := map[string]any{"path": "/tmp/y"}
	type step struct {
		id          authority.Identity
		session     string
		args        map[string]any
		skipConfirm bool
		advance     time.Duration
		asked       bool // the confirmer is asked for this call
		want        authority.Reason
	}
	tests := []struct {
		name   string
		decl   toolreg.PolicyDecl
		opts   []authority.Option
		answer authority.Answer
		steps  []step
	}{
		{"a session grant is remembered for the session", dangerous, nil,
			authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession},
			[]step{{id: owner, session: "s1", args: args, asked: true}, {id: owner, session: "s1", args: other},
				{id: owner, session: "s2", args: args, asked: true}, {id: friend, session: "s1", args: args, want: authority.ReasonLevel}}},
		{"a session grant lasts its duration", dangerous, nil,
			authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession, For: time.Minute},
			[]step{{id: owner, session: "s1", args: args, asked: true}, {id: owner, session: "s1", args: args, advance: 59 * time.Second},
				{id: owner, session: "s1", args: args, advance: time.Second, asked: true}}},
		{"a grant without duration lasts the grant TTL", dangerous, []authority.Option{authority.WithGrantTTL(time.Hour)},
			authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession},
			[]step{{id: owner, session: "s1", args: args, asked: true}, {id: owner, session: "s1", args: args, advance: 59 * time.Minute},
				{id: owner, session: "s1", args: args, advance: time.Minute, asked: true}}},
		{"a session grant admits its number of uses", dangerous, nil,
			authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession, Uses: 2},
			[]step{{id: owner, session: "s1", args: args, asked: true}, {id: owner, session: "s1", args: args},
				{id: owner, session: "s1", args: other}, {id: owner, session: "s1", args: args, asked: true}}},
		{"a once grant binds to the argument digest and is used once", dangerous, nil,
			authority.Answer{Decision: authority.Allow, Grant: authority.GrantOnce},
			[]step{{id: owner, session: "s1", args: args, asked: true}, {id: owner, session: "s1", args: other, asked: true},
				{id: owner, session: "s1", args: args}, {id: owner, session: "s1", args: args, asked: true}}},
		{"no grant: asked every time", dangerous, nil,
			authority.Answer{Decision: authority.Allow},
			[]step{{id: owner, session: "s1", args: args, asked: true}, {id: owner, session: "s1", args: args, asked: true}}},
		{"always is asked every time and never remembered", toolreg.PolicyDecl{Risk: toolreg.RiskDangerous, Confirm: toolreg.ConfirmAlways}, nil,
			authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession},
			[]step{{id: owner, session: "s1", args: args, asked: true}, {id: owner, session: "s1", args: args, asked: true}}},
		{"an override forces always", dangerous, []authority.Option{authority.WithConfirm("tool:rm", toolreg.ConfirmAlways)},
			authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession},
			[]step{{id: owner, session: "s1", args: args, asked: true}, {id: owner, session: "s1", args: args, asked: true}}},
		{"an override forces session confirmation on a tool that declares none", sensitive,
			[]authority.Option{authority.WithConfirm("tool:rm", toolreg.ConfirmSession)},
			authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession},
			[]step{{id: friend, session: "s1", args: args, asked: true}, {id: friend, session: "s1", args: args}}},
		{"an override turns confirmation off", dangerous, []authority.Option{authority.WithConfirm("tool:rm", toolreg.ConfirmNone)},
			authority.Answer{Decision: authority.Deny},
			[]step{{id: owner, session: "s1", args: args}}},
		{"SkipConfirm skips session confirmation", dangerous, nil,
			authority.Answer{Decision: authority.Deny},
			[]step{{id: owner, session: "s1", args: args, skipConfirm: true}}},
		{"SkipConfirm does not skip always", toolreg.PolicyDecl{Risk: toolreg.RiskDangerous, Confirm: toolreg.ConfirmAlways}, nil,
			authority.Answer{Decision: authority.Deny},
			[]step{{id: owner, session: "s1", args: args, skipConfirm: true, asked: true, want: authority.ReasonDeclined}}},
		{"SkipConfirm never skips authorization", dangerous, nil,
			authority.Answer{Decision: authority.Allow},
			[]step{{id: stranger, session: "s1", args: args, skipConfirm: true, want: authority.ReasonLevel}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := newClock()
			ask := &asker{answer: tc.answer}
			a := newAuthority(t, clock, append([]authority.Option{authority.WithConfirmer("chat", ask.confirm)}, tc.opts...)...)
			for i, s := range tc.steps {
				clock.Add(s.advance)
				before := ask.count()
				r := guardReq("rm", tc.decl, s.id, s.session, s.args)
				r.SkipConfirm = s.skipConfirm
				err := a.Guard()(ctx, r)
				assert.Equal(t, s.want, reasonOf(t, err), "step %d: %v", i, err)
				assert.Equal(t, s.asked, ask.count() > before, "step %d: asked", i)
			}
		})
	}
}
