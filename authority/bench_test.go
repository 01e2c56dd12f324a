package authority_test

import (
	"context"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

// BenchmarkGuard measures the guard's common paths on the memory store.
func BenchmarkGuard(b *testing.B) {
	ctx := context.Background()
	a, err := authority.New(authority.WithOwners(owner), authority.WithDeny("tool:shell_*", "tool:format_*"),
		authority.WithAllow("tool:weather*"),
		authority.WithConfirmer("chat", func(context.Context, authority.ConfirmRequest) (authority.Answer, error) {
			return authority.Answer{Decision: authority.Allow}, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	if err := a.SetLevel(ctx, friend, 1); err != nil {
		b.Fatal(err)
	}
	if err := a.Grant(ctx, authority.Grant{Key: authority.Key{Identity: owner, SessionID: "s1", Capability: "tool:rm"}}); err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"path": "/tmp/x", "recursive": true}
	cases := []struct {
		name string
		req  toolreg.GuardRequest
	}{
		{"public tool, ordinary caller", guardReq("echo", undeclared, stranger, "s1", args)},
		{"sensitive tool, caller with the level", guardReq("read_mail", sensitive, friend, "s1", args)},
		{"sensitive tool, caller below the level", guardReq("read_mail", sensitive, stranger, "s1", args)},
		{"dangerous tool, owner with a session grant", guardReq("rm", dangerous, owner, "s1", args)},
		{"dangerous tool, owner asked", guardReq("rm", dangerous, owner, "s2", args)},
	}
	g := a.Guard()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = g(ctx, c.req)
			}
		})
	}
}

// BenchmarkLayerAdmit measures one Admit, which a registry calls per tool
// per listing.
func BenchmarkLayerAdmit(b *testing.B) {
	a, err := authority.New(authority.WithDeny("tool:shell_*", "tool:format_*"), authority.WithAllow("tool:weather*"))
	if err != nil {
		b.Fatal(err)
	}
	l, err := a.Layer(context.Background(), friend, "s1")
	if err != nil {
		b.Fatal(err)
	}
	info := toolreg.ToolInfo{Name: "read_mail", Visibility: toolreg.VisibilityRestricted, Risk: toolreg.RiskSensitive}
	b.ReportAllocs()
	for b.Loop() {
		_ = l.Admit(info)
	}
}
