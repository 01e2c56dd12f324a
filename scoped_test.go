package toolreg_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

func scopedGroupsOf(r *toolreg.Registry, name string) []string {
	for _, ti := range r.All() {
		if ti.Name == name {
			return ti.Groups
		}
	}
	return nil
}

func TestScopeFillsThePluginAndMergesGroups(t *testing.T) {
	r := toolreg.New()
	s := r.Scope("web")
	tool := newTool("fetch", "", nil)
	tool.Groups = append(make([]string, 0, 4), "net", "web") // spare capacity an append could write into
	_, err := s.WithGroups("web", "browse").Register(tool)
	require.NoError(t, err)
	_, err = s.Register(newTool("plain", "", nil))
	require.NoError(t, err)

	assert.Equal(t, []string{"net", "web", "browse"}, scopedGroupsOf(r, "fetch"), "merged, not replaced, no duplicates")
	assert.Empty(t, scopedGroupsOf(r, "plain"), "the parent scope adds no groups")
	for _, ti := range r.All() {
		assert.Equal(t, "web", ti.PluginName)
	}
	assert.Equal(t, []string{"net", "web", ""}, tool.Groups[:3], "the caller's slice is not written")
}

func TestScopeCloseRemovesEverythingOfThePlugin(t *testing.T) {
	r := toolreg.New()
	s := r.Scope("p")
	_, err := s.WithGroups("g").Register(newTool("a", "", nil))
	require.NoError(t, err)
	_, err = s.RegisterGroup(toolreg.GroupInfo{Name: "g"})
	require.NoError(t, err)
	mustRegister(t, r, newTool("direct", "", nil), "p")
	mustRegister(t, r, newTool("other", "", nil), "q")

	s.Close()
	assert.Equal(t, []string{"other"}, names(r.Definitions(toolreg.Access{Groups: []string{"*"}})))
	assert.Empty(t, r.Groups())
}

func TestScopeUnregisterRemovesOneTool(t *testing.T) {
	r := toolreg.New()
	s := r.Scope("p")
	unregister, err := s.Register(newTool("a", "", nil))
	require.NoError(t, err)
	_, err = s.Register(newTool("b", "", nil))
	require.NoError(t, err)

	unregister()
	assert.Equal(t, []string{"b"}, names(r.Definitions(toolreg.Access{})))

	r2 := toolreg.New()
	require.NoError(t, s.Bind(r2))
	assert.Equal(t, []string{"b"}, names(r2.Definitions(toolreg.Access{})), "a removed tool is not applied to a later binding")
}

func TestScopeErrorsAreReturnedWhetherBoundOrNot(t *testing.T) {
	bad := newTool("bad name", "", nil)
	tests := []struct {
		name  string
		scope *toolreg.Scope
	}{
		{"bound", toolreg.New().Scope("p")},
		{"unbound", toolreg.NewScope("p")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			unregister, err := tc.scope.Register(bad)
			require.ErrorIs(t, err, toolreg.ErrInvalidName)
			unregister()
			r := toolreg.New()
			require.NoError(t, tc.scope.Bind(r))
			assert.Empty(t, r.All(), "a refused tool is not kept for later")
		})
	}
}

func TestNewScopeAppliesRegistrationsAtBind(t *testing.T) {
	s := toolreg.NewScope("late")
	_, err := s.WithGroups("g").Register(newTool("early", "early ok", nil))
	require.NoError(t, err)
	_, err = s.RegisterGroup(toolreg.GroupInfo{Name: "g", Label: "G"})
	require.NoError(t, err)

	first := toolreg.New()
	require.NoError(t, s.Bind(first))
	assert.True(t, first.Has("early"))
	_, err = s.Register(newTool("after_bind", "", nil))
	require.NoError(t, err)
	assert.True(t, first.Has("after_bind"), "registrations after Bind go straight to the registry")

	replacement := toolreg.New()
	require.NoError(t, s.Bind(replacement))
	for _, n := range []string{"early", "after_bind"} {
		assert.True(t, replacement.Has(n), "%s is applied again to the new registry", n)
		assert.False(t, first.Has(n), "%s leaves the old registry", n)
	}
	require.Len(t, replacement.Groups(), 1)
	assert.Equal(t, "late", replacement.Groups()[0].PluginName)
	assert.Equal(t, []string{"g"}, scopedGroupsOf(replacement, "early"))
	inG := toolreg.CallContext{Access: toolreg.Access{Groups: []string{"g"}}}
	assert.Equal(t, "early ok", replacement.Execute(context.Background(), "early", nil, inG))

	v := replacement.Version()
	require.NoError(t, s.Bind(replacement))
	assert.Equal(t, v, replacement.Version(), "binding the same registry again does nothing")

	require.NoError(t, s.Bind(nil))
	assert.Empty(t, replacement.All(), "Bind(nil) unbinds")
}
