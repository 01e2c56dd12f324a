package toolreg_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/toolreg/toolreg"
)

// state is what a cache derived from a registry would hold: each tool's
// definition (its identity, through the schema map) or its absence.
func state(r *toolreg.Registry, names []string) map[string]uintptr {
	out := map[string]uintptr{}
	for _, n := range names {
		if d, ok := r.Definition(n); ok {
			out[n] = reflect.ValueOf(d.Function.Parameters.Properties).Pointer()
		} else if info, ok := r.Lookup(n); ok && info.Reserved {
			out[n] = 1 // reserved: known, not offered
		}
	}
	return out
}

// TestChangedSinceNamesEveryChangedTool takes random registrations,
// replacements, reservations, removals and group changes, and checks that
// for every version seen along the way ChangedSince either names every tool
// that changed since then (and the version now) or says it cannot.
func TestChangedSinceNamesEveryChangedTool(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		names := []string{"read_file", "write_file", "web_search", "run_shell", "ask_user"}
		r := toolreg.New()
		unreg := map[string]func(){}
		type seen struct {
			version uint64
			state   map[string]uintptr
		}
		var history []seen
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for i := range steps {
			history = append(history, seen{r.Version(), state(r, names)})
			name := rapid.SampledFrom(names).Draw(rt, "name")
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0:
				stop, err := r.Register(newTool(name, "", nil), "p")
				if err != nil {
					rt.Fatal(err)
				}
				unreg[name] = stop
			case 1:
				if stop, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: name}}, "p"); err == nil {
					unreg[name] = stop
				}
			case 2:
				if stop := unreg[name]; stop != nil {
					stop()
				}
			case 3:
				r.UnregisterByPlugin("p")
			case 4:
				if _, err := r.RegisterGroup(toolreg.GroupInfo{Name: fmt.Sprintf("g%d", i)}, "q"); err != nil {
					rt.Fatal(err)
				}
			}
		}
		now := state(r, names)
		for _, h := range history {
			changed, v, ok := r.ChangedSince(h.version)
			if !ok {
				rt.Fatalf("version %d of %d steps is forgotten", h.version, steps)
			}
			if v != r.Version() {
				rt.Fatalf("ChangedSince brings the caller to %d, the registry is at %d", v, r.Version())
			}
			for _, n := range names {
				if h.state[n] != now[n] && !slices.Contains(changed, n) {
					rt.Fatalf("since version %d, %s changed but is not named in %v", h.version, n, changed)
				}
			}
			if !slices.IsSorted(changed) || len(slices.Compact(slices.Clone(changed))) != len(changed) {
				rt.Fatalf("names %v are not sorted and unique", changed)
			}
		}
	})
}

// TestChangedSinceRefusesWhatItCannotAnswer checks the two cases where the
// caller must reread everything: a version older than the changes the
// registry remembers, and a version it has not reached.
func TestChangedSinceRefusesWhatItCannotAnswer(t *testing.T) {
	r := toolreg.New()
	start := r.Version()
	if names, now, ok := r.ChangedSince(start); !ok || len(names) != 0 || now != start {
		t.Fatalf("no change yet: got %v %d %v", names, now, ok)
	}
	if _, _, ok := r.ChangedSince(start + 1); ok {
		t.Fatal("a future version was answered")
	}
	tools := make([]toolreg.RegisteredTool, toolreg.MaxChangeLog)
	for i := range tools {
		tools[i] = newTool(fmt.Sprintf("tool_%d", i), "", nil)
	}
	if _, err := r.RegisterAll(tools, "bulk"); err != nil {
		t.Fatal(err)
	}
	mid := r.Version()
	names, _, ok := r.ChangedSince(start)
	if !ok || len(names) != toolreg.MaxChangeLog {
		t.Fatalf("a bulk load of exactly the log's size: ok %v, %d names", ok, len(names))
	}
	if _, err := r.Register(newTool("one_more", "", nil), "p"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.ChangedSince(start); ok {
		t.Fatal("a version older than the remembered changes was answered")
	}
	if names, _, ok := r.ChangedSince(mid); !ok || !slices.Equal(names, []string{"one_more"}) {
		t.Fatalf("since the bulk load: got %v %v", names, ok)
	}
	if _, err := r.RegisterGroup(toolreg.GroupInfo{Name: "g"}, "p"); err != nil {
		t.Fatal(err)
	}
	if names, now, ok := r.ChangedSince(r.Version() - 1); !ok || len(names) != 0 || now != r.Version() {
		t.Fatalf("a group change names no tool: got %v %d %v", names, now, ok)
	}
}

// TestDefinitionReadsOneTool checks Definition against Definitions for
// grouped, ungrouped, reserved, removed, unknown and hostile names.
func TestDefinitionReadsOneTool(t *testing.T) {
	r := toolreg.New()
	grouped := newTool("grouped_tool", "", nil)
	grouped.Groups = []string{"g"}
	for _, tl := range []toolreg.RegisteredTool{newTool("plain_tool", "", nil), grouped, newTool("gone_tool", "", nil)} {
		if _, err := r.Register(tl, "p"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Reserve(toolreg.Definition{Function: toolreg.Function{Name: "reserved_tool"}}, "p"); err != nil {
		t.Fatal(err)
	}
	r.UnregisterByPlugin("nobody")
	stop, err := r.Register(newTool("gone_tool", "", nil), "q")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	listed := map[string]toolreg.Definition{}
	for _, d := range r.Definitions(toolreg.Access{Groups: []string{toolreg.AllGroups}}) {
		listed[d.Function.Name] = d
	}
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"plain_tool", true},
		{"grouped_tool", true}, // whatever its groups
		{"reserved_tool", false},
		{"gone_tool", false},
		{"no_such_tool", false},
		{"", false},
		{"\xff\xfe", false},
		{strings.Repeat("a", 1<<20), false},
	} {
		d, ok := r.Definition(tc.name)
		if ok != tc.want {
			t.Errorf("Definition(%.20q): ok %v, want %v", tc.name, ok, tc.want)
			continue
		}
		if ok && !reflect.DeepEqual(d, listed[tc.name]) {
			t.Errorf("Definition(%q) = %+v, Definitions lists %+v", tc.name, d, listed[tc.name])
		}
	}
}

// TestChangedSinceAcrossTheLogsWrap registers one tool at a time past the
// log's size and checks, for versions on both sides of where the log wraps,
// that ChangedSince names exactly the tools registered after each.
func TestChangedSinceAcrossTheLogsWrap(t *testing.T) {
	r := toolreg.New()
	var versions []uint64
	var order []string
	for i := range toolreg.MaxChangeLog + 300 {
		versions = append(versions, r.Version())
		name := fmt.Sprintf("tool_%05d", i)
		order = append(order, name)
		if _, err := r.Register(newTool(name, "", nil), "p"); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range []int{0, 299, 300, 301, 1000, toolreg.MaxChangeLog, toolreg.MaxChangeLog + 299} {
		names, _, ok := r.ChangedSince(versions[i])
		if wantOK := i >= 300; ok != wantOK {
			t.Fatalf("since the version before tool %d: ok %v, want %v", i, ok, wantOK)
		}
		if ok && !slices.Equal(names, order[i:]) {
			t.Fatalf("since the version before tool %d: %d names from %q, want %d from %q", i, len(names), names[0], len(order[i:]), order[i])
		}
	}
}
