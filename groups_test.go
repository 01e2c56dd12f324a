package toolreg_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// groupsRegistry holds an ungrouped tool, two grouped ones and a reserved one.
func groupsRegistry(t *testing.T) *toolreg.Registry {
	t.Helper()
	r := toolreg.New()
	mustRegister(t, r, newTool("calc", "calc ok", nil), "p")
	web := newTool("web_search", "web ok", nil)
	web.Groups = []string{"web"}
	mustRegister(t, r, web, "p")
	shell := newTool("shell_run", "shell ok", nil)
	shell.Groups = []string{"shell", "admin"}
	mustRegister(t, r, shell, "p")
	_, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "web_scrape"}}, "p")
	require.NoError(t, err)
	return r
}

func TestAccessOffersGroupedToolsOnlyWhenEnabled(t *testing.T) {
	r := groupsRegistry(t)
	tests := []struct {
		name   string
		groups []string
		want   []string
	}{
		{"the zero filter offers ungrouped tools only", nil, []string{"calc"}},
		{"an empty list offers ungrouped tools only", []string{}, []string{"calc"}},
		{"one enabled group adds its tools", []string{"web"}, []string{"calc", "web_search"}},
		{"any one of a tool's groups is enough", []string{"admin"}, []string{"calc", "shell_run"}},
		{"an unknown group adds nothing", []string{"nope"}, []string{"calc"}},
		{"the star offers every group but never reserved tools", []string{"*"}, []string{"calc", "shell_run", "web_search"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, names(r.Definitions(toolreg.Access{Groups: tc.groups})))
			var summaries []string
			for _, s := range r.Summaries(toolreg.Access{Groups: tc.groups}) {
				summaries = append(summaries, s.Name)
			}
			assert.Equal(t, tc.want, summaries)
		})
	}
}

func TestExecuteUsesTheListingPredicate(t *testing.T) {
	r := groupsRegistry(t)
	groupSets := [][]string{nil, {}, {"web"}, {"admin"}, {"nope"}, {"*"}, {"web", "shell"}}
	for _, groups := range groupSets {
		offered := map[string]bool{}
		for _, n := range names(r.Definitions(toolreg.Access{Groups: groups})) {
			offered[n] = true
		}
		for _, tool := range []string{"calc", "web_search", "shell_run"} {
			t.Run(fmt.Sprintf("%s with groups %q", tool, groups), func(t *testing.T) {
				call := toolreg.CallContext{Access: toolreg.Access{Groups: groups}}
				res := r.Execute(context.Background(), tool, nil, call)
				if offered[tool] {
					assert.Contains(t, res, "ok")
					return
				}
				_, code := failureOf(t, res)
				assert.Equal(t, toolreg.CodeNotFound, code)
			})
		}
	}
}

func TestTheZeroAccessReachesUngroupedToolsOnly(t *testing.T) {
	r := groupsRegistry(t)
	assert.Equal(t, []string{"calc"}, names(r.Definitions(toolreg.Access{})))
	assert.Equal(t, "calc ok", r.Execute(context.Background(), "calc", nil, toolreg.CallContext{}))
	_, code := failureOf(t, r.Execute(context.Background(), "shell_run", nil, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeNotFound, code, "a grouped tool the zero Access does not list must not run")
}

func TestAGatedToolReadsExactlyLikeAnUnknownName(t *testing.T) {
	r := toolreg.New()
	secret := newTool("secret_tool", "", nil)
	secret.Groups = []string{"hidden"}
	mustRegister(t, r, secret, "p")
	mustRegister(t, r, newTool("other", "", nil), "p")
	call := toolreg.CallContext{Access: toolreg.Access{Groups: []string{}}}

	gated := r.Execute(context.Background(), "secret_tool", nil, call)

	r.UnregisterByPlugin("p")
	mustRegister(t, r, newTool("other", "", nil), "p")
	unknown := r.Execute(context.Background(), "secret_tool", nil, call)
	assert.Equal(t, unknown, gated)
}

func TestSuggestionsComeOnlyFromCallableTools(t *testing.T) {
	r := toolreg.New()
	for _, n := range []string{"read_file", "read_url", "write_file"} {
		mustRegister(t, r, newTool(n, "", nil), "p")
	}
	hidden := newTool("read_file_admin", "", nil)
	hidden.Groups = []string{"admin"}
	mustRegister(t, r, hidden, "p")
	_, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "read_files"}}, "p")
	require.NoError(t, err)

	tests := []struct {
		name    string
		groups  []string
		want    []string
		notWant []string
	}{
		{"a session without the group never sees the grouped name", []string{}, []string{`"read_file"`}, []string{"read_file_admin", "read_files"}},
		{"a session with the group may see it", []string{"admin"}, []string{`"read_file_admin"`}, []string{"read_files"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, code := failureOf(t, r.Execute(context.Background(), "read_fil", nil, toolreg.CallContext{Access: toolreg.Access{Groups: tc.groups}}))
			assert.Equal(t, toolreg.CodeNotFound, code)
			for _, w := range tc.want {
				assert.Contains(t, msg, w)
			}
			for _, nw := range tc.notWant {
				assert.NotContains(t, msg, nw)
			}
		})
	}
}

func TestSuggestionsAreAtMostThree(t *testing.T) {
	r := toolreg.New()
	for _, n := range []string{"file_a", "file_b", "file_c", "file_d", "unrelated"} {
		mustRegister(t, r, newTool(n, "", nil), "p")
	}
	msg, _ := failureOf(t, r.Execute(context.Background(), "file", nil, toolreg.CallContext{}))
	assert.Contains(t, msg, `did you mean "file_a", "file_b", "file_c"?`)
	assert.NotContains(t, msg, "unrelated")

	msg, _ = failureOf(t, r.Execute(context.Background(), "zzz", nil, toolreg.CallContext{}))
	assert.Equal(t, `unknown tool "zzz"`, msg, "no suggestion when nothing is near")
}

func TestGroupRegistration(t *testing.T) {
	r := toolreg.New()
	unregisterOld, err := r.RegisterGroup(toolreg.GroupInfo{Name: "web", Label: "Web"}, "a")
	require.NoError(t, err)
	unregisterNew, err := r.RegisterGroup(toolreg.GroupInfo{Name: "web", Label: "Web and search"}, "b")
	require.NoError(t, err)

	require.Len(t, r.Groups(), 1)
	assert.Equal(t, toolreg.GroupInfo{Name: "web", Label: "Web and search", PluginName: "b"}, r.Groups()[0])
	unregisterOld()
	assert.Len(t, r.Groups(), 1, "the replaced registration's func is a no-op")
	unregisterNew()
	assert.Empty(t, r.Groups())

	v := r.Version()
	undo, err := r.RegisterGroup(toolreg.GroupInfo{Name: "bad name"}, "a")
	require.ErrorIs(t, err, toolreg.ErrInvalidName)
	assert.Contains(t, err.Error(), `"bad name"`)
	undo()
	assert.Empty(t, r.Groups(), "an invalid group name is not recorded")
	assert.Equal(t, v, r.Version())
}

func TestGroupRegistrationRejectsDuplicatesWhenAsked(t *testing.T) {
	r := toolreg.New(toolreg.WithRejectDuplicates())
	_, err := r.RegisterGroup(toolreg.GroupInfo{Name: "web", Label: "Web"}, "a")
	require.NoError(t, err)
	_, err = r.RegisterGroup(toolreg.GroupInfo{Name: "web", Label: "Other"}, "b")
	require.ErrorIs(t, err, toolreg.ErrDuplicate)
	assert.Equal(t, []toolreg.GroupInfo{{Name: "web", Label: "Web", PluginName: "a"}}, r.Groups())
}
