package toolreg_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/toolreg/toolreg"
)

// TestLookupsFollowEveryChangeAtScale drives a registry large enough to keep
// recent changes apart from its main index (more than 256 tools) through
// random registrations, replacements and removals, one at a time and by
// plugin, and checks after every step that Has, Lookup and All agree with a
// plain map of what should be registered. Names share prefixes, suffixes and
// lengths, as real catalogs do, so that cheap fingerprints of names collide.
func TestLookupsFollowEveryChangeAtScale(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		size := rapid.IntRange(260, 700).Draw(rt, "size")
		names := make([]string, size+40)
		for i := range names {
			names[i] = []string{"srv_%d_search_files", "x%d", "mcp_github_list_%04d", "a_%d"}[i%4]
			names[i] = fmt.Sprintf(names[i], i)
		}
		r := toolreg.New()
		want := map[string]string{} // name -> plugin
		unreg := map[string]func(){}
		register := func(name, plugin string) {
			stop, err := r.Register(newTool(name, "", nil), plugin)
			if err != nil {
				rt.Fatal(err)
			}
			want[name], unreg[name] = plugin, stop
		}
		for _, n := range names[:size] {
			register(n, "base")
		}
		steps := rapid.IntRange(1, 200).Draw(rt, "steps")
		for step := range steps {
			name := rapid.SampledFrom(names).Draw(rt, "name")
			switch op := rapid.IntRange(0, 3).Draw(rt, "op"); op {
			case 0, 1: // register or replace
				register(name, fmt.Sprintf("p%d", step%3))
			case 2: // remove through the func of its registration
				if stop, ok := unreg[name]; ok {
					stop()
					delete(want, name)
					delete(unreg, name)
				}
			case 3: // remove a plugin's tools
				plugin := fmt.Sprintf("p%d", step%3)
				r.UnregisterByPlugin(plugin)
				for n, p := range want {
					if p == plugin {
						delete(want, n)
						delete(unreg, n)
					}
				}
			}
			for _, n := range names {
				info, ok := r.Lookup(n)
				plugin, wanted := want[n]
				if r.Has(n) != wanted || ok != wanted || (ok && info.PluginName != plugin) {
					rt.Fatalf("step %d: %s: Has %v, Lookup %v (plugin %q), want present %v (plugin %q)",
						step, n, r.Has(n), ok, info.PluginName, wanted, plugin)
				}
			}
		}
		var got []string
		for _, info := range r.All() {
			got = append(got, info.Name)
		}
		var exp []string
		for n := range want {
			exp = append(exp, n)
		}
		slices.Sort(exp)
		if !slices.Equal(got, exp) {
			rt.Fatalf("All lists %d tools, want %d", len(got), len(exp))
		}
	})
}
