package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

func defNames(defs []toolreg.Definition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Function.Name
	}
	return out
}

func TestOfferSmallCatalogsWhole(t *testing.T) {
	reg := toolreg.New()
	for i := range 5 {
		_, err := reg.Register(tool(fmt.Sprintf("tool_%d", i), "does things"), "p")
		require.NoError(t, err)
	}
	ix := toolsearch.New(reg, toolsearch.WithOfferAll(5))
	t.Run("without the search tool registered, the registry's own listing", func(t *testing.T) {
		require.Equal(t, reg.Definitions(toolreg.Access{}), ix.Offer("s", toolreg.Access{}))
		require.Equal(t, reg.DefinitionsJSON(toolreg.Access{}), ix.OfferJSON("s", toolreg.Access{}))
	})
	_, err := reg.Register(ix.Tool(), "toolsearch")
	require.NoError(t, err)
	t.Run("with it registered, every tool but the search tool", func(t *testing.T) {
		require.Equal(t, []string{"tool_0", "tool_1", "tool_2", "tool_3", "tool_4"}, defNames(ix.Offer("s", toolreg.Access{})))
	})
	t.Run("one tool more than the bound: the search tool only", func(t *testing.T) {
		_, err := reg.Register(tool("tool_5", "does things"), "p")
		require.NoError(t, err)
		require.Equal(t, []string{"search_tools"}, defNames(ix.Offer("s", toolreg.Access{})))
	})
	t.Run("an Access that reaches fewer tools gets them all", func(t *testing.T) {
		a := toolreg.Access{Layers: []toolreg.Layer{toolreg.DenyList("plan", []string{"tool_0", "tool_1"})}}
		require.Equal(t, []string{"tool_2", "tool_3", "tool_4", "tool_5"}, defNames(ix.Offer("s", a)))
	})
}

// TestOfferIsStableAcrossTurns plays turns of a session over the catalog:
// the offered JSON changes exactly when a search discovers a new tool.
func TestOfferIsStableAcrossTurns(t *testing.T) {
	reg := catalogRegistry(t, nil)
	ix := toolsearch.New(reg, toolsearch.WithAlwaysOffered("read_file", "no_such_tool"))
	_, err := reg.Register(ix.Tool(), "toolsearch")
	require.NoError(t, err)
	ctx := context.Background()
	call := toolreg.CallContext{SessionID: "s1"}

	prev := ix.OfferJSON("s1", call.Access)
	require.Equal(t, []string{"read_file", "search_tools"}, defNames(ix.Offer("s1", call.Access)))
	turns := []struct {
		query   string
		changes bool
	}{
		{"", false}, // a turn without a search
		{"create github issue", true},
		{"create github issue", false},
		{"select:github_create_issue", false},
		{"", false},
		{"read file", true}, // read_file was offered already, its neighbours were not
		{"select:read_file", false},
		{"select:slack_post_message", true},
		{"zzzz qqqq", false}, // finds nothing
	}
	for i, turn := range turns {
		if turn.query != "" {
			res := reg.Call(ctx, "search_tools", map[string]any{"query": turn.query}, call)
			require.Empty(t, res.Code, res.Content)
		}
		cur := ix.OfferJSON("s1", call.Access)
		if turn.changes {
			require.NotEqualf(t, string(prev), string(cur), "turn %d (%q) discovered a tool", i, turn.query)
		} else {
			require.Equalf(t, string(prev), string(cur), "turn %d (%q) discovered nothing new", i, turn.query)
		}
		want, err := json.Marshal(ix.Offer("s1", call.Access))
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(cur))
		require.Equal(t, string(want), string(cur), "OfferJSON is json.Marshal(Offer)")
		prev = cur
	}
	offered := defNames(ix.Offer("s1", call.Access))
	require.IsNonDecreasing(t, offered, "sorted by name")
	require.Contains(t, offered, "github_create_issue")
	require.Contains(t, offered, "slack_post_message")
	require.NotContains(t, offered, "no_such_tool")

	t.Run("another session is offered only its own discoveries", func(t *testing.T) {
		require.Equal(t, []string{"read_file", "search_tools"}, defNames(ix.Offer("s2", call.Access)))
	})
	t.Run("a discovered tool the Access no longer reaches is not offered", func(t *testing.T) {
		a := toolreg.Access{Layers: []toolreg.Layer{toolreg.DenyList("plan", []string{"slack_post_message"})}}
		require.NotContains(t, defNames(ix.Offer("s1", a)), "slack_post_message")
	})
	t.Run("a forgotten session starts over", func(t *testing.T) {
		ix.Forget("s1")
		require.Equal(t, []string{"read_file", "search_tools"}, defNames(ix.Offer("s1", call.Access)))
	})
}
