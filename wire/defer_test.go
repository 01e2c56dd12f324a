package wire_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

// bigCatalog: two everyday tools, the search tool, three deferred GitHub
// tools (group "github") and one deferred admin tool (group "admin").
func bigCatalog(t testing.TB) *toolreg.Registry {
	return registry(t,
		tool("read_file", "Read a file.", map[string]any{"path": str("where")}),
		tool("write_file", "Write a file.", map[string]any{"path": str("where")}),
		tool("search_tools", "Find more tools.", map[string]any{"query": str("what")}),
		tool("gh_issue_create", "Open an issue.", map[string]any{"title": str("t")}, "github"),
		tool("gh_issue_list", "List issues.", nil, "github"),
		tool("gh_pr_merge", "Merge a pull request.", nil, "github"),
		tool("drop_database", "Drop a database.", nil, "admin"),
	)
}

func inGroup(g string) func(toolreg.ToolInfo) bool {
	return func(t toolreg.ToolInfo) bool { return slices.Contains(t.Groups, g) }
}

var github = toolreg.Access{Groups: []string{"github"}}

func TestDeferredWithProviderSearch(t *testing.T) {
	reg := bigCatalog(t)
	t.Run("anthropic sends every reachable tool, marks the deferred ones and adds the BM25 search", func(t *testing.T) {
		a := wire.New(reg, wire.WithDeferredFunc(inGroup("github")), wire.WithDeferred("drop_database"))
		got, err := a.AnthropicTools(github)
		require.NoError(t, err)
		assert.Equal(t, []string{"tool_search_tool_bm25", "gh_issue_create", "gh_issue_list", "gh_pr_merge", "read_file", "write_file"}, names(got, anthropicName),
			"the client-side search tool is left out; drop_database is outside the Access")
		assert.Equal(t, "tool_search_tool_bm25_20251119", got[0].Type)
		for _, tl := range got[1:] {
			assert.Equal(t, strings.HasPrefix(tl.Name, "gh_"), tl.DeferLoading, tl.Name)
		}
	})
	t.Run("anthropic's regex variant", func(t *testing.T) {
		got, err := wire.New(reg, wire.WithDeferredFunc(inGroup("github")), wire.WithSearch(wire.SearchRegex)).AnthropicTools(github)
		require.NoError(t, err)
		assert.Equal(t, "tool_search_tool_regex_20251119", got[0].Type)
		assert.Equal(t, "tool_search_tool_regex", got[0].Name)
	})
	t.Run("the Responses API gets its hosted tool_search", func(t *testing.T) {
		got, err := wire.New(reg, wire.WithDeferredFunc(inGroup("github"))).ResponsesTools(github)
		require.NoError(t, err)
		assert.Equal(t, []string{"tool_search", "gh_issue_create", "gh_issue_list", "gh_pr_merge", "read_file", "write_file"}, names(got, responsesName))
		for _, tl := range got[1:] {
			assert.Equal(t, strings.HasPrefix(tl.Name, "gh_"), tl.DeferLoading, tl.Name)
		}
	})
	t.Run("no deferred tool within reach means no search tool", func(t *testing.T) {
		got, err := wire.New(reg, wire.WithDeferredFunc(inGroup("github"))).AnthropicTools(toolreg.Access{})
		require.NoError(t, err)
		assert.Equal(t, []string{"read_file", "search_tools", "write_file"}, names(got, anthropicName))
	})
}

func TestDeferredWithClientSearch(t *testing.T) {
	reg := bigCatalog(t)
	type listing func(a *wire.Adapter, acc toolreg.Access, discovered ...string) ([]string, error)
	listings := map[string]listing{
		"chat": func(a *wire.Adapter, acc toolreg.Access, d ...string) ([]string, error) {
			tl, err := a.ChatTools(acc, d...)
			return names(tl, chatName), err
		},
		"gemini": func(a *wire.Adapter, acc toolreg.Access, d ...string) ([]string, error) {
			tl, err := a.GeminiTools(acc, d...)
			return names(tl.FunctionDeclarations, geminiName), err
		},
		"anthropic with SearchClient": func(a *wire.Adapter, acc toolreg.Access, d ...string) ([]string, error) {
			tl, err := wire.New(reg, wire.WithDeferredFunc(inGroup("github")), wire.WithSearch(wire.SearchClient)).AnthropicTools(acc, d...)
			for _, x := range tl {
				if x.DeferLoading || x.Type != "" {
					t.Errorf("client-side search sends no provider search: %+v", x)
				}
			}
			return names(tl, anthropicName), err
		},
		"responses with SearchClient": func(a *wire.Adapter, acc toolreg.Access, d ...string) ([]string, error) {
			tl, err := wire.New(reg, wire.WithDeferredFunc(inGroup("github")), wire.WithSearch(wire.SearchClient)).ResponsesTools(acc, d...)
			return names(tl, responsesName), err
		},
	}
	a := wire.New(reg, wire.WithDeferredFunc(inGroup("github")))
	for name, list := range listings {
		t.Run(name, func(t *testing.T) {
			got, err := list(a, github)
			require.NoError(t, err)
			assert.Equal(t, []string{"read_file", "search_tools", "write_file"}, got, "nothing discovered: the always-offered tools")

			got, err = list(a, github, "gh_pr_merge", "gh_issue_create", "drop_database", "no_such_tool", "read_file")
			require.NoError(t, err)
			assert.Equal(t, []string{"read_file", "search_tools", "write_file", "gh_issue_create", "gh_pr_merge"}, got,
				"discovered tools follow in name order; unknown or unreachable names are never sent")

			got, err = list(a, toolreg.Access{}, "gh_pr_merge")
			require.NoError(t, err)
			assert.Equal(t, []string{"read_file", "search_tools", "write_file"}, got, "a discovered tool the Access does not reach is never sent")
		})
	}
}

func TestDeferredListingIsStableAcrossTurns(t *testing.T) {
	a := wire.New(bigCatalog(t), wire.WithDeferredFunc(inGroup("github")))
	turn1, err := a.ChatTools(github, "gh_pr_merge")
	require.NoError(t, err)
	turn2, err := a.ChatTools(github, "gh_pr_merge", "gh_pr_merge")
	require.NoError(t, err)
	assert.Equal(t, mustJSON(t, turn1), mustJSON(t, turn2), "the same discoveries give the same bytes")

	turn3, err := a.ChatTools(github, "gh_pr_merge", "gh_issue_list")
	require.NoError(t, err)
	before := strings.TrimSuffix(mustJSON(t, turn1[:3]), "]")
	assert.True(t, strings.HasPrefix(mustJSON(t, turn3), before), "a new discovery leaves the always-offered prefix unchanged")
}

func TestDeferredNeedsTheSearchTool(t *testing.T) {
	reg := registry(t,
		tool("read_file", "Read a file.", nil),
		tool("gh_issue_list", "List issues.", nil, "github"),
	)
	a := wire.New(reg, wire.WithDeferredFunc(inGroup("github")))
	got, err := a.ChatTools(github)
	assert.ErrorIs(t, err, wire.ErrNoSearchTool)
	assert.Equal(t, []string{"read_file"}, names(got, chatName), "the listing is still returned")

	got, err = a.ChatTools(github, "gh_issue_list")
	require.NoError(t, err, "every deferred tool is discovered: nothing is hidden")
	assert.Equal(t, []string{"read_file", "gh_issue_list"}, names(got, chatName))

	other := wire.New(reg, wire.WithDeferredFunc(inGroup("github")), wire.WithSearchTool("read_file"))
	_, err = other.ChatTools(github)
	require.NoError(t, err, "WithSearchTool names the search tool")
}

func TestSearchToolIsNeverDeferred(t *testing.T) {
	a := wire.New(bigCatalog(t), wire.WithDeferred("search_tools", "write_file"))
	got, err := a.ChatTools(toolreg.Access{})
	require.NoError(t, err)
	assert.Equal(t, []string{"read_file", "search_tools"}, names(got, chatName))
}

func TestDeferredPredicatePanics(t *testing.T) {
	a := wire.New(bigCatalog(t), wire.WithDeferredFunc(func(t toolreg.ToolInfo) bool {
		if t.Name == "write_file" {
			panic("boom")
		}
		return false
	}))
	got, err := a.ChatTools(toolreg.Access{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"write_file"`)
	assert.Equal(t, []string{"read_file", "search_tools", "write_file"}, names(got, chatName), "a panic counts as not deferred")
}
