package authority_test

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
)

// registryWith registers one tool per policy, each counting its runs, and
// installs a's guard.
func registryWith(t *testing.T, a *authority.Authority, tools map[string]toolreg.PolicyDecl) (*toolreg.Registry, map[string]*atomic.Int32) {
	t.Helper()
	reg := toolreg.New()
	runs := map[string]*atomic.Int32{}
	for name, decl := range tools {
		n := &atomic.Int32{}
		runs[name] = n
		_, err := reg.Register(toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: name, Description: "Test tool " + name + ".",
				Parameters: toolreg.Parameters{Properties: map[string]any{"path": map[string]any{"type": "string"}}}}},
			Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
				n.Add(1)
				return "ran " + name, nil
			},
			Visibility: decl.Visibility, Confirm: decl.Confirm, Risk: decl.Risk,
		}, "test")
		require.NoError(t, err)
	}
	reg.SetExecutionGuard(a.Guard())
	return reg, runs
}

// codeOf returns the "code" of a failure result, "" for a success.
func codeOf(t *testing.T, res toolreg.Result) string {
	t.Helper()
	if res.Code != "" {
		var f struct{ Error, Code string }
		require.NoError(t, json.Unmarshal([]byte(res.Content), &f), res.Content)
		require.Equal(t, res.Code, f.Code)
	}
	return res.Code
}

func TestThroughARegistry(t *testing.T) {
	ctx := context.Background()
	a, err := authority.New(authority.WithOwners(owner))
	require.NoError(t, err)
	require.NoError(t, a.SetLevel(ctx, friend, 1))
	reg, runs := registryWith(t, a, map[string]toolreg.PolicyDecl{
		"delete_files": dangerous, "read_mail": sensitive, "echo": undeclared,
	})
	anonymous := toolreg.CallContext{SessionID: "s1"}
	as := func(id authority.Identity) toolreg.CallContext {
		return toolreg.CallContext{SessionID: "s1", Platform: id.Platform, UserID: id.UserID}
	}
	tests := []struct {
		name string
		tool string
		call toolreg.CallContext
		code string
	}{
		{"a dangerous tool is not executed for an anonymous user", "delete_files", anonymous, toolreg.CodeDenied},
		{"a sensitive tool is not executed for an anonymous user", "read_mail", anonymous, toolreg.CodeDenied},
		{"a sensitive tool runs for the owner", "read_mail", as(owner), ""},
		{"a dangerous tool is not run for the owner when no confirmer is available", "delete_files", as(owner), toolreg.CodeDenied},
		{"a tool with no declared policy runs for an ordinary user", "echo", as(stranger), ""},
		{"a tool with no declared policy runs for an anonymous user", "echo", anonymous, ""},
		{"the same tool is refused to one identity", "read_mail", as(stranger), toolreg.CodeDenied},
		{"and runs for another: the guard reads the call's identity", "read_mail", as(friend), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := runs[tc.tool].Load()
			res := reg.Call(ctx, tc.tool, map[string]any{"path": "/tmp/x"}, tc.call)
			assert.Equal(t, tc.code, codeOf(t, res), res.Content)
			ran := runs[tc.tool].Load() > before
			assert.Equal(t, tc.code == "", ran, "the handler ran: %v", ran)
		})
	}
	t.Run("two identities calling at once each get their own answer", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				assert.Equal(t, toolreg.CodeDenied, reg.Call(ctx, "read_mail", nil, as(stranger)).Code)
			})
			wg.Go(func() {
				assert.Equal(t, "", reg.Call(ctx, "read_mail", nil, as(friend)).Code)
			})
		}
		wg.Wait()
	})
	t.Run("the model reads why", func(t *testing.T) {
		res := reg.Call(ctx, "delete_files", nil, as(owner))
		assert.Contains(t, res.Content, `needs confirmation and no one can confirm on platform \"chat\"`)
		res = reg.Call(ctx, "read_mail", nil, anonymous)
		assert.Contains(t, res.Content, `needs authority level 1`)
	})
}

func TestThroughARegistryWithConfirmation(t *testing.T) {
	ctx := context.Background()
	ask := allowing(authority.GrantSession)
	a, err := authority.New(authority.WithOwners(owner), authority.WithConfirmer("chat", ask.confirm),
		authority.WithDeferredApproval("web"), authority.WithOwners(authority.Identity{Platform: "web", UserID: "olivia"}))
	require.NoError(t, err)
	reg, runs := registryWith(t, a, map[string]toolreg.PolicyDecl{"delete_files": dangerous})
	chat := toolreg.CallContext{SessionID: "s1", Platform: "chat", UserID: "olivia"}

	t.Run("a confirmed call runs and the session is remembered", func(t *testing.T) {
		require.Equal(t, "", reg.Call(ctx, "delete_files", nil, chat).Code)
		require.Equal(t, "", reg.Call(ctx, "delete_files", nil, chat).Code)
		assert.Equal(t, 1, ask.count())
		assert.Equal(t, int32(2), runs["delete_files"].Load())
	})
	t.Run("a deferred approval runs the same call exactly once", func(t *testing.T) {
		web := toolreg.CallContext{SessionID: "w1", Platform: "web", UserID: "olivia"}
		args := map[string]any{"path": "/tmp/old"}
		before := runs["delete_files"].Load()
		res := reg.Call(ctx, "delete_files", args, web)
		require.Equal(t, toolreg.CodeConfirmationRequired, codeOf(t, res), res.Content)
		var f struct{ Error string }
		require.NoError(t, json.Unmarshal([]byte(res.Content), &f))
		id := requestIDIn(t, f.Error)
		_, err := a.Approve(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, toolreg.CodeConfirmationRequired, reg.Call(ctx, "delete_files", map[string]any{"path": "/"}, web).Code,
			"other arguments are not approved")
		assert.Equal(t, "", reg.Call(ctx, "delete_files", args, web).Code)
		assert.Equal(t, toolreg.CodeConfirmationRequired, reg.Call(ctx, "delete_files", args, web).Code)
		assert.Equal(t, before+1, runs["delete_files"].Load())
	})
	t.Run("ChainGuards: another guard's refusal comes first, the authority runs after an allow", func(t *testing.T) {
		var order []string
		var mu sync.Mutex
		note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
		first := func(_ context.Context, req toolreg.GuardRequest) error {
			note("first")
			if req.UserID == "blocked" {
				return toolreg.NeedConfirmation("blocked by the first guard")
			}
			return nil
		}
		reg.SetExecutionGuard(toolreg.ChainGuards(first, a.Guard()))
		t.Cleanup(func() { reg.SetExecutionGuard(a.Guard()) })
		res := reg.Call(ctx, "delete_files", nil, toolreg.CallContext{Platform: "chat", UserID: "blocked"})
		assert.Contains(t, res.Content, "blocked by the first guard")
		res = reg.Call(ctx, "delete_files", nil, toolreg.CallContext{Platform: "chat", UserID: "sam"})
		assert.Equal(t, toolreg.CodeDenied, res.Code)
		assert.Contains(t, res.Content, "needs authority level 2")
		assert.Equal(t, []string{"first", "first"}, order)
	})
}

// requestIDIn finds the request id quoted in a pending message.
func requestIDIn(t *testing.T, msg string) string {
	t.Helper()
	var id string
	for i := 0; i+34 <= len(msg); i++ {
		if msg[i] == '"' && msg[i+33] == '"' {
			cand := msg[i+1 : i+33]
			ok := true
			for _, c := range cand {
				if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
					ok = false
					break
				}
			}
			if ok {
				id = cand
				break
			}
		}
	}
	require.NotEmpty(t, id, "no request id in %q", msg)
	return id
}

func TestLayerHidesWhatACallerCanNeverRun(t *testing.T) {
	ctx := context.Background()
	clock := newClock()
	a := newAuthority(t, clock, authority.WithDeny("tool:format_disk"), authority.WithAllow("tool:weather"),
		authority.WithConfirmer("chat", allowing("").confirm))
	banned := authority.Identity{Platform: "chat", UserID: "bart"}
	require.NoError(t, a.SetLevel(ctx, banned, -1))
	reg, _ := registryWith(t, a, map[string]toolreg.PolicyDecl{
		"echo": undeclared, "read_mail": sensitive, "delete_files": dangerous, "format_disk": safe,
		"weather": sensitive, "ask_first": {Confirm: toolreg.ConfirmAlways},
	})
	listed := func(id authority.Identity, session string) []string {
		t.Helper()
		l, err := a.Layer(ctx, id, session)
		require.NoError(t, err)
		var names []string
		for _, d := range reg.Definitions(toolreg.Access{Layers: []toolreg.Layer{l}}) {
			names = append(names, d.Function.Name)
		}
		return names
	}
	tests := []struct {
		name string
		id   authority.Identity
		want []string
	}{
		{"an owner sees everything but hard-denied tools", owner, []string{"ask_first", "delete_files", "echo", "read_mail", "weather"}},
		{"level 1 sees sensitive tools, not dangerous ones", friend, []string{"ask_first", "echo", "read_mail", "weather"}},
		{"a stranger sees level-0 tools, confirm-only ones and what an allow glob opens", stranger, []string{"ask_first", "echo", "weather"}},
		{"an anonymous caller sees the same", authority.Identity{}, []string{"ask_first", "echo", "weather"}},
		{"a banned caller sees nothing", banned, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, listed(tc.id, "s1"))
		})
	}
	t.Run("an authorizing grant of the session shows its tool in that session only", func(t *testing.T) {
		require.NoError(t, a.Grant(ctx, authority.Grant{Key: authority.Key{Identity: stranger, SessionID: "s1",
			Capability: "tool:read_mail"}, Authorizes: true}))
		assert.Contains(t, listed(stranger, "s1"), "read_mail")
		assert.NotContains(t, listed(stranger, "s2"), "read_mail")
	})
	t.Run("a hidden tool reads as an unknown name at Execute, and Explain says why", func(t *testing.T) {
		l, err := a.Layer(ctx, stranger, "s2")
		require.NoError(t, err)
		access := toolreg.Access{Layers: []toolreg.Layer{l}}
		res := reg.Call(ctx, "delete_files", nil, toolreg.CallContext{Platform: "chat", UserID: "sam", SessionID: "s2", Access: access})
		assert.Equal(t, toolreg.CodeNotFound, res.Code)
		unknown := reg.Call(ctx, "no_such_tool", nil, toolreg.CallContext{Access: access})
		assert.Equal(t, toolreg.CodeNotFound, unknown.Code)
		ex := reg.Explain("delete_files", access)
		require.Len(t, ex.Refusals, 1)
		assert.Equal(t, toolreg.Refusal{Layer: authority.LayerName, Reason: "needs authority level 2"}, ex.Refusals[0])
		ex = reg.Explain("format_disk", toolreg.Access{Layers: []toolreg.Layer{mustLayer(t, a, owner)}})
		assert.Equal(t, "denied by policy", ex.Refusals[0].Reason)
	})
	t.Run("the layer and the guard agree for every tool and caller", func(t *testing.T) {
		for _, id := range []authority.Identity{owner, friend, stranger, banned, {}} {
			l := mustLayer(t, a, id)
			for _, info := range reg.All() {
				admitted := l.Admit(info).Allowed
				err := a.Guard()(ctx, guardReq(info.Name, toolreg.PolicyDecl{Risk: info.Risk, Visibility: info.Visibility, Confirm: info.Confirm}, id, "s9", nil))
				authorizationPassed := err == nil || reasonOf(t, err) == authority.ReasonDeclined ||
					reasonOf(t, err) == authority.ReasonNoConfirmer
				assert.Equal(t, admitted, authorizationPassed, "%s for %v: layer %v, guard %v", info.Name, id, admitted, err)
			}
		}
	})
	t.Run("a layer for an invalid identity or a failing store is an error", func(t *testing.T) {
		l, err := a.Layer(ctx, authority.Identity{UserID: "\xff"}, "s")
		assert.ErrorIs(t, err, authority.ErrInvalid)
		assert.Nil(t, l)
		broken, err := authority.New(authority.WithStore(&failingStore{authority.NewMemoryStore()}))
		require.NoError(t, err)
		l, err = broken.Layer(ctx, stranger, "s")
		assert.ErrorIs(t, err, errStoreDown)
		assert.Nil(t, l)
	})
}

func mustLayer(t *testing.T, a *authority.Authority, id authority.Identity) toolreg.Layer {
	t.Helper()
	l, err := a.Layer(context.Background(), id, "s9")
	require.NoError(t, err)
	return l
}
