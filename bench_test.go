package toolreg_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolreg/toolreg"
)

// Benchmarks of the hot paths, each next to the floor it is judged against.
// BENCHMARKS.md gives the commands, the figures and the acceptance ratios:
//
//	go test -run '^$' -bench . -benchmem -count=6 -cpu=1,2 .
//
// On a shared machine, prefer the interleaved rounds described there: one
// -count=1 pass of every benchmark per round, so that a burst of load hits
// a benchmark and its floor alike.

// benchTools is the size of the catalog behind the Execute benchmarks and
// their floor: both look the tool up in a map holding the same names.
const benchTools = 64

// benchName is the tool the Execute benchmarks call.
const benchName = "bench_echo"

// benchResult is what its handler answers.
const benchResult = `{"ok":true}`

// benchArgsJSON is the JSON text of benchArgs.
const benchArgsJSON = `{"path":"/tmp/notes.txt","mode":"read"}`

// benchSink keeps results alive so the compiler cannot drop the work.
var benchSink any

// benchArgs returns the arguments of every Execute benchmark: both declared
// properties, nothing else.
func benchArgs() map[string]any {
	return map[string]any{"path": "/tmp/notes.txt", "mode": "read"}
}

// benchTool is the light-validation tool: two string properties, both
// required, additionalProperties false. strict makes it a Strict tool, whose
// arguments are validated against the full JSON Schema.
func benchTool(strict bool) toolreg.RegisteredTool {
	t := newTool(benchName, benchResult, map[string]any{"path": str(), "mode": str()}, "path", "mode")
	t.Definition.Function.Parameters.AdditionalProperties = toolreg.Bool(false)
	t.Definition.Function.Strict = strict
	return t
}

// benchFixture builds a registry holding benchTool(strict) and benchTools-1
// fillers, and the floor: a plain map of the same names to handlers.
func benchFixture(b *testing.B, strict bool) (*toolreg.Registry, map[string]toolreg.Handler) {
	b.Helper()
	reg := toolreg.New()
	floor := make(map[string]toolreg.Handler, benchTools)
	tool := benchTool(strict)
	if _, err := reg.Register(tool, "bench"); err != nil {
		b.Fatal(err)
	}
	floor[benchName] = tool.Handler
	for i := 1; i < benchTools; i++ {
		filler := newTool(fmt.Sprintf("bench_tool_%03d", i), benchResult, map[string]any{"q": str()})
		if _, err := reg.Register(filler, "bench"); err != nil {
			b.Fatal(err)
		}
		floor[filler.Definition.Function.Name] = filler.Handler
	}
	return reg, floor
}

// benchCheck fails the benchmark unless one call gave the handler's answer,
// so that no benchmark measures a failure path by mistake.
func benchCheck(b *testing.B, got string) {
	b.Helper()
	if got != benchResult {
		b.Fatalf("result %q, want %q", got, benchResult)
	}
}

// benchFloorCall is the floor: a map lookup and a direct handler call with
// the registry's signature.
func benchFloorCall(ctx context.Context, floor map[string]toolreg.Handler, name string, args map[string]any) string {
	h := floor[name]
	if h == nil {
		return ""
	}
	res, err := h(ctx, args, toolreg.CallContext{})
	if err != nil {
		return ""
	}
	return res
}

// BenchmarkFloor is what Execute is compared with: a map lookup plus a direct
// call of the same handler with the same arguments.
func BenchmarkFloor(b *testing.B) {
	_, floor := benchFixture(b, false)
	ctx := context.Background()
	args := benchArgs()
	name := benchName
	benchCheck(b, benchFloorCall(ctx, floor, name, args))
	b.ReportAllocs()
	var res string
	for b.Loop() {
		res = benchFloorCall(ctx, floor, name, args)
	}
	benchSink = res
}

// BenchmarkExecute is Execute with light validation (required keys,
// additionalProperties false), no guard, no listener, a background context.
func BenchmarkExecute(b *testing.B) {
	reg, _ := benchFixture(b, false)
	ctx := context.Background()
	args := benchArgs()
	name := benchName
	benchCheck(b, reg.Execute(ctx, name, args, toolreg.CallContext{}))
	b.ReportAllocs()
	var res string
	for b.Loop() {
		res = reg.Execute(ctx, name, args, toolreg.CallContext{})
	}
	benchSink = res
}

// BenchmarkUnmarshalFloor is what ExecuteJSON is compared with: decoding the
// arguments with json.Unmarshal into a map, then the floor.
func BenchmarkUnmarshalFloor(b *testing.B) {
	_, floor := benchFixture(b, false)
	ctx := context.Background()
	name, s := benchName, benchArgsJSON
	b.ReportAllocs()
	var res string
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			b.Fatal(err)
		}
		res = benchFloorCall(ctx, floor, name, m)
	}
	benchCheck(b, res)
	benchSink = res
}

// BenchmarkExecuteJSON is ExecuteJSON on the JSON text of the same arguments,
// with the same tool as BenchmarkExecute.
func BenchmarkExecuteJSON(b *testing.B) {
	reg, _ := benchFixture(b, false)
	ctx := context.Background()
	name, s := benchName, benchArgsJSON
	benchCheck(b, reg.ExecuteJSON(ctx, name, s, toolreg.CallContext{}))
	b.ReportAllocs()
	var res string
	for b.Loop() {
		res = reg.ExecuteJSON(ctx, name, s, toolreg.CallContext{})
	}
	benchSink = res
}

// BenchmarkExecuteStrict is Execute on a Strict tool: the same schema,
// validated in full by the JSON Schema compiled at Register.
func BenchmarkExecuteStrict(b *testing.B) {
	reg, _ := benchFixture(b, true)
	ctx := context.Background()
	args := benchArgs()
	name := benchName
	benchCheck(b, reg.Execute(ctx, name, args, toolreg.CallContext{}))
	// A failure proves the full schema is in force (the light check alone
	// would accept a number here).
	var fail map[string]string
	bad := reg.Execute(ctx, name, map[string]any{"path": 1.0, "mode": "read"}, toolreg.CallContext{})
	if err := json.Unmarshal([]byte(bad), &fail); err != nil || fail["code"] != "invalid_arguments" {
		b.Fatalf("strict tool accepted a number for a string: %s", bad)
	}
	b.ReportAllocs()
	var res string
	for b.Loop() {
		res = reg.Execute(ctx, name, args, toolreg.CallContext{})
	}
	benchSink = res
}

// BenchmarkLookupParallel looks names up from every P at once. Run it at
// -cpu=1,2: a lock-free lookup makes the time per op fall as Ps are added.
func BenchmarkLookupParallel(b *testing.B) {
	reg, floor := benchFixture(b, false)
	names := make([]string, 0, len(floor))
	for name := range floor {
		names = append(names, name)
	}
	for _, name := range names {
		if !reg.Has(name) {
			b.Fatalf("Has(%q) is false", name)
		}
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i, miss := 0, 0
		for pb.Next() {
			if !reg.Has(names[i]) {
				miss++
			}
			if i++; i == len(names) {
				i = 0
			}
		}
		if miss > 0 {
			b.Errorf("%d lookups missed", miss)
		}
	})
}

// BenchmarkExecuteParallel is BenchmarkExecute from every P at once.
func BenchmarkExecuteParallel(b *testing.B) {
	reg, _ := benchFixture(b, false)
	ctx := context.Background()
	benchCheck(b, reg.Execute(ctx, benchName, benchArgs(), toolreg.CallContext{}))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		args := benchArgs()
		bad := 0
		for pb.Next() {
			if reg.Execute(ctx, benchName, args, toolreg.CallContext{}) != benchResult {
				bad++
			}
		}
		if bad > 0 {
			b.Errorf("%d calls failed", bad)
		}
	})
}

// Definitions benchmarks: a 1,000-tool catalog, a quarter of it in one of
// five groups, listed for a session that enabled two of them.
const (
	benchCatalog = 1000
	benchGroups  = 5
)

var benchAccess = toolreg.Access{Groups: []string{"grp_3", "grp_1"}}

// benchCatalogRegistry builds the 1,000-tool registry and returns it with the
// number of tools benchAccess offers.
func benchCatalogRegistry(b *testing.B) (*toolreg.Registry, int) {
	b.Helper()
	reg := toolreg.New()
	want := 0
	// Register in reverse so that the registry, not insertion order, sorts.
	for i := benchCatalog - 1; i >= 0; i-- {
		t := newTool(fmt.Sprintf("tool_%04d", i), benchResult, map[string]any{"q": str(), "n": map[string]any{"type": "integer"}}, "q")
		if i%4 == 0 {
			g := fmt.Sprintf("grp_%d", (i/4)%benchGroups)
			t.Groups = []string{g}
			if g == "grp_1" || g == "grp_3" {
				want++
			}
		} else {
			want++
		}
		if _, err := reg.Register(t, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	for g := range benchGroups {
		if _, err := reg.RegisterGroup(toolreg.GroupInfo{Name: fmt.Sprintf("grp_%d", g), Label: "Group"}, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	return reg, want
}

func benchCheckDefs(b *testing.B, defs []toolreg.Definition, want int) {
	b.Helper()
	if len(defs) != want {
		b.Fatalf("Definitions offered %d tools, want %d", len(defs), want)
	}
	for i := 1; i < len(defs); i++ {
		if defs[i-1].Function.Name >= defs[i].Function.Name {
			b.Fatalf("Definitions not sorted at %d: %q, %q", i, defs[i-1].Function.Name, defs[i].Function.Name)
		}
	}
}

// BenchmarkDefinitionsCached lists the definitions of an unchanged registry:
// every call after the first is served from the snapshot's cache.
func BenchmarkDefinitionsCached(b *testing.B) {
	reg, want := benchCatalogRegistry(b)
	benchCheckDefs(b, reg.Definitions(benchAccess), want)
	version := reg.Version()
	b.ReportAllocs()
	var defs []toolreg.Definition
	for b.Loop() {
		defs = reg.Definitions(benchAccess)
	}
	if reg.Version() != version {
		b.Fatal("the registry changed during the benchmark")
	}
	benchCheckDefs(b, defs, want)
	benchSink = defs
}

// BenchmarkDefinitionsFromScratch is what the first Definitions call after a
// change pays. Each iteration makes one cheap change (an extra group is
// registered, or removed again: either bumps the version and no tool is
// affected) and then lists, so the call rebuilds the snapshot (a copy of the
// name map and a sort of the 1,000 entries) and filters it anew. The timer
// keeps running across the change; BenchmarkGroupChange measures that part
// alone.
func BenchmarkDefinitionsFromScratch(b *testing.B) {
	reg, want := benchCatalogRegistry(b)
	benchCheckDefs(b, reg.Definitions(benchAccess), want)
	extra := toolreg.GroupInfo{Name: "bench_extra", Label: "Extra"}
	var unregister func()
	b.ReportAllocs()
	var defs []toolreg.Definition
	last, stale := reg.Version(), 0
	for b.Loop() {
		if unregister == nil {
			unregister, _ = reg.RegisterGroup(extra, "bench")
		} else {
			unregister()
			unregister = nil
		}
		// An atomic load: proves every timed call follows a change.
		if v := reg.Version(); v == last {
			stale++
		} else {
			last = v
		}
		defs = reg.Definitions(benchAccess)
	}
	if stale > 0 {
		b.Fatalf("%d iterations changed nothing: they measured the cache", stale)
	}
	benchCheckDefs(b, defs, want)
	benchSink = defs
	if unregister != nil {
		unregister()
	}
}

// BenchmarkGroupChange is the change alone that BenchmarkDefinitionsFromScratch
// makes each iteration, with nothing listed: subtract it to get the rebuild.
func BenchmarkGroupChange(b *testing.B) {
	reg, _ := benchCatalogRegistry(b)
	extra := toolreg.GroupInfo{Name: "bench_extra", Label: "Extra"}
	var unregister func()
	b.ReportAllocs()
	for b.Loop() {
		if unregister == nil {
			unregister, _ = reg.RegisterGroup(extra, "bench")
		} else {
			unregister()
			unregister = nil
		}
	}
	if unregister != nil {
		unregister()
	}
}
