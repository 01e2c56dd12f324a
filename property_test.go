package toolreg_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/toolreg/toolreg"
)

// TestOnePredicateProperty draws random registries, groups, layers and
// names, and checks the one rule everything rests on: a tool is listed by
// Definitions(a) iff Explain(name, a).Offered iff Execute with
// CallContext{Access: a} and an allowing guard reaches its handler.
func TestOnePredicateProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		names := []string{"read_file", "write_file", "web_search", "mcp_gh_issue", "run_shell", "ask_user", "sql_query", "Read_File"}
		groups := []string{"fs", "web", "admin", "a\x00b"}
		r := toolreg.New()
		reached := map[string]bool{}
		registered := rapid.SliceOfNDistinct(rapid.SampledFrom(names), 0, len(names), rapid.ID).Draw(rt, "tools")
		for _, n := range registered {
			if rapid.Bool().Draw(rt, "reserve "+n) {
				if _, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: n}}, "p"); err != nil {
					rt.Fatal(err)
				}
				continue
			}
			tool := newTool(n, "", nil)
			tool.Groups = rapid.SliceOfNDistinct(rapid.SampledFrom(groups[:3]), 0, 2, rapid.ID).Draw(rt, "groups "+n)
			tool.Permission = rapid.SampledFrom([]string{"", "fs:read", "web"}).Draw(rt, "perm "+n)
			tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
				reached[n] = true
				return "ran " + n, nil
			}
			if _, err := r.Register(tool, "p"); err != nil {
				rt.Fatal(err)
			}
		}
		r.SetExecutionGuard(func(context.Context, toolreg.GuardRequest) error { return nil })
		a := toolreg.Access{Groups: drawGroups(rt, groups), Layers: drawLayers(rt, names)}

		listed := map[string]bool{}
		for _, d := range r.Definitions(a) {
			listed[d.Function.Name] = true
		}
		for _, n := range append(names, "unknown_tool") {
			offered := r.Explain(n, a).Offered
			res := r.Call(context.Background(), n, nil, toolreg.CallContext{Access: a})
			if listed[n] != offered || offered != reached[n] || offered != (res.Content == "ran "+n) {
				rt.Fatalf("%s: listed=%v explained=%v reached=%v result=%s", n, listed[n], offered, reached[n], res.Content)
			}
			if !offered && res.Code != toolreg.CodeNotFound && res.Code != toolreg.CodeNotAvailable {
				rt.Fatalf("%s refused with code %s", n, res.Code)
			}
		}
	})
}

func drawGroups(rt *rapid.T, groups []string) []string {
	switch rapid.IntRange(0, 3).Draw(rt, "groups kind") {
	case 0:
		return nil
	case 1:
		return []string{}
	case 2:
		return []string{toolreg.AllGroups}
	}
	return rapid.SliceOfN(rapid.SampledFrom(groups), 0, 3).Draw(rt, "enabled groups")
}

func drawLayers(rt *rapid.T, names []string) []toolreg.Layer {
	n := rapid.IntRange(0, 3).Draw(rt, "layers")
	layers := make([]toolreg.Layer, 0, n)
	subset := func(label string) []string {
		if rapid.Bool().Draw(rt, label+" nil") {
			return nil
		}
		return rapid.SliceOfN(rapid.SampledFrom(names), 0, 4).Draw(rt, label)
	}
	for i := range n {
		label := fmt.Sprint("layer ", i)
		switch rapid.IntRange(0, 5).Draw(rt, label) {
		case 0:
			layers = append(layers, toolreg.AllowList(label, subset(label)))
		case 1:
			layers = append(layers, toolreg.DenyList(label, subset(label)))
		case 2:
			deny := subset(label)
			layers = append(layers, toolreg.LayerFunc(label, func(t toolreg.ToolInfo) toolreg.Verdict {
				return toolreg.Verdict{Allowed: !slices.Contains(deny, t.Name), Reveal: len(deny)%2 == 0, Reason: "func"}
			}))
		case 3:
			p := toolreg.Permissions{Required: map[string]string{"write_file": "fs:write"}, Prefixes: map[string]string{"mcp_": "mcp"},
				Allow: []string{"ask_user"}, AllowUnmapped: rapid.Bool().Draw(rt, label+" unmapped"), Reveal: rapid.Bool().Draw(rt, label+" reveal")}
			l, err := p.Layer(rapid.SliceOfN(rapid.SampledFrom([]string{"fs:read", "fs:write", "mcp", "web"}), 0, 3).Draw(rt, label+" granted")...)
			if err != nil {
				rt.Fatal(err)
			}
			layers = append(layers, l)
		case 4:
			allowed := rapid.SampledFrom([][]string{nil, {}, {"files"}, {"web"}, {"files", "web"}}).Draw(rt, label+" allowed")
			e := toolreg.Entitlements{Catalog: map[string][]string{"files": {"read_file", "write_file"}, "web": {"web_search"}},
				Allowed: allowed, AlwaysAllowed: []string{"ask_user"}, Reveal: rapid.Bool().Draw(rt, label+" reveal")}
			l, err := e.Layer()
			if err != nil {
				rt.Fatal(err)
			}
			layers = append(layers, l)
		default:
			layers = append(layers, nil)
		}
	}
	return layers
}
