package toolreg_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

func TestRiskDefaults(t *testing.T) {
	tests := []struct {
		name string
		risk toolreg.Risk
		want toolreg.Policy
	}{
		{"a safe tool is public without confirmation", toolreg.RiskSafe, toolreg.Policy{Visibility: toolreg.VisibilityPublic}},
		{"a sensitive tool is restricted without confirmation", toolreg.RiskSensitive, toolreg.Policy{Visibility: toolreg.VisibilityRestricted}},
		{"a dangerous tool is restricted and confirmed once per session", toolreg.RiskDangerous, toolreg.Policy{Visibility: toolreg.VisibilityRestricted, Confirm: toolreg.ConfirmSession}},
		{"an unset risk yields the zero policy", toolreg.RiskUnset, toolreg.Policy{}},
		{"an unknown risk yields the zero policy", toolreg.Risk("catastrophic"), toolreg.Policy{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, toolreg.RiskDefaults(tt.risk))
		})
	}
}

func TestResolvePolicy(t *testing.T) {
	const (
		public     = toolreg.VisibilityPublic
		restricted = toolreg.VisibilityRestricted
	)
	tests := []struct {
		name       string
		decl       toolreg.PolicyDecl
		defaultVis toolreg.Visibility
		want       toolreg.Policy
	}{
		{
			name: "an empty declaration with no default is public without confirmation",
			decl: toolreg.PolicyDecl{},
			want: toolreg.Policy{Visibility: public},
		},
		{
			name:       "an empty declaration takes the default visibility",
			decl:       toolreg.PolicyDecl{},
			defaultVis: restricted,
			want:       toolreg.Policy{Visibility: restricted},
		},
		{
			name:       "an explicit public default is kept",
			decl:       toolreg.PolicyDecl{},
			defaultVis: public,
			want:       toolreg.Policy{Visibility: public},
		},
		{
			name:       "a safe risk beats a restricted default",
			decl:       toolreg.PolicyDecl{Risk: toolreg.RiskSafe},
			defaultVis: restricted,
			want:       toolreg.Policy{Visibility: public},
		},
		{
			name:       "a sensitive risk beats a public default",
			decl:       toolreg.PolicyDecl{Risk: toolreg.RiskSensitive},
			defaultVis: public,
			want:       toolreg.Policy{Visibility: restricted},
		},
		{
			name: "a dangerous risk expands to restricted and session confirmation",
			decl: toolreg.PolicyDecl{Risk: toolreg.RiskDangerous},
			want: toolreg.Policy{Visibility: restricted, Confirm: toolreg.ConfirmSession},
		},
		{
			name: "an explicit visibility beats the risk default",
			decl: toolreg.PolicyDecl{Risk: toolreg.RiskDangerous, Visibility: public},
			want: toolreg.Policy{Visibility: public, Confirm: toolreg.ConfirmSession},
		},
		{
			name: "an explicit confirm beats the risk default",
			decl: toolreg.PolicyDecl{Risk: toolreg.RiskDangerous, Confirm: toolreg.ConfirmAlways},
			want: toolreg.Policy{Visibility: restricted, Confirm: toolreg.ConfirmAlways},
		},
		{
			name: "explicit fields both beat the risk",
			decl: toolreg.PolicyDecl{Risk: toolreg.RiskSafe, Visibility: restricted, Confirm: toolreg.ConfirmAlways},
			want: toolreg.Policy{Visibility: restricted, Confirm: toolreg.ConfirmAlways},
		},
		{
			name:       "an explicit visibility beats the default visibility",
			decl:       toolreg.PolicyDecl{Visibility: public},
			defaultVis: restricted,
			want:       toolreg.Policy{Visibility: public},
		},
		{
			name:       "a confirm without a risk keeps the default visibility",
			decl:       toolreg.PolicyDecl{Confirm: toolreg.ConfirmSession},
			defaultVis: restricted,
			want:       toolreg.Policy{Visibility: restricted, Confirm: toolreg.ConfirmSession},
		},
		{
			name: "a confirm without a risk or default is public",
			decl: toolreg.PolicyDecl{Confirm: toolreg.ConfirmAlways},
			want: toolreg.Policy{Visibility: public, Confirm: toolreg.ConfirmAlways},
		},
		{
			name:       "a sensitive risk falls through to no confirmation",
			decl:       toolreg.PolicyDecl{Risk: toolreg.RiskSensitive},
			defaultVis: restricted,
			want:       toolreg.Policy{Visibility: restricted, Confirm: toolreg.ConfirmNone},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, toolreg.ResolvePolicy(tt.decl, tt.defaultVis))
		})
	}
}

func TestMinLevel(t *testing.T) {
	tests := []struct {
		risk       toolreg.Risk
		visibility toolreg.Visibility
		want       int
	}{
		{toolreg.RiskDangerous, "", 2},
		{toolreg.RiskDangerous, toolreg.VisibilityPublic, 2},
		{toolreg.RiskDangerous, toolreg.VisibilityRestricted, 2},
		{toolreg.RiskSensitive, "", 1},
		{toolreg.RiskSensitive, toolreg.VisibilityPublic, 1},
		{toolreg.RiskSensitive, toolreg.VisibilityRestricted, 1},
		{toolreg.RiskSafe, "", 0},
		{toolreg.RiskSafe, toolreg.VisibilityPublic, 0},
		{toolreg.RiskSafe, toolreg.VisibilityRestricted, 0},
		{toolreg.RiskUnset, "", toolreg.DefaultAuthority},
		{toolreg.RiskUnset, toolreg.VisibilityPublic, toolreg.DefaultAuthority},
		{toolreg.RiskUnset, toolreg.VisibilityRestricted, toolreg.RestrictedLevel},
	}
	for _, tt := range tests {
		name := "risk " + policyEnumName(string(tt.risk)) + " with visibility " + policyEnumName(string(tt.visibility)) + " needs its level"
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tt.want, toolreg.MinLevel(tt.risk, tt.visibility))
		})
	}

	t.Run("the documented constants hold", func(t *testing.T) {
		assert.Equal(t, 0, toolreg.DefaultAuthority)
		assert.Equal(t, 2, toolreg.RestrictedLevel)
	})
}

// policyEnumName renders an enum value for a subtest name, "" included.
func policyEnumName(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

func TestRegisterRejectsUnknownPolicyValues(t *testing.T) {
	tests := []struct {
		name    string
		modify  func(*toolreg.RegisteredTool)
		field   string
		value   string
		allowed []string
	}{
		{
			name:    "an unknown visibility names the field and the allowed values",
			modify:  func(tool *toolreg.RegisteredTool) { tool.Visibility = "private" },
			field:   "Visibility",
			value:   "private",
			allowed: []string{`"public"`, `"restricted"`},
		},
		{
			name:    "a visibility in the wrong case is unknown",
			modify:  func(tool *toolreg.RegisteredTool) { tool.Visibility = "Public" },
			field:   "Visibility",
			value:   "Public",
			allowed: []string{`"public"`, `"restricted"`},
		},
		{
			name:    "an unknown confirm names the field and the allowed values",
			modify:  func(tool *toolreg.RegisteredTool) { tool.Confirm = "once" },
			field:   "Confirm",
			value:   "once",
			allowed: []string{`"session"`, `"always"`},
		},
		{
			name:    "an unknown risk names the field and the allowed values",
			modify:  func(tool *toolreg.RegisteredTool) { tool.Risk = "high" },
			field:   "Risk",
			value:   "high",
			allowed: []string{`"safe"`, `"sensitive"`, `"dangerous"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := toolreg.New()
			tool := newTool("t", "ok", nil)
			tt.modify(&tool)
			unregister, err := r.Register(tool, "p")
			require.Error(t, err)
			require.NotNil(t, unregister, "the returned func is a no-op, never nil")
			unregister()

			assert.ErrorIs(t, err, toolreg.ErrInvalidPolicy)
			var re *toolreg.RegisterError
			require.ErrorAs(t, err, &re)
			require.Len(t, re.Problems, 1)
			assert.ErrorIs(t, re.Problems[0], toolreg.ErrInvalidPolicy)
			msg := re.Problems[0].Error()
			assert.Contains(t, msg, tt.field)
			assert.Contains(t, msg, `"`+tt.value+`"`)
			for _, a := range tt.allowed {
				assert.Contains(t, msg, a)
			}
			assert.False(t, r.Has("t"))
			assert.Empty(t, r.All())
		})
	}

	t.Run("three unknown values are three problems of one error", func(t *testing.T) {
		r := toolreg.New()
		tool := newTool("t", "ok", nil)
		tool.Visibility, tool.Confirm, tool.Risk = "private", "once", "high"
		_, err := r.Register(tool, "p")
		var re *toolreg.RegisterError
		require.ErrorAs(t, err, &re)
		require.Len(t, re.Problems, 3)
		for _, p := range re.Problems {
			assert.ErrorIs(t, p, toolreg.ErrInvalidPolicy)
		}
		assert.Contains(t, err.Error(), "Visibility")
		assert.Contains(t, err.Error(), "Confirm")
		assert.Contains(t, err.Error(), "Risk")
	})

	t.Run("every known value registers", func(t *testing.T) {
		r := toolreg.New()
		i := 0
		for _, v := range []toolreg.Visibility{"", toolreg.VisibilityPublic, toolreg.VisibilityRestricted} {
			for _, c := range []toolreg.Confirm{toolreg.ConfirmNone, toolreg.ConfirmSession, toolreg.ConfirmAlways} {
				for _, rk := range []toolreg.Risk{toolreg.RiskUnset, toolreg.RiskSafe, toolreg.RiskSensitive, toolreg.RiskDangerous} {
					tool := newTool(fmt.Sprintf("t%d", i), "ok", nil)
					tool.Visibility, tool.Confirm, tool.Risk = v, c, rk
					_, err := r.Register(tool, "p")
					require.NoError(t, err, "visibility %q, confirm %q, risk %q", v, c, rk)
					i++
				}
			}
		}
		assert.Len(t, r.All(), 36)
	})
}

func TestAllReportsResolvedPolicyAndRawRisk(t *testing.T) {
	tests := []struct {
		name       string
		visibility toolreg.Visibility
		confirm    toolreg.Confirm
		risk       toolreg.Risk
		want       toolreg.Policy
	}{
		{"an undeclared policy is public without confirmation", "", "", "", toolreg.Policy{Visibility: toolreg.VisibilityPublic}},
		{"a safe risk resolves to public", "", "", toolreg.RiskSafe, toolreg.Policy{Visibility: toolreg.VisibilityPublic}},
		{"a sensitive risk resolves to restricted", "", "", toolreg.RiskSensitive, toolreg.Policy{Visibility: toolreg.VisibilityRestricted}},
		{"a dangerous risk resolves to restricted with session confirmation", "", "", toolreg.RiskDangerous, toolreg.Policy{Visibility: toolreg.VisibilityRestricted, Confirm: toolreg.ConfirmSession}},
		{"an explicit visibility overrides the risk", toolreg.VisibilityPublic, "", toolreg.RiskSensitive, toolreg.Policy{Visibility: toolreg.VisibilityPublic}},
		{"an explicit confirm overrides the risk", "", toolreg.ConfirmAlways, toolreg.RiskDangerous, toolreg.Policy{Visibility: toolreg.VisibilityRestricted, Confirm: toolreg.ConfirmAlways}},
		{"explicit fields without a risk are kept", toolreg.VisibilityRestricted, toolreg.ConfirmSession, "", toolreg.Policy{Visibility: toolreg.VisibilityRestricted, Confirm: toolreg.ConfirmSession}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := toolreg.New()
			tool := newTool("t", "ok", nil)
			tool.Visibility, tool.Confirm, tool.Risk = tt.visibility, tt.confirm, tt.risk
			tool.Groups = []string{"g"}
			mustRegister(t, r, tool, "plug")

			all := r.All()
			require.Len(t, all, 1)
			got := all[0]
			assert.Equal(t, tt.want.Visibility, got.Visibility, "resolved visibility")
			assert.Equal(t, tt.want.Confirm, got.Confirm, "resolved confirm")
			assert.Equal(t, tt.risk, got.Risk, "risk as declared")
			assert.Equal(t, toolreg.ResolvePolicy(toolreg.PolicyDecl{Visibility: tt.visibility, Confirm: tt.confirm, Risk: tt.risk}, ""),
				toolreg.Policy{Visibility: got.Visibility, Confirm: got.Confirm}, "All agrees with ResolvePolicy")
			assert.Equal(t, "t", got.Name)
			assert.Equal(t, "test tool t", got.Description)
			assert.Equal(t, "plug", got.PluginName)
			assert.Equal(t, []string{"g"}, got.Groups)
			assert.False(t, got.Reserved)
		})
	}

	t.Run("tools are listed by name with each one's own policy", func(t *testing.T) {
		r := toolreg.New()
		danger := newTool("rm", "ok", nil)
		danger.Risk = toolreg.RiskDangerous
		mustRegister(t, r, danger, "p")
		mustRegister(t, r, newTool("ls", "ok", nil), "p")
		all := r.All()
		require.Len(t, all, 2)
		assert.Equal(t, "ls", all[0].Name)
		assert.Equal(t, toolreg.VisibilityPublic, all[0].Visibility)
		assert.Equal(t, toolreg.RiskUnset, all[0].Risk)
		assert.Equal(t, "rm", all[1].Name)
		assert.Equal(t, toolreg.VisibilityRestricted, all[1].Visibility)
		assert.Equal(t, toolreg.ConfirmSession, all[1].Confirm)
		assert.Equal(t, toolreg.RiskDangerous, all[1].Risk)
	})

	t.Run("a reserved tool is listed with the policy of an undeclared one", func(t *testing.T) {
		r := toolreg.New()
		_, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "later"}}, "p")
		require.NoError(t, err)
		all := r.All()
		require.Len(t, all, 1)
		assert.Equal(t, toolreg.VisibilityPublic, all[0].Visibility)
		assert.Equal(t, toolreg.ConfirmNone, all[0].Confirm)
		assert.Equal(t, toolreg.RiskUnset, all[0].Risk)
		assert.True(t, all[0].Reserved)
	})
}
