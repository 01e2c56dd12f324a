package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

func names(defs []toolreg.Definition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Function.Name
	}
	return out
}

func TestRegisterReplacesAnExistingName(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("echo", "first", nil), "a")
	mustRegister(t, r, newTool("echo", "second", nil), "b")

	assert.Equal(t, "second", r.Execute(context.Background(), "echo", nil, toolreg.CallContext{}))
	all := r.All()
	require.Len(t, all, 1)
	assert.Equal(t, "b", all[0].PluginName)
}

func TestUnregisterRemovesOnlyItsOwnRegistration(t *testing.T) {
	r := toolreg.New()
	unregisterOld := mustRegister(t, r, newTool("echo", "old", nil), "a")
	unregisterNew := mustRegister(t, r, newTool("echo", "new", nil), "b")

	unregisterOld()
	assert.True(t, r.Has("echo"), "the old func must be a no-op after a replacement")
	assert.Equal(t, "new", r.Execute(context.Background(), "echo", nil, toolreg.CallContext{}))

	unregisterNew()
	assert.False(t, r.Has("echo"))
	unregisterNew() // a second call is harmless
	assert.False(t, r.Has("echo"))
}

func TestRejectDuplicatesKeepsTheFirstTool(t *testing.T) {
	r := toolreg.New(toolreg.WithRejectDuplicates())
	mustRegister(t, r, newTool("echo", "first", nil), "a")
	unregister, err := r.Register(newTool("echo", "second", nil), "b")

	require.ErrorIs(t, err, toolreg.ErrDuplicate)
	assert.Contains(t, err.Error(), `"a"`, "the error names the plugin that holds the name")
	assert.Contains(t, err.Error(), `"b"`, "the error names the plugin that asked")
	unregister() // the no-op func from a failed Register
	assert.Equal(t, "first", r.Execute(context.Background(), "echo", nil, toolreg.CallContext{}))
}

func TestFailedRegisterChangesNothing(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("echo", "kept", nil), "a")
	v := r.Version()
	bad := newTool("echo", "bad", nil)
	bad.Risk = "extreme"
	_, err := r.Register(bad, "b")

	require.ErrorIs(t, err, toolreg.ErrInvalidPolicy)
	assert.Equal(t, v, r.Version())
	assert.Equal(t, "kept", r.Execute(context.Background(), "echo", nil, toolreg.CallContext{}))
}

func TestReservedToolsAreListedButNeverOfferedOrRun(t *testing.T) {
	r := toolreg.New()
	_, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "sql_query", Description: "planned"}}, "data")
	require.NoError(t, err)

	assert.False(t, r.Has("sql_query"))
	assert.Empty(t, r.Definitions(toolreg.Access{Groups: []string{toolreg.AllGroups}}))
	assert.Empty(t, r.Summaries(toolreg.Access{}))
	all := r.All()
	require.Len(t, all, 1)
	assert.True(t, all[0].Reserved)
	assert.Equal(t, "data", all[0].PluginName)

	_, code := failureOf(t, r.Execute(context.Background(), "sql_query", nil, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeNotAvailable, code)

	mustRegister(t, r, newTool("sql_query", "rows", nil), "data")
	assert.True(t, r.Has("sql_query"), "registering a handler replaces the reservation")
	assert.False(t, r.All()[0].Reserved)
}

func TestUnregisterByPluginRemovesToolsAndGroups(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("a1", "", nil), "a")
	mustRegister(t, r, newTool("a2", "", nil), "a")
	mustRegister(t, r, newTool("b1", "", nil), "b")
	mustGroup(t, r, toolreg.GroupInfo{Name: "ga"}, "a")
	mustGroup(t, r, toolreg.GroupInfo{Name: "gb"}, "b")

	r.UnregisterByPlugin("a")
	assert.Equal(t, []string{"b1"}, names(r.Definitions(toolreg.Access{})))
	require.Len(t, r.Groups(), 1)
	assert.Equal(t, "gb", r.Groups()[0].Name)

	v := r.Version()
	r.UnregisterByPlugin("nobody")
	assert.Equal(t, v, r.Version(), "an unknown plugin changes nothing")
}

func TestListingsAreSortedByName(t *testing.T) {
	r := toolreg.New()
	for _, n := range []string{"zeta", "alpha", "mu", "beta"} {
		mustRegister(t, r, newTool(n, "", nil), "p")
		mustGroup(t, r, toolreg.GroupInfo{Name: "g_" + n}, "p")
	}
	want := []string{"alpha", "beta", "mu", "zeta"}

	assert.Equal(t, want, names(r.Definitions(toolreg.Access{})))
	var got []string
	for _, s := range r.Summaries(toolreg.Access{}) {
		got = append(got, s.Name)
	}
	assert.Equal(t, want, got)
	got = nil
	for _, ti := range r.All() {
		got = append(got, ti.Name)
	}
	assert.Equal(t, want, got)
	got = nil
	for _, g := range r.Groups() {
		got = append(got, g.Name)
	}
	assert.Equal(t, []string{"g_alpha", "g_beta", "g_mu", "g_zeta"}, got)
}

func TestOnChangeAndVersionFollowEveryChange(t *testing.T) {
	r := toolreg.New()
	calls := 0
	stop := r.OnChange(func() { calls++ })
	v0 := r.Version()

	unregister := mustRegister(t, r, newTool("echo", "", nil), "p")
	ungroup := mustGroup(t, r, toolreg.GroupInfo{Name: "g"}, "p")
	unregister()
	ungroup()
	assert.Equal(t, 4, calls)
	assert.Greater(t, r.Version(), v0)

	v := r.Version()
	unregister() // already removed: no change
	assert.Equal(t, 4, calls)
	assert.Equal(t, v, r.Version())

	stop()
	mustRegister(t, r, newTool("other", "", nil), "p")
	assert.Equal(t, 4, calls, "no call after unsubscribe")
}

func TestOnChangeRunsOutsideTheLockAndSurvivesPanics(t *testing.T) {
	r := toolreg.New()
	var seen []string
	r.OnChange(func() { panic("hook bug") })
	r.OnChange(func() { seen = names(r.Definitions(toolreg.Access{})) }) // re-enters the registry

	mustRegister(t, r, newTool("echo", "", nil), "p")
	assert.Equal(t, []string{"echo"}, seen)
}

func TestHandlerResultsAndErrors(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("plain", "not json at all", nil), "p")
	failing := newTool("failing", "", nil)
	failing.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		return "ignored", errors.New("disk is full")
	}
	mustRegister(t, r, failing, "p")

	assert.Equal(t, "not json at all", r.Execute(context.Background(), "plain", nil, toolreg.CallContext{}),
		"a successful result is returned unchanged")
	msg, code := failureOf(t, r.Execute(context.Background(), "failing", nil, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeToolError, code)
	assert.Equal(t, "disk is full", msg)
}

func TestHandlerReceivesArgsAndCallContext(t *testing.T) {
	r := toolreg.New()
	var gotArgs map[string]any
	var gotCall toolreg.CallContext
	tool := newTool("spy", "ok", map[string]any{"q": str()})
	tool.Handler = func(_ context.Context, args map[string]any, call toolreg.CallContext) (string, error) {
		gotArgs, gotCall = args, call
		return "ok", nil
	}
	mustRegister(t, r, tool, "p")
	call := toolreg.CallContext{SessionID: "s", UserID: "u", Platform: "cli"}

	r.Execute(context.Background(), "spy", nil, call)
	assert.NotNil(t, gotArgs, "nil args reach the handler as {}")
	assert.Empty(t, gotArgs)
	assert.Equal(t, call, gotCall)

	r.ExecuteJSON(context.Background(), "spy", `{"q":"x"}`, call)
	assert.Equal(t, map[string]any{"q": "x"}, gotArgs)
}

func TestMaxResultBytesCutsLongResults(t *testing.T) {
	const limit = 128
	r := toolreg.New(toolreg.WithMaxResultBytes(limit))
	exact := strings.Repeat("x", limit)
	mustRegister(t, r, newTool("short", exact, nil), "p")
	mustRegister(t, r, newTool("long", strings.Repeat("0123456789", 30), nil), "p")
	mustRegister(t, r, newTool("runes", strings.Repeat("é", 200), nil), "p")
	mustRegister(t, r, newTool("escapes", strings.Repeat("<\"\n\x01", 100), nil), "p")
	mustRegister(t, r, newTool("invalid", strings.Repeat("\xff", 300), nil), "p")

	assert.Equal(t, exact, r.Execute(context.Background(), "short", nil, toolreg.CallContext{}))
	tests := []struct {
		tool      string
		wantBytes int
	}{
		{"long", 300},
		{"runes", 400},
		{"escapes", 400},
		{"invalid", 300},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" is cut with a notice of its size", func(t *testing.T) {
			var got struct {
				Result        string `json:"result"`
				Truncated     bool   `json:"truncated"`
				OriginalBytes int    `json:"original_bytes"`
			}
			out := r.Execute(context.Background(), tc.tool, nil, toolreg.CallContext{})
			assert.LessOrEqual(t, len(out), limit, "the bound holds after JSON encoding: %s", out)
			require.NoError(t, jsonUnmarshal(out, &got))
			assert.True(t, got.Truncated)
			assert.Equal(t, tc.wantBytes, got.OriginalBytes)
			assert.NotEmpty(t, got.Result)
			assert.True(t, utf8.ValidString(got.Result))
		})
	}
}

func TestMaxResultBytesBoundsFailuresToo(t *testing.T) {
	const limit = 128
	r := toolreg.New(toolreg.WithMaxResultBytes(limit))
	failing := newTool("failing", "", nil)
	failing.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		return "", errors.New(strings.Repeat("<&>", 1000))
	}
	mustRegister(t, r, failing, "p")
	for _, name := range []string{"failing", strings.Repeat("n", 500)} {
		out := r.Execute(context.Background(), name, nil, toolreg.CallContext{})
		assert.LessOrEqual(t, len(out), limit, out)
		failureOf(t, out)
	}
	assert.Equal(t, toolreg.MinResultBytes, limit)
}

func TestRegisterAllIsAllOrNothing(t *testing.T) {
	r := toolreg.New(toolreg.WithRejectDuplicates())
	mustRegister(t, r, newTool("taken", "", nil), "other")
	var changes int
	r.OnChange(func() { changes++ })
	bad := []toolreg.RegisteredTool{newTool("a", "", nil), newTool("bad name", "", nil), newTool("a", "", nil), newTool("taken", "", nil)}
	_, err := r.RegisterAll(bad, "p")
	require.ErrorIs(t, err, toolreg.ErrInvalidName)
	require.ErrorIs(t, err, toolreg.ErrDuplicate)
	assert.Contains(t, err.Error(), "twice in the batch")
	assert.Equal(t, []string{"taken"}, names(r.Definitions(toolreg.Access{})), "nothing of a failed batch is applied")
	assert.Zero(t, changes)

	good := make([]toolreg.RegisteredTool, 500)
	for i := range good {
		good[i] = newTool(fmt.Sprintf("t%03d", i), "ok", nil)
	}
	r = toolreg.New()
	mustRegister(t, r, newTool("taken", "", nil), "other")
	changes = 0
	r.OnChange(func() { changes++ })
	v := r.Version()
	undo, err := r.RegisterAll(good, "p")
	require.NoError(t, err)
	assert.Equal(t, v+1, r.Version(), "one change")
	assert.Equal(t, 1, changes, "one round of change hooks")
	assert.Len(t, r.Definitions(toolreg.Access{}), 501)
	mustRegister(t, r, newTool("t007", "replaced", nil), "q") // no longer the batch's
	undo()
	assert.Equal(t, []string{"t007", "taken"}, names(r.Definitions(toolreg.Access{})))
}

func TestLargeRegistriesStayConsistentThroughChurn(t *testing.T) {
	r := toolreg.New()
	const n = 6000 // past the size where changes are kept beside the base map
	want := map[string]bool{}
	for i := range n {
		name := fmt.Sprintf("tool_%05d", (i*7919)%n)
		mustRegister(t, r, newTool(name, name, nil), fmt.Sprintf("plugin%d", i%7))
		want[name] = true
	}
	r.UnregisterByPlugin("plugin3")
	for i := range n {
		if i%7 == 3 {
			delete(want, fmt.Sprintf("tool_%05d", (i*7919)%n))
		}
	}
	for i := 0; i < n; i += 11 {
		name := fmt.Sprintf("tool_%05d", i)
		mustRegister(t, r, newTool(name, "again", nil), "again")
		want[name] = true
	}
	got := names(r.Definitions(toolreg.Access{}))
	assert.Len(t, got, len(want))
	assert.True(t, slices.IsSorted(got))
	for _, name := range got {
		assert.True(t, want[name], name)
	}
	for name := range want {
		assert.True(t, r.Has(name), name)
	}
	assert.False(t, r.Has("tool_00003") && !want["tool_00003"])
	assert.Equal(t, "again", r.Execute(context.Background(), "tool_00011", nil, toolreg.CallContext{}))
}

func TestListingsSurviveManySessionsWithinTheCacheBound(t *testing.T) {
	r := toolreg.New(toolreg.WithListingCache(4))
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		mustRegister(t, r, newTool(n, "ok", nil), "p")
	}
	for round := range 3 {
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			a := toolreg.Access{Layers: []toolreg.Layer{toolreg.AllowList("session", []string{n})}}
			assert.Equal(t, []string{n}, names(r.Definitions(a)), "round %d", round)
			assert.Equal(t, `[`+string(mustMarshal(t, r.Definitions(a)[0]))+`]`, string(r.DefinitionsJSON(a)))
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
