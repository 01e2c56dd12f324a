package toolreg_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// layersRegistry holds four ungrouped tools and one grouped one.
func layersRegistry(t *testing.T) *toolreg.Registry {
	t.Helper()
	r := toolreg.New()
	for _, n := range []string{"read_file", "write_file", "web_search", "run_shell"} {
		mustRegister(t, r, newTool(n, n+" ok", nil), "p")
	}
	mail := newTool("send_mail", "send_mail ok", nil)
	mail.Groups = []string{"mail"}
	mustRegister(t, r, mail, "p")
	return r
}

func TestLayersDecideWhatIsOffered(t *testing.T) {
	panicking := toolreg.LayerFunc("boom", func(toolreg.ToolInfo) toolreg.Verdict { panic("layer bug") })
	tests := []struct {
		name   string
		access toolreg.Access
		want   []string
	}{
		{"no layer offers every ungrouped tool", toolreg.Access{},
			[]string{"read_file", "run_shell", "web_search", "write_file"}},
		{"a nil allow-list is not configured: it admits every tool", toolreg.Access{Layers: []toolreg.Layer{toolreg.AllowList("agent", nil)}},
			[]string{"read_file", "run_shell", "web_search", "write_file"}},
		{"an empty allow-list admits none", toolreg.Access{Layers: []toolreg.Layer{toolreg.AllowList("agent", []string{})}},
			[]string{}},
		{"an allow-list admits exactly its tools", toolreg.Access{Layers: []toolreg.Layer{toolreg.AllowList("agent", []string{"read_file", "web_search", "nope"})}},
			[]string{"read_file", "web_search"}},
		{"a deny-list removes its tools", toolreg.Access{Layers: []toolreg.Layer{toolreg.DenyList("scenario", []string{"run_shell"})}},
			[]string{"read_file", "web_search", "write_file"}},
		{"every layer must admit", toolreg.Access{Layers: []toolreg.Layer{
			toolreg.AllowList("agent", []string{"read_file", "run_shell"}), toolreg.DenyList("scenario", []string{"run_shell"})}},
			[]string{"read_file"}},
		{"layers apply after groups", toolreg.Access{Groups: []string{"mail"}, Layers: []toolreg.Layer{toolreg.AllowList("agent", []string{"send_mail"})}},
			[]string{"send_mail"}},
		{"a nil layer admits nothing", toolreg.Access{Layers: []toolreg.Layer{nil}},
			[]string{}},
		{"a panicking layer admits nothing", toolreg.Access{Layers: []toolreg.Layer{panicking}},
			[]string{}},
		{"a LayerFunc with a nil func admits nothing", toolreg.Access{Layers: []toolreg.Layer{toolreg.LayerFunc("x", nil)}},
			[]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := layersRegistry(t)
			got := names(r.Definitions(tc.access))
			if got == nil {
				got = []string{}
			}
			assert.Equal(t, tc.want, got)
			for _, n := range []string{"read_file", "write_file", "web_search", "run_shell", "send_mail"} {
				res := r.Call(context.Background(), n, nil, toolreg.CallContext{Access: tc.access})
				offered := r.Explain(n, tc.access).Offered
				assert.Equal(t, offered, res.Code == "", "%s: Explain.Offered and Execute agree", n)
				assert.Equal(t, offered, contains(got, n), "%s: Explain.Offered and Definitions agree", n)
				if !offered {
					assert.Equal(t, toolreg.CodeNotFound, res.Code, "%s: a hidden tool reads as unknown", n)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestAHiddenToolReadsExactlyLikeAnUnknownName(t *testing.T) {
	r := layersRegistry(t)
	deny := toolreg.Access{Layers: []toolreg.Layer{toolreg.DenyList("plan", []string{"run_shell"})}}
	hidden := r.Execute(context.Background(), "run_shell", nil, toolreg.CallContext{Access: deny})

	r2 := layersRegistry(t)
	r2.UnregisterByPlugin("p")
	for _, n := range []string{"read_file", "write_file", "web_search"} {
		mustRegister(t, r2, newTool(n, n+" ok", nil), "p")
	}
	unknown := r2.Execute(context.Background(), "run_shell", nil, toolreg.CallContext{Access: deny})
	assert.Equal(t, unknown, hidden)
}

func TestARevealingLayerTellsTheModelWhy(t *testing.T) {
	r := layersRegistry(t)
	plan := toolreg.LayerFunc("plan", func(t toolreg.ToolInfo) toolreg.Verdict {
		if t.Name == "web_search" {
			return toolreg.Verdict{Reason: "not in your plan: web", Reveal: true}
		}
		return toolreg.Verdict{Allowed: true}
	})
	res := r.Call(context.Background(), "web_search", nil, toolreg.CallContext{Access: toolreg.Access{Layers: []toolreg.Layer{plan}}})
	assert.Equal(t, toolreg.CodeNotAvailable, res.Code)
	msg, _ := failureOf(t, res.Content)
	assert.Contains(t, msg, "not in your plan: web")
}

func TestLaterLayersAreNotAskedAtExecute(t *testing.T) {
	r := layersRegistry(t)
	asked := 0
	counting := toolreg.LayerFunc("count", func(t toolreg.ToolInfo) toolreg.Verdict {
		if t.Name == "read_file" {
			asked++
		}
		return toolreg.Verdict{Allowed: true}
	})
	a := toolreg.Access{Layers: []toolreg.Layer{toolreg.DenyList("first", []string{"read_file"}), counting}}
	r.Execute(context.Background(), "read_file", nil, toolreg.CallContext{Access: a})
	assert.Zero(t, asked)
}

func TestExplainListsEveryReason(t *testing.T) {
	r := layersRegistry(t)
	_, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "sql_query"}}, "p")
	require.NoError(t, err)
	a := toolreg.Access{Layers: []toolreg.Layer{
		toolreg.AllowList("agent", []string{"read_file"}),
		toolreg.DenyList("scenario", []string{"send_mail", "sql_query"}),
	}}
	tests := []struct {
		tool string
		want []string // layers, in order
	}{
		{"read_file", nil},
		{"write_file", []string{"agent"}},
		{"send_mail", []string{"groups", "agent", "scenario"}},
		{"sql_query", []string{"registry", "agent", "scenario"}},
		{"no_such_tool", []string{"registry"}},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			ex := r.Explain(tc.tool, a)
			assert.Equal(t, tc.tool, ex.Tool)
			var got []string
			for _, ref := range ex.Refusals {
				got = append(got, ref.Layer)
				assert.NotEmpty(t, ref.Reason)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.want == nil, ex.Offered)
		})
	}
}

func TestExplainOfAnUnknownNameAsksNoLayer(t *testing.T) {
	r := layersRegistry(t)
	asked := false
	l := toolreg.LayerFunc("x", func(toolreg.ToolInfo) toolreg.Verdict { asked = true; return toolreg.Verdict{} })
	ex := r.Explain("nope", toolreg.Access{Layers: []toolreg.Layer{l}})
	assert.Equal(t, []toolreg.Refusal{{Layer: "registry", Reason: "unknown tool"}}, ex.Refusals)
	assert.False(t, asked)
}

func TestALayerCannotChangeTheRegistry(t *testing.T) {
	r := toolreg.New()
	tool := newTool("mail", "ok", nil)
	tool.Groups = []string{"mail"}
	mustRegister(t, r, tool, "p")
	vandal := toolreg.LayerFunc("vandal", func(t toolreg.ToolInfo) toolreg.Verdict {
		for i := range t.Groups {
			t.Groups[i] = "stolen"
		}
		return toolreg.Verdict{Allowed: true}
	})
	a := toolreg.Access{Groups: []string{"mail"}, Layers: []toolreg.Layer{vandal}}
	r.Definitions(a)
	info, ok := r.Lookup("mail")
	require.True(t, ok)
	assert.Equal(t, []string{"mail"}, info.Groups)
	assert.Equal(t, []string{"mail"}, names(r.Definitions(toolreg.Access{Groups: []string{"mail"}})))
}

func TestListingsUnderLayerFuncsAreNotCached(t *testing.T) {
	r := layersRegistry(t)
	allowed := map[string]bool{"read_file": true}
	l := toolreg.LayerFunc("live", func(t toolreg.ToolInfo) toolreg.Verdict { return toolreg.Verdict{Allowed: allowed[t.Name]} })
	a := toolreg.Access{Layers: []toolreg.Layer{l}}
	assert.Equal(t, []string{"read_file"}, names(r.Definitions(a)))
	allowed["web_search"] = true
	assert.Equal(t, []string{"read_file", "web_search"}, names(r.Definitions(a)))
}

func TestAccessKeysAreUnambiguous(t *testing.T) {
	r := toolreg.New()
	for _, g := range []string{"a", "b"} {
		tool := newTool("tool_"+g, "ok", nil)
		tool.Groups = []string{g}
		mustRegister(t, r, tool, "p")
	}
	assert.Equal(t, []string{"tool_a", "tool_b"}, names(r.Definitions(toolreg.Access{Groups: []string{"a", "b"}})))
	assert.Empty(t, r.Definitions(toolreg.Access{Groups: []string{"a\x00b"}}), "one group named a\\x00b is not a and b")
	assert.Empty(t, r.Definitions(toolreg.Access{Groups: []string{"\x01a\x01b"}}))
	all := []string{"*"}
	assert.Equal(t, []string{"tool_a"}, names(r.Definitions(toolreg.Access{Groups: all, Layers: []toolreg.Layer{toolreg.AllowList("x", []string{"tool_a"})}})))
	assert.Equal(t, []string{"tool_b"}, names(r.Definitions(toolreg.Access{Groups: all, Layers: []toolreg.Layer{toolreg.AllowList("x", []string{"tool_b"})}})))
	assert.Empty(t, r.Definitions(toolreg.Access{Groups: all, Layers: []toolreg.Layer{toolreg.AllowList("x", []string{})}}))
	assert.Len(t, r.Definitions(toolreg.Access{Groups: all, Layers: []toolreg.Layer{toolreg.AllowList("x", nil)}}), 2)
	assert.Len(t, r.Definitions(toolreg.Access{Groups: all, Layers: []toolreg.Layer{toolreg.AllowList("x", []string{"tool_a", "tool_b"})}}), 2)
}

func TestDefinitionsJSONIsTheMarshaledListing(t *testing.T) {
	r := layersRegistry(t)
	for _, a := range []toolreg.Access{{}, {Groups: []string{"*"}}, {Layers: []toolreg.Layer{toolreg.AllowList("x", []string{})}}} {
		want, err := json.Marshal(r.Definitions(a))
		require.NoError(t, err)
		if string(want) == "null" {
			want = []byte("[]")
		}
		assert.Equal(t, string(want), string(r.DefinitionsJSON(a)))
	}
	assert.Equal(t, "[]", string(toolreg.New().DefinitionsJSON(toolreg.Access{})))
}

func TestSummariesAreNeverNil(t *testing.T) {
	b, err := json.Marshal(toolreg.New().Summaries(toolreg.Access{}))
	require.NoError(t, err)
	assert.Equal(t, "[]", string(b))
}

func TestLookup(t *testing.T) {
	r := layersRegistry(t)
	tool := newTool("perm_tool", "ok", nil)
	tool.Permission, tool.Risk = "fs:write", toolreg.RiskSensitive
	mustRegister(t, r, tool, "q")
	info, ok := r.Lookup("perm_tool")
	require.True(t, ok)
	assert.Equal(t, toolreg.ToolInfo{Name: "perm_tool", Description: "test tool perm_tool", PluginName: "q",
		Visibility: toolreg.VisibilityRestricted, Risk: toolreg.RiskSensitive, Permission: "fs:write"}, info)
	_, ok = r.Lookup("nope")
	assert.False(t, ok)
}

func TestHideRestrictedAdmitsPublicToolsOnly(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("public_tool", "ok", nil), "p")
	for _, decl := range []toolreg.RegisteredTool{
		{Risk: toolreg.RiskSensitive}, {Visibility: toolreg.VisibilityRestricted}, {Risk: toolreg.RiskDangerous},
	} {
		tool := newTool(fmt.Sprintf("restricted_%s%s", decl.Risk, decl.Visibility), "ok", nil)
		tool.Risk, tool.Visibility = decl.Risk, decl.Visibility
		mustRegister(t, r, tool, "p")
	}
	a := toolreg.Access{Layers: []toolreg.Layer{toolreg.HideRestricted("mcp")}}
	assert.Equal(t, []string{"public_tool"}, names(r.Definitions(a)))
	_, code := failureOf(t, r.Execute(context.Background(), "restricted_sensitive", nil, toolreg.CallContext{Access: a}))
	assert.Equal(t, toolreg.CodeNotFound, code)
}
