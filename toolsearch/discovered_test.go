package toolsearch_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

func TestDiscoveredSetsAreBoundedPerSession(t *testing.T) {
	ix := toolsearch.New(toolreg.New(), toolsearch.WithMaxDiscovered(3), toolsearch.WithMaxSessions(2))

	require.True(t, ix.Discover("a", "t1", "t2"))
	require.False(t, ix.Discover("a", "t1"), "nothing new; t1 becomes the most recent")
	require.True(t, ix.Discover("a", "t3", "t4"))
	require.Equal(t, []string{"t1", "t3", "t4"}, ix.Discovered("a"), "t2, discovered least recently, is forgotten")

	require.False(t, ix.Discover("a", "t3"))
	require.True(t, ix.Discover("a", "t5"))
	require.Equal(t, []string{"t3", "t4", "t5"}, ix.Discovered("a"))

	require.True(t, ix.Discover("b", "u1"))
	require.Equal(t, []string{"u1"}, ix.Discovered("b"), "sessions do not share tools")
	require.Equal(t, []string{"t3", "t4", "t5"}, ix.Discovered("a"))

	// "a" was read last, so "b" is the session used least recently.
	require.True(t, ix.Discover("c", "v1"))
	require.Nil(t, ix.Discovered("b"), "past two sessions the least recently used is forgotten")
	require.Equal(t, []string{"t3", "t4", "t5"}, ix.Discovered("a"))
	require.Equal(t, []string{"v1"}, ix.Discovered("c"))

	require.False(t, ix.Discover("", "x"), "no session, nothing recorded")
	require.Nil(t, ix.Discovered(""))
	require.False(t, ix.Discover("d"), "no names, nothing recorded")
	require.Nil(t, ix.Discovered("d"))
}

func TestSearchToolRecordsPerSession(t *testing.T) {
	reg := catalogRegistry(t, nil)
	ix := toolsearch.New(reg, toolsearch.WithMaxDiscovered(4))
	_, err := reg.Register(ix.Tool(), "toolsearch")
	require.NoError(t, err)
	ctx := context.Background()

	res := reg.CallJSON(ctx, "search_tools", `{"query":"git","limit":3}`, toolreg.CallContext{SessionID: "s1"})
	require.Empty(t, res.Code, res.Content)
	require.Len(t, ix.Discovered("s1"), 3)
	require.Nil(t, ix.Discovered("s2"))

	res = reg.CallJSON(ctx, "search_tools", `{"query":"slack","limit":20}`, toolreg.CallContext{SessionID: "s1"})
	require.Empty(t, res.Code, res.Content)
	require.Len(t, ix.Discovered("s1"), 4, "bounded by WithMaxDiscovered")

	res = reg.CallJSON(ctx, "search_tools", `{"query":"slack"}`, toolreg.CallContext{})
	require.Empty(t, res.Code, res.Content)
	require.Nil(t, ix.Discovered(""), "a call without a session records nothing")

	for i := range 100 {
		reg.CallJSON(ctx, "search_tools", `{"query":"calendar"}`, toolreg.CallContext{SessionID: fmt.Sprint("many-", i)})
	}
	require.Len(t, ix.Discovered("many-99"), 4)
}
