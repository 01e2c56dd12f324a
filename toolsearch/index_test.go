package toolsearch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

// listed returns the names Definitions(a) lists.
func listed(reg *toolreg.Registry, a toolreg.Access) map[string]bool {
	out := map[string]bool{}
	for _, d := range reg.Definitions(a) {
		out[d.Function.Name] = true
	}
	return out
}

// randomAccess draws an Access from groups and tool names: random enabled
// groups (sometimes all, sometimes none) and up to three layers of every
// kind the registry has.
func randomAccess(rng *rand.Rand, groups, tools []string) toolreg.Access {
	var a toolreg.Access
	switch rng.IntN(4) {
	case 0: // zero: ungrouped only
	case 1:
		a.Groups = []string{toolreg.AllGroups}
	default:
		for _, g := range groups {
			if rng.IntN(2) == 0 {
				a.Groups = append(a.Groups, g)
			}
		}
	}
	subset := func() []string {
		var out []string
		for _, t := range tools {
			if rng.IntN(3) == 0 {
				out = append(out, t)
			}
		}
		return out
	}
	for range rng.IntN(4) {
		switch rng.IntN(4) {
		case 0:
			a.Layers = append(a.Layers, toolreg.AllowList("allow", subset()))
		case 1:
			a.Layers = append(a.Layers, toolreg.DenyList("deny", subset()))
		case 2:
			salt := rng.Uint64()
			a.Layers = append(a.Layers, toolreg.LayerFunc("func", func(t toolreg.ToolInfo) toolreg.Verdict {
				return toolreg.Verdict{Allowed: (uint64(len(t.Name))*2654435761+salt)%3 != 0}
			}))
		case 3:
			if rng.IntN(8) == 0 {
				a.Layers = append(a.Layers, nil) // admits nothing
			}
		}
	}
	return a
}

// TestSearchStaysWithinAccess draws registries with random groups and
// Access values with random groups and layers, and checks that no search,
// direct or through the search tool, lexical or hybrid, returns a tool that
// Definitions does not list for the same Access.
func TestSearchStaysWithinAccess(t *testing.T) {
	defs := catalog(t)
	groups := []string{"dev", "ops", "comms", "money"}
	var words []string
	for _, d := range defs[:80] {
		words = append(words, strings.Fields(d.Function.Description)...)
	}
	ctx := context.Background()
	for trial := range 40 {
		rng := rand.New(rand.NewPCG(uint64(trial), 7))
		reg := toolreg.New()
		var tools []string
		for _, d := range defs {
			if rng.IntN(4) != 0 {
				continue
			}
			rt := toolreg.RegisteredTool{Definition: d, Handler: echo(d.Function.Name)}
			for _, g := range groups {
				if rng.IntN(3) == 0 {
					rt.Groups = append(rt.Groups, g)
				}
			}
			_, err := reg.Register(rt, "p")
			require.NoError(t, err)
			tools = append(tools, d.Function.Name)
		}
		opts := []toolsearch.Option{toolsearch.WithLimits(20, 20)}
		if trial%2 == 1 {
			opts = append(opts, toolsearch.WithEmbedder(newFakeEmbedder()))
		}
		ix := toolsearch.New(reg, opts...)
		_, err := reg.Register(ix.Tool(), "toolsearch")
		require.NoError(t, err)
		for range 10 {
			a := randomAccess(rng, groups, tools)
			reach := listed(reg, a)
			var q []string
			for range 1 + rng.IntN(4) {
				q = append(q, words[rng.IntN(len(words))])
			}
			query := strings.Join(q, " ")
			if rng.IntN(5) == 0 {
				query = "select:" + strings.Join(tools[:min(len(tools), 30)], ",")
			}
			for _, m := range ix.Search(ctx, a, query, 20) {
				require.Truef(t, reach[m.Name], "trial %d: %q found %q outside the Access", trial, query, m.Name)
			}
			call := toolreg.CallContext{SessionID: fmt.Sprint("s", trial), Access: a}
			res := reg.Call(ctx, "search_tools", map[string]any{"query": query, "limit": 20}, call)
			if !reach["search_tools"] {
				require.Equal(t, toolreg.CodeNotFound, res.Code, "the search tool itself is hidden by this Access")
				continue
			}
			require.Empty(t, res.Code, res.Content)
			var out struct{ Tools []toolreg.Definition }
			require.NoError(t, jsonUnmarshal(res.Content, &out))
			for _, d := range out.Tools {
				require.Truef(t, reach[d.Function.Name], "trial %d: search_tools returned %q outside the Access", trial, d.Function.Name)
			}
			for _, d := range ix.Offer(call.SessionID, a) {
				require.Truef(t, reach[d.Function.Name], "trial %d: Offer offered %q outside the Access", trial, d.Function.Name)
			}
		}
	}
}

func TestSearchReadsNamesInAnyCase(t *testing.T) {
	ix := toolsearch.New(catalogRegistry(t, nil))
	for _, q := range []string{
		"github create issue", "github_create_issue", "GitHub_Create_Issue", "githubCreateIssue",
		"GITHUB-CREATE-ISSUE", "  github\tcreate\nissue  ", "github, create; issue!", "githb creat isue",
		"create issues on github", "creating a github issue",
	} {
		t.Run(q, func(t *testing.T) {
			got := ix.Search(context.Background(), everything, q, 1)
			require.Equal(t, []string{"github_create_issue"}, names(got))
		})
	}
}

func TestIndexFollowsRegistry(t *testing.T) {
	reg := toolreg.New()
	ctx := context.Background()
	ix := toolsearch.New(reg)
	require.Equal(t, 0, ix.Len())
	require.Empty(t, ix.Search(ctx, everything, "weather", 5), "empty registry")

	unregister, err := reg.Register(tool("get_weather", "current weather for a city"), "p")
	require.NoError(t, err)
	_, err = reg.Register(tool("send_email", "send an email message", "to", "subject"), "p")
	require.NoError(t, err)
	_, err = reg.Reserve(tool("book_flight", "book a flight").Definition, "p")
	require.NoError(t, err)
	require.Equal(t, 2, ix.Len(), "reserved tools cannot run and are not indexed")
	require.Equal(t, []string{"get_weather"}, names(ix.Search(ctx, everything, "weather", 5)))
	require.Empty(t, ix.Search(ctx, everything, "flight", 5))

	t.Run("a replaced definition is searched by its new words only", func(t *testing.T) {
		_, err := reg.Register(tool("get_weather", "forecast of rain and sun"), "p")
		require.NoError(t, err)
		require.Empty(t, ix.Search(ctx, everything, "city", 5))
		require.Equal(t, []string{"get_weather"}, names(ix.Search(ctx, everything, "rain forecast", 5)))
	})
	t.Run("a stale unregister func changes nothing", func(t *testing.T) {
		unregister()
		require.Equal(t, 2, ix.Len())
	})
	t.Run("an unregistered tool is gone", func(t *testing.T) {
		reg.UnregisterByPlugin("p")
		require.Equal(t, 0, ix.Len())
		require.Empty(t, ix.Search(ctx, everything, "rain email", 5))
	})
	t.Run("a promoted reserved tool is found", func(t *testing.T) {
		_, err := reg.Reserve(tool("book_flight", "book a flight").Definition, "p")
		require.NoError(t, err)
		_, err = reg.Register(tool("book_flight", "book a flight"), "p")
		require.NoError(t, err)
		require.Equal(t, []string{"book_flight"}, names(ix.Search(ctx, everything, "flight", 5)))
	})
	t.Run("the search tool does not find itself", func(t *testing.T) {
		_, err := reg.Register(ix.Tool(), "toolsearch")
		require.NoError(t, err)
		require.Equal(t, 1, ix.Len())
		require.Empty(t, ix.Search(ctx, everything, "search tools", 5))
		require.Empty(t, ix.Search(ctx, everything, "select:search_tools", 5))
	})
	t.Run("tools of a closed scope are gone", func(t *testing.T) {
		sc := reg.Scope("plugin-b")
		_, err := sc.Register(tool("translate_text", "translate text"))
		require.NoError(t, err)
		require.Equal(t, []string{"translate_text"}, names(ix.Search(ctx, everything, "translate", 5)))
		sc.Close()
		require.Empty(t, ix.Search(ctx, everything, "translate", 5))
	})
}

func TestSelectLoadsToolsByName(t *testing.T) {
	reg := catalogRegistry(t, func(name string) []string {
		if strings.HasPrefix(name, "stripe_") {
			return []string{"payments"}
		}
		return nil
	})
	ix := toolsearch.New(reg)
	ctx := context.Background()
	cases := []struct {
		query string
		want  []string
	}{
		{"select:read_file", []string{"read_file"}},
		{"select:write_file, read_file ,read_file", []string{"write_file", "read_file"}},
		{"select:no_such_tool,read_file", []string{"read_file"}},
		{"select:stripe_create_refund", nil}, // its group is not enabled
		{"select:", nil},
		{"select:,,,", nil},
		{"  select:git_status", []string{"git_status"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			require.Equal(t, c.want, nilIfEmpty(names(ix.Search(ctx, toolreg.Access{}, c.query, 5))))
		})
	}
	t.Run("select obeys the limit", func(t *testing.T) {
		require.Len(t, ix.Search(ctx, everything, "select:read_file,write_file,git_status", 2), 2)
	})
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestSearchLimits(t *testing.T) {
	ix := toolsearch.New(catalogRegistry(t, nil), toolsearch.WithLimits(3, 7))
	ctx := context.Background()
	cases := []struct {
		limit, want int
	}{{0, 3}, {-5, 3}, {1, 1}, {7, 7}, {1000, 7}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("limit %d returns %d", c.limit, c.want), func(t *testing.T) {
			require.Len(t, ix.Search(ctx, everything, "list files in a directory", c.limit), c.want)
		})
	}
}

func TestHostileQueries(t *testing.T) {
	reg := catalogRegistry(t, nil)
	ix := toolsearch.New(reg)
	ctx := context.Background()
	huge := strings.Repeat("github issue ", 1<<20)
	cases := []struct {
		name, query string
		wantNone    bool
	}{
		{"empty", "", true},
		{"spaces", " \t\n ", true},
		{"only punctuation", `!?.,;:'"()[]{}<>/\|@#$%^&*-_+=~`, true},
		{"only stop words", "what is the of to a", true},
		{"invalid UTF-8", "\xff\xfe\xfd github \xc3\x28 issue \xed\xa0\x80", false},
		{"NUL bytes", "github\x00issue\x00", false},
		{"a megabyte of words", huge, false},
		{"one enormous word", strings.Repeat("a", 1<<20), true},
		{"ten thousand distinct words", distinctWords(10000), false},
		{"emoji and right-to-left text", "📅 calendar مرحبا", false},
		{"select with junk", "select:\xff,../../etc,,read_file", false},
		{"a regular expression", `^(git|svn)_.*$`, false},
		{"SQL", `'; DROP TABLE tools; --`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ix.Search(ctx, everything, c.query, 5)
			require.LessOrEqual(t, len(got), 5)
			if c.wantNone {
				require.Empty(t, got)
			}
			res := reg.Call(ctx, "nonexistent", nil, toolreg.CallContext{})
			require.Equal(t, toolreg.CodeNotFound, res.Code)
		})
	}
}

func distinctWords(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "w%dx ", i)
	}
	return b.String()
}

func TestSearchIsDeterministic(t *testing.T) {
	reg := catalogRegistry(t, nil)
	a, b := toolsearch.New(reg), toolsearch.New(reg)
	for _, q := range evalQueries(t) {
		x := a.Search(context.Background(), everything, q.Query, 10)
		y := b.Search(context.Background(), everything, q.Query, 10)
		require.Equal(t, names(x), names(y), q.Query)
		require.True(t, slices.IsSortedFunc(x, func(p, q toolsearch.Match) int {
			switch {
			case p.Score > q.Score:
				return -1
			case p.Score < q.Score:
				return 1
			}
			return strings.Compare(p.Name, q.Name)
		}), "best first, ties by name")
	}
}

func TestNilRegistryIsEmpty(t *testing.T) {
	ix := toolsearch.New(nil)
	require.Equal(t, 0, ix.Len())
	require.Empty(t, ix.Search(context.Background(), everything, "anything", 5))
	require.Empty(t, ix.Offer("s", everything))
	require.Equal(t, "[]", string(ix.OfferJSON("s", everything)))
}

// TestRefreshAfterChangesMatchesAFreshIndex changes a registry at random
// (new tools, new descriptions, removals, reservations, plugins unloaded,
// group changes) and checks after every step that an index kept current
// change by change finds the same tools as one built from scratch, and
// holds as many.
func TestRefreshAfterChangesMatchesAFreshIndex(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"file", "read", "write", "search", "web", "mail", "send", "list", "issue", "calendar"}
	names := []string{"read_file", "write_file", "web_search", "send_mail", "list_issues", "calendar_list", "mail_search", "file_search"}
	reg := toolreg.New()
	kept := toolsearch.New(reg)
	unreg := map[string]func(){}
	for step := range 400 {
		name := names[rng.IntN(len(names))]
		switch rng.IntN(6) {
		case 0, 1, 2:
			desc := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
			tl := tool(name, desc, words[rng.IntN(len(words))])
			if rng.IntN(3) == 0 {
				tl.Groups = []string{"g"}
			}
			stop, err := reg.Register(tl, fmt.Sprintf("p%d", rng.IntN(2)))
			require.NoError(t, err)
			unreg[name] = stop
		case 3:
			if stop := unreg[name]; stop != nil {
				stop()
			}
		case 4:
			if stop, err := reg.Reserve(toolreg.Definition{Function: toolreg.Function{Name: name, Description: "reserved"}}, "p0"); err == nil {
				unreg[name] = stop
			}
		case 5:
			reg.UnregisterByPlugin(fmt.Sprintf("p%d", rng.IntN(2)))
		}
		if step%7 == 0 {
			_, err := reg.RegisterGroup(toolreg.GroupInfo{Name: fmt.Sprintf("g%d", step)}, "q")
			require.NoError(t, err)
		}
		fresh := toolsearch.New(reg)
		require.Equal(t, fresh.Len(), kept.Len(), "step %d: tools indexed", step)
		for _, q := range words {
			require.ElementsMatch(t, matchNames(fresh.Search(ctx, everything, q, 100)), matchNames(kept.Search(ctx, everything, q, 100)),
				"step %d: query %q", step, q)
		}
	}
}

func matchNames(ms []toolsearch.Match) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}
