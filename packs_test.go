package toolreg_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

func reserveTool(t *testing.T, r *toolreg.Registry, name, plugin string) func() {
	t.Helper()
	undo, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: name, Description: "planned"}}, plugin)
	require.NoError(t, err)
	return undo
}

// packsRegistry holds tools, a reserved one and packs with dependencies
// (one of them a cycle).
func packsRegistry(t *testing.T) *toolreg.Registry {
	t.Helper()
	r := toolreg.New()
	for _, n := range []string{"read_file", "write_file", "grep", "web_search", "web_fetch", "ocr"} {
		mustRegister(t, r, newTool(n, n+" ok", nil), "p")
	}
	reserveTool(t, r, "sql_query", "p")
	for _, p := range []toolreg.Pack{
		{ID: "code", Tools: []string{"read_file", "write_file", "grep"}},
		{ID: "data", Tools: []string{"sql_query"}, ReservedTools: []string{"sql_query", "chart"}, Requires: []string{"code"}},
		{ID: "web", Tools: []string{"web_search"}, OptionalTools: []string{"web_fetch", "browser"}, Requires: []string{"media"}},
		{ID: "media", Tools: []string{"ocr", "read_file"}, Requires: []string{"web", "ghost"}},
	} {
		_, err := r.RegisterPack(p, "packs")
		require.NoError(t, err)
	}
	return r
}

func TestResolvePacks(t *testing.T) {
	tests := []struct {
		name     string
		ids      []string
		optional bool
		want     toolreg.PackResolution
	}{
		{"inputs first, then dependencies", []string{"data"}, false, toolreg.PackResolution{
			Packs: []string{"data", "code"}, Tools: []string{"read_file", "write_file", "grep"},
			Reserved: []string{"sql_query", "chart"}, Missing: []string{"sql_query"}}},
		{"a cycle ends; unknown ids are reported, in first-seen order", []string{"nope", "web", "nope"}, false, toolreg.PackResolution{
			Packs: []string{"web", "media"}, Tools: []string{"web_search", "ocr", "read_file"}, Unknown: []string{"nope", "ghost"}}},
		{"optional tools on request; missing ones reported", []string{"web"}, true, toolreg.PackResolution{
			Packs: []string{"web", "media"}, Tools: []string{"web_search", "web_fetch", "ocr", "read_file"},
			Unknown: []string{"ghost"}, Missing: []string{"browser"}}},
		{"repeated inputs count once", []string{"code", "code", "data"}, false, toolreg.PackResolution{
			Packs: []string{"code", "data"}, Tools: []string{"read_file", "write_file", "grep"},
			Reserved: []string{"sql_query", "chart"}, Missing: []string{"sql_query"}}},
		{"nothing", nil, false, toolreg.PackResolution{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := packsRegistry(t)
			assert.Equal(t, tc.want, r.ResolvePacks(tc.ids, tc.optional))
		})
	}
}

func TestAPackResolutionIsALayer(t *testing.T) {
	r := packsRegistry(t)
	res := r.ResolvePacks([]string{"code"}, false)
	a := toolreg.Access{Layers: []toolreg.Layer{res.Layer("packs")}}
	assert.Equal(t, []string{"grep", "read_file", "write_file"}, names(r.Definitions(a)))
	assert.Empty(t, r.Definitions(toolreg.Access{Layers: []toolreg.Layer{toolreg.PackResolution{}.Layer("packs")}}),
		"the zero resolution admits nothing")
	_, code := failureOf(t, r.Execute(context.Background(), "web_search", nil, toolreg.CallContext{Access: a}))
	assert.Equal(t, toolreg.CodeNotFound, code)
}

func TestPacksAreListedAndRemovedWithTheirPlugin(t *testing.T) {
	r := packsRegistry(t)
	var ids []string
	for _, p := range r.Packs() {
		ids = append(ids, p.ID)
		assert.Equal(t, "packs", p.PluginName)
	}
	assert.Equal(t, []string{"code", "data", "media", "web"}, ids)
	r.Packs()[0].Tools[0] = "changed"
	assert.Equal(t, "read_file", r.Packs()[0].Tools[0], "Packs returns copies")
	r.UnregisterByPlugin("packs")
	assert.Empty(t, r.Packs())
}

func TestRegisterPackChecksNamesAndDuplicates(t *testing.T) {
	r := toolreg.New(toolreg.WithRejectDuplicates())
	_, err := r.RegisterPack(toolreg.Pack{ID: "bad id", Tools: []string{"ok", "not ok"}}, "p")
	require.ErrorIs(t, err, toolreg.ErrInvalidName)
	assert.Contains(t, err.Error(), `"bad id"`)
	assert.Contains(t, err.Error(), `"not ok"`)
	undo, err := r.RegisterPack(toolreg.Pack{ID: "code"}, "p")
	require.NoError(t, err)
	_, err = r.RegisterPack(toolreg.Pack{ID: "code"}, "q")
	require.ErrorIs(t, err, toolreg.ErrDuplicate)
	undo()
	assert.Empty(t, r.Packs())
}

func TestReservedToolsArePromotedNeverDemoted(t *testing.T) {
	for _, reject := range []bool{false, true} {
		var opts []toolreg.Option
		if reject {
			opts = append(opts, toolreg.WithRejectDuplicates())
		}
		r := toolreg.New(opts...)
		unreserve := reserveTool(t, r, "sql_query", "plan")
		assert.False(t, r.Has("sql_query"))
		_, code := failureOf(t, r.Execute(context.Background(), "sql_query", nil, toolreg.CallContext{}))
		assert.Equal(t, toolreg.CodeNotAvailable, code)

		mustRegister(t, r, newTool("sql_query", "rows", nil), "db") // promotion, even rejecting duplicates
		assert.True(t, r.Has("sql_query"))
		unreserve() // stale: the registration it came from was promoted
		assert.Equal(t, "rows", r.Execute(context.Background(), "sql_query", nil, toolreg.CallContext{}))

		_, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "sql_query"}}, "plan")
		require.ErrorIs(t, err, toolreg.ErrDuplicate, "Reserve never takes an executor away")
		assert.Equal(t, "rows", r.Execute(context.Background(), "sql_query", nil, toolreg.CallContext{}))
	}
}

func TestScopeReservesAndRegistersPacks(t *testing.T) {
	s := toolreg.NewScope("plan")
	_, err := s.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "chart"}})
	require.NoError(t, err)
	_, err = s.RegisterPack(toolreg.Pack{ID: "data", ReservedTools: []string{"chart"}})
	require.NoError(t, err)
	_, err = s.RegisterPack(toolreg.Pack{ID: "bad id"})
	require.ErrorIs(t, err, toolreg.ErrInvalidName, "checked while unbound")

	r := toolreg.New()
	require.NoError(t, s.Bind(r))
	info, ok := r.Lookup("chart")
	require.True(t, ok)
	assert.True(t, info.Reserved)
	assert.Equal(t, "plan", info.PluginName)
	require.Len(t, r.Packs(), 1)
	s.Close()
	assert.Empty(t, r.Packs())
	assert.Empty(t, r.All())
}

func TestCheckIntegrityFindsEachProblem(t *testing.T) {
	base := func(t *testing.T) *toolreg.Registry {
		r := toolreg.New()
		for _, n := range []string{"read_file", "web_search", "ask_user"} {
			mustRegister(t, r, newTool(n, "ok", nil), "p")
		}
		reserveTool(t, r, "sql_query", "p")
		return r
	}
	allCovered := &toolreg.Permissions{Allow: []string{"read_file", "web_search", "ask_user"}}
	tests := []struct {
		name    string
		setup   func(t *testing.T, r *toolreg.Registry)
		catalog toolreg.Catalog
		want    []string // Source, Tool
	}{
		{"a pack tool with no definition", func(t *testing.T, r *toolreg.Registry) {
			_, err := r.RegisterPack(toolreg.Pack{ID: "code", Tools: []string{"ghost"}}, "x")
			require.NoError(t, err)
		}, toolreg.Catalog{}, []string{`pack "code"`, "ghost"}},
		{"a pack tool with no executor", func(t *testing.T, r *toolreg.Registry) {
			_, err := r.RegisterPack(toolreg.Pack{ID: "data", Tools: []string{"sql_query"}}, "x")
			require.NoError(t, err)
		}, toolreg.Catalog{}, []string{`pack "data"`, "sql_query"}},
		{"a tool both enabled and reserved", func(t *testing.T, r *toolreg.Registry) {
			_, err := r.RegisterPack(toolreg.Pack{ID: "web", Tools: []string{"web_search"}, ReservedTools: []string{"web_search"}}, "x")
			require.NoError(t, err)
		}, toolreg.Catalog{}, []string{`pack "web"`, "web_search", `pack "web"`, "web_search"}},
		{"a reserved tool that has an executor", func(t *testing.T, r *toolreg.Registry) {
			_, err := r.RegisterPack(toolreg.Pack{ID: "files", ReservedTools: []string{"read_file"}}, "x")
			require.NoError(t, err)
		}, toolreg.Catalog{}, []string{`pack "files"`, "read_file"}},
		{"a pack requiring an unknown pack", func(t *testing.T, r *toolreg.Registry) {
			_, err := r.RegisterPack(toolreg.Pack{ID: "code", Requires: []string{"base"}}, "x")
			require.NoError(t, err)
		}, toolreg.Catalog{}, []string{`pack "code"`, ""}},
		{"a plan naming an unknown tool", nil, toolreg.Catalog{Entitlements: []toolreg.Entitlements{{Name: "free", Catalog: map[string][]string{"web": {"web_scrape"}}}}},
			[]string{`plan "free"`, "web_scrape"}},
		{"a plan with a tool in two groups", nil, toolreg.Catalog{Entitlements: []toolreg.Entitlements{{Name: "free", Catalog: map[string][]string{"a": {"read_file"}, "b": {"read_file"}}}}},
			[]string{`plan "free"`, "read_file"}},
		{"a permission rule naming an unknown tool", nil, toolreg.Catalog{Permissions: &toolreg.Permissions{
			Required: map[string]string{"ghost": "x"}, Allow: []string{"read_file", "web_search", "ask_user"}}},
			[]string{"permissions", "ghost"}},
		{"a tool no permission rule covers", nil, toolreg.Catalog{Permissions: &toolreg.Permissions{Allow: []string{"read_file", "web_search"}}},
			[]string{"permissions", "ask_user"}},
		{"a whitelist naming an unknown tool", nil, toolreg.Catalog{Whitelists: map[string][]string{"agent": {"read_file", "sql_query", "ghost"}}},
			[]string{`whitelist "agent"`, "ghost"}},
		{"nothing wrong", func(t *testing.T, r *toolreg.Registry) {
			_, err := r.RegisterPack(toolreg.Pack{ID: "all", Tools: []string{"read_file"}, ReservedTools: []string{"sql_query"}}, "x")
			require.NoError(t, err)
		}, toolreg.Catalog{Permissions: allCovered, Entitlements: []toolreg.Entitlements{{Catalog: map[string][]string{"db": {"sql_query"}}}},
			Whitelists: map[string][]string{"agent": {"sql_query", "read_file"}}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := base(t)
			if tc.setup != nil {
				tc.setup(t, r)
			}
			err := r.CheckIntegrity(tc.catalog)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			var got []string
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var p *toolreg.IntegrityProblem
				require.True(t, errors.As(e, &p))
				got = append(got, p.Source, p.Tool)
				if p.Tool != "" {
					assert.Contains(t, e.Error(), `"`+p.Tool+`"`)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
