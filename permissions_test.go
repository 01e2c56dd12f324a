package toolreg_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// permsRegistry holds tools covered by each kind of permission rule.
func permsRegistry(t *testing.T) *toolreg.Registry {
	t.Helper()
	r := toolreg.New()
	for _, n := range []string{"read_file", "write_file", "run_shell", "mcp_github_issue", "mcp_gh_x", "ask_user", "mystery"} {
		mustRegister(t, r, newTool(n, n+" ok", nil), "p")
	}
	own := newTool("send_mail", "send_mail ok", nil)
	own.Permission = "mail:send"
	mustRegister(t, r, own, "p")
	return r
}

func basePermissions() toolreg.Permissions {
	return toolreg.Permissions{
		Name:     "scenario",
		Required: map[string]string{"read_file": "fs:read", "write_file": "fs:write", "send_mail": "mail:admin"},
		Prefixes: map[string]string{"mcp_": "mcp:call", "mcp_github_": "github:use"},
		Deny:     []string{"run_shell"},
		Allow:    []string{"ask_user"},
	}
}

func TestPermissionsPrecedence(t *testing.T) {
	tests := []struct {
		name    string
		perms   func() toolreg.Permissions
		granted []string
		want    []string
	}{
		{"nothing granted: only allowed tools", basePermissions, nil, []string{"ask_user"}},
		{"read granted", basePermissions, []string{"fs:read"}, []string{"ask_user", "read_file"}},
		{"Required wins over the tool's own permission", basePermissions, []string{"mail:send"}, []string{"ask_user"}},
		{"Required's permission admits it", basePermissions, []string{"mail:admin"}, []string{"ask_user", "send_mail"}},
		{"the longest prefix wins", basePermissions, []string{"mcp:call"}, []string{"ask_user", "mcp_gh_x"}},
		{"the longer prefix's permission", basePermissions, []string{"github:use"}, []string{"ask_user", "mcp_github_issue"}},
		{"Deny wins over everything", func() toolreg.Permissions {
			p := basePermissions()
			p.Required["run_shell"] = "shell"
			return p
		}, []string{"shell"}, []string{"ask_user"}},
		{"the tool's own Permission applies without Required", func() toolreg.Permissions {
			p := basePermissions()
			delete(p.Required, "send_mail")
			return p
		}, []string{"mail:send"}, []string{"ask_user", "send_mail"}},
		{"unmapped tools admitted when asked", func() toolreg.Permissions {
			p := basePermissions()
			p.AllowUnmapped = true
			return p
		}, nil, []string{"ask_user", "mystery"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := permsRegistry(t)
			l, err := tc.perms().Layer(tc.granted...)
			require.NoError(t, err)
			a := toolreg.Access{Layers: []toolreg.Layer{l}}
			assert.Equal(t, tc.want, names(r.Definitions(a)))
			for _, info := range r.All() {
				res := r.Call(context.Background(), info.Name, nil, toolreg.CallContext{Access: a})
				assert.Equal(t, contains(tc.want, info.Name), !res.IsError(), "%s: %s", info.Name, res.Content)
			}
		})
	}
}

func TestAPermissionRefusalNamesTheToolAndThePermission(t *testing.T) {
	r := permsRegistry(t)
	p := basePermissions()
	p.Reveal = true
	l, err := p.Layer("fs:read")
	require.NoError(t, err)
	res := r.Call(context.Background(), "write_file", nil, toolreg.CallContext{Access: toolreg.Access{Layers: []toolreg.Layer{l}}})
	assert.Equal(t, toolreg.CodeNotAvailable, res.Code)
	assert.Contains(t, res.Content, `write_file`)
	assert.Contains(t, res.Content, `fs:write`)
	ex := r.Explain("mystery", toolreg.Access{Layers: []toolreg.Layer{l}})
	require.Len(t, ex.Refusals, 1)
	assert.Equal(t, "scenario", ex.Refusals[0].Layer)
	assert.Contains(t, ex.Refusals[0].Reason, "no permission rule")
}

func TestPermissionsLayerRefusesContradictions(t *testing.T) {
	tests := []struct {
		name string
		p    toolreg.Permissions
		want string
	}{
		{"a tool both denied and allowed", toolreg.Permissions{Deny: []string{"x"}, Allow: []string{"x"}}, `"x" is both denied and allowed`},
		{"an empty permission", toolreg.Permissions{Required: map[string]string{"x": ""}}, "empty"},
		{"an empty prefix", toolreg.Permissions{Prefixes: map[string]string{"": "p"}}, "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := tc.p.Layer()
			require.Error(t, err)
			assert.Nil(t, l)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestEntitlements(t *testing.T) {
	catalog := map[string][]string{"files": {"read_file", "write_file"}, "web": {"web_search"}, "system": {"ask_user"}}
	tests := []struct {
		name string
		e    toolreg.Entitlements
		want []string
	}{
		{"nil Allowed allows every group", toolreg.Entitlements{Catalog: catalog},
			[]string{"ask_user", "plugin_tool", "read_file", "web_search", "write_file"}},
		{"an empty Allowed allows no group, but system and uncatalogued tools pass", toolreg.Entitlements{Catalog: catalog, Allowed: []string{}, AlwaysAllowed: []string{"ask_user"}},
			[]string{"ask_user", "plugin_tool"}},
		{"allowed groups", toolreg.Entitlements{Catalog: catalog, Allowed: []string{"files"}},
			[]string{"plugin_tool", "read_file", "write_file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := toolreg.New()
			for _, n := range []string{"read_file", "write_file", "web_search", "ask_user", "plugin_tool"} {
				mustRegister(t, r, newTool(n, "ok", nil), "p")
			}
			l, err := tc.e.Layer()
			require.NoError(t, err)
			assert.Equal(t, tc.want, names(r.Definitions(toolreg.Access{Layers: []toolreg.Layer{l}})))
		})
	}
}

func TestEntitlementsRevealTheMissingGroup(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("web_search", "ok", nil), "p")
	l, err := toolreg.Entitlements{Name: "plan", Catalog: map[string][]string{"web": {"web_search"}}, Allowed: []string{}, Reveal: true}.Layer()
	require.NoError(t, err)
	res := r.Call(context.Background(), "web_search", nil, toolreg.CallContext{Access: toolreg.Access{Layers: []toolreg.Layer{l}}})
	assert.Equal(t, toolreg.CodeNotAvailable, res.Code)
	assert.Contains(t, res.Content, "not in your plan: web")
}

func TestEntitlementsRefuseABadCatalog(t *testing.T) {
	tests := []struct {
		name string
		e    toolreg.Entitlements
		want string
	}{
		{"a tool in two groups", toolreg.Entitlements{Catalog: map[string][]string{"a": {"t"}, "b": {"t"}}}, `"t" is in two capability groups`},
		{"an unknown allowed group", toolreg.Entitlements{Catalog: map[string][]string{"a": {"t"}}, Allowed: []string{"nope"}}, `"nope"`},
		{"an empty tool name", toolreg.Entitlements{Catalog: map[string][]string{"a": {""}}}, "empty tool name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.e.Layer()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
