package toolreg_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/toolreg/toolreg"
)

// Benchmarks of the registry's own hot paths, each next to what it is
// judged against. bench/root.sh runs them in interleaved rounds and prints
// the ratios; the peer comparisons and the scale cases live in the bench
// module (bench/run.sh). BENCHMARKS.md has the figures.
//
// Every call is realistic: the tool has four parameters of different types
// (a string, an enum, an integer, an array of strings), two of them
// required, additionalProperties false, and the call passes all four. Call
// benchmarks use a cancelable context, as a request handler's is, except the
// ones named for Background.

// benchTools is the size of the catalog behind the Execute benchmarks and
// their floor: both look the tool up among the same names.
const benchTools = 64

// benchName is the tool the Execute benchmarks call.
const benchName = "bench_search"

// benchResult is what its handler answers.
const benchResult = `{"ok":true,"items":3}`

// benchArgsJSON is the JSON text of benchArgs.
const benchArgsJSON = `{"query":"quarterly report","mode":"exact","limit":10,"tags":["finance","2024"]}`

// benchSink keeps results alive so the compiler cannot drop the work.
var benchSink any

// benchArgs returns the arguments of every Execute benchmark, as
// json.Unmarshal decodes benchArgsJSON.
func benchArgs() map[string]any {
	return map[string]any{"query": "quarterly report", "mode": "exact", "limit": 10.0, "tags": []any{"finance", "2024"}}
}

// benchSchema is the schema of every benchmark tool.
func benchSchema() map[string]any {
	return map[string]any{
		"query": map[string]any{"type": "string", "description": "Text to search for."},
		"mode":  map[string]any{"type": "string", "enum": []any{"fast", "exact", "fuzzy"}},
		"limit": map[string]any{"type": "integer", "minimum": 1.0, "maximum": 100.0},
		"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}
}

// benchHandler reads one argument, as any handler does, and answers.
func benchHandler(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
	if _, ok := args["query"].(string); !ok {
		return "", fmt.Errorf("query must be a string")
	}
	return benchResult, nil
}

// benchTool is tool name with the benchmark schema. strict makes it a
// Strict tool (full validation); inline runs its handler on the caller's
// goroutine, as a tool whose handler honours its context may.
func benchTool(name string, strict, inline bool) toolreg.RegisteredTool {
	t := toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name: name, Description: "Search " + name + ".", Strict: strict,
			Parameters: toolreg.Parameters{Properties: benchSchema(), Required: []string{"query", "mode"},
				AdditionalProperties: toolreg.Bool(false)},
		}},
		Handler: benchHandler,
		Inline:  inline,
	}
	if strict { // strict mode: every property required, optional ones nullable
		t.Definition.Function.Parameters.Required = []string{"limit", "mode", "query", "tags"}
	}
	return t
}

// benchFixture builds a registry of benchTools tools, benchName among them,
// and the floor: a plain map of the same names to the handler.
func benchFixture(b *testing.B, strict, inline bool, opts ...toolreg.Option) (*toolreg.Registry, map[string]toolreg.Handler) {
	b.Helper()
	reg := toolreg.New(opts...)
	floor := make(map[string]toolreg.Handler, benchTools)
	for i := range benchTools {
		name := fmt.Sprintf("bench_tool_%03d", i)
		if i == benchTools/2 {
			name = benchName
		}
		if _, err := reg.Register(benchTool(name, strict, inline), "bench"); err != nil {
			b.Fatal(err)
		}
		floor[name] = benchHandler
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

// settle collects the garbage an earlier benchmark left, so that its
// collection is not timed here.
func settle(b *testing.B) {
	b.Helper()
	runtime.GC()
	b.ReportAllocs()
}

// benchCtx is a cancelable context, as every request handler has.
func benchCtx(b *testing.B) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	return ctx
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
	_, floor := benchFixture(b, false, true)
	ctx, args := benchCtx(b), benchArgs()
	benchCheck(b, benchFloorCall(ctx, floor, benchName, args))
	settle(b)
	var res string
	for b.Loop() {
		res = benchFloorCall(ctx, floor, benchName, args)
	}
	benchSink = res
}

// benchExecute times Execute of benchName on reg for call.
func benchExecute(b *testing.B, reg *toolreg.Registry, ctx context.Context, call toolreg.CallContext) {
	b.Helper()
	args := benchArgs()
	benchCheck(b, reg.Execute(ctx, benchName, args, call))
	settle(b)
	var res string
	for b.Loop() {
		res = reg.Execute(ctx, benchName, args, call)
	}
	benchSink = res
}

// BenchmarkExecute is Execute of an inline tool with light validation
// (required keys, no unknown key), no guard, no listener.
func BenchmarkExecute(b *testing.B) {
	reg, _ := benchFixture(b, false, true)
	benchExecute(b, reg, benchCtx(b), toolreg.CallContext{})
}

// BenchmarkExecuteBackground is BenchmarkExecute with context.Background().
func BenchmarkExecuteBackground(b *testing.B) {
	reg, _ := benchFixture(b, false, true)
	benchExecute(b, reg, context.Background(), toolreg.CallContext{})
}

// BenchmarkExecuteIsolated is BenchmarkExecute with tools left as
// registered by default: the handler runs on a goroutine of its own.
func BenchmarkExecuteIsolated(b *testing.B) {
	reg, _ := benchFixture(b, false, false)
	benchExecute(b, reg, benchCtx(b), toolreg.CallContext{})
}

// benchLayers are three availability layers that all admit the benchmark
// tools, as a product's plan, permissions and scenario list would: every
// one is asked on every call.
func benchLayers(b *testing.B) []toolreg.Layer {
	b.Helper()
	var names []string
	for i := range benchTools {
		names = append(names, fmt.Sprintf("bench_tool_%03d", i))
	}
	names = append(names, benchName)
	plan, err := toolreg.Entitlements{Name: "plan", Catalog: map[string][]string{"search": names}, Allowed: []string{"search"}}.Layer()
	if err != nil {
		b.Fatal(err)
	}
	perms, err := toolreg.Permissions{Prefixes: map[string]string{"bench_": "search:use"}}.Layer("search:use")
	if err != nil {
		b.Fatal(err)
	}
	return []toolreg.Layer{plan, perms, toolreg.AllowList("scenario", names)}
}

// BenchmarkExecuteLayers is BenchmarkExecute with three layers in the
// caller's Access.
func BenchmarkExecuteLayers(b *testing.B) {
	reg, _ := benchFixture(b, false, true)
	benchExecute(b, reg, benchCtx(b), toolreg.CallContext{Access: toolreg.Access{Layers: benchLayers(b)}})
}

// BenchmarkUnmarshalFloor is what ExecuteJSON is compared with: decoding the
// arguments with json.Unmarshal into a map, then the floor.
func BenchmarkUnmarshalFloor(b *testing.B) {
	_, floor := benchFixture(b, false, true)
	ctx := benchCtx(b)
	settle(b)
	var res string
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal([]byte(benchArgsJSON), &m); err != nil {
			b.Fatal(err)
		}
		res = benchFloorCall(ctx, floor, benchName, m)
	}
	benchCheck(b, res)
	benchSink = res
}

// BenchmarkExecuteJSON is ExecuteJSON of the same tool with the JSON text of
// the same arguments.
func BenchmarkExecuteJSON(b *testing.B) {
	reg, _ := benchFixture(b, false, true)
	ctx := benchCtx(b)
	benchCheck(b, reg.ExecuteJSON(ctx, benchName, benchArgsJSON, toolreg.CallContext{}))
	settle(b)
	var res string
	for b.Loop() {
		res = reg.ExecuteJSON(ctx, benchName, benchArgsJSON, toolreg.CallContext{})
	}
	benchSink = res
}

// BenchmarkExecuteStrict is Execute of a Strict tool: arguments validated
// against the full JSON Schema.
func BenchmarkExecuteStrict(b *testing.B) {
	reg, _ := benchFixture(b, true, true)
	ctx := benchCtx(b)
	bad := benchArgs()
	bad["limit"] = "ten" // the light check alone would accept it
	var fail map[string]string
	if err := json.Unmarshal([]byte(reg.Execute(ctx, benchName, bad, toolreg.CallContext{})), &fail); err != nil || fail["code"] != toolreg.CodeInvalidArguments {
		b.Fatal("a string for an integer was not refused: the full schema is not in force")
	}
	benchExecute(b, reg, ctx, toolreg.CallContext{})
}

// BenchmarkLookupParallel looks names up from every P at once. Run it at
// -cpu=1,2: a lock-free lookup makes the time per op fall as Ps are added.
func BenchmarkLookupParallel(b *testing.B) {
	reg, floor := benchFixture(b, false, true)
	names := make([]string, 0, len(floor))
	for name := range floor {
		names = append(names, name)
	}
	settle(b)
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
	reg, _ := benchFixture(b, false, true)
	ctx := benchCtx(b)
	benchCheck(b, reg.Execute(ctx, benchName, benchArgs(), toolreg.CallContext{}))
	settle(b)
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

// Listing benchmarks: a 1,000-tool catalog, a quarter of it in one of five
// groups, listed for a session that enabled two of them.
const (
	benchCatalog = 1000
	benchGroups  = 5
)

var benchAccess = toolreg.Access{Groups: []string{"grp_3", "grp_1"}}

// benchCatalogRegistry builds the 1,000-tool registry and returns it with the
// names benchAccess offers, in name order.
func benchCatalogRegistry(b *testing.B) (*toolreg.Registry, []string) {
	b.Helper()
	reg := toolreg.New()
	offered := make([]string, 0, benchCatalog)
	for i := range benchCatalog {
		name := fmt.Sprintf("tool_%04d", i)
		if g := fmt.Sprintf("grp_%d", (i/4)%benchGroups); i%4 != 0 || g == "grp_1" || g == "grp_3" {
			offered = append(offered, name)
		}
	}
	// Register in reverse so that the registry, not insertion order, sorts.
	for i := benchCatalog - 1; i >= 0; i-- {
		t := benchTool(fmt.Sprintf("tool_%04d", i), false, true)
		if i%4 == 0 {
			t.Groups = []string{fmt.Sprintf("grp_%d", (i/4)%benchGroups)}
		}
		if _, err := reg.Register(t, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	return reg, offered
}

// benchListingLayers are three cacheable layers that admit the offered tools.
func benchListingLayers(b *testing.B, offered []string) []toolreg.Layer {
	b.Helper()
	plan, err := toolreg.Entitlements{Name: "plan", Catalog: map[string][]string{"all": offered}}.Layer()
	if err != nil {
		b.Fatal(err)
	}
	perms, err := toolreg.Permissions{Prefixes: map[string]string{"tool_": "tools"}}.Layer("tools")
	if err != nil {
		b.Fatal(err)
	}
	return []toolreg.Layer{plan, perms, toolreg.AllowList("scenario", offered)}
}

func benchCheckDefs(b *testing.B, defs []toolreg.Definition, want []string) {
	b.Helper()
	if len(defs) != len(want) {
		b.Fatalf("Definitions offered %d tools, want %d", len(defs), len(want))
	}
	for i, d := range defs {
		if d.Function.Name != want[i] {
			b.Fatalf("Definitions[%d] is %q, want %q", i, d.Function.Name, want[i])
		}
	}
}

// benchDefinitions times Definitions under a on an unchanged registry: every
// call after the first is served from the cache.
func benchDefinitions(b *testing.B, reg *toolreg.Registry, a toolreg.Access, want []string) {
	benchCheckDefs(b, reg.Definitions(a), want)
	settle(b)
	var defs []toolreg.Definition
	for b.Loop() {
		defs = reg.Definitions(a)
	}
	benchSink = defs
}

// BenchmarkDefinitionsCached lists an unchanged registry for a session.
func BenchmarkDefinitionsCached(b *testing.B) {
	reg, want := benchCatalogRegistry(b)
	benchDefinitions(b, reg, benchAccess, want)
}

// BenchmarkDefinitionsLayersCached is BenchmarkDefinitionsCached with three
// layers in the Access.
func BenchmarkDefinitionsLayersCached(b *testing.B) {
	reg, want := benchCatalogRegistry(b)
	a := benchAccess
	a.Layers = benchListingLayers(b, want)
	benchDefinitions(b, reg, a, want)
}

// benchFromScratch times a listing right after a change that invalidates
// every cached one: registering, or removing, a group (no tool changes, so
// the listing stays the same while the cache is stale).
func benchFromScratch(b *testing.B, reg *toolreg.Registry, a toolreg.Access, want []string) {
	benchCheckDefs(b, reg.Definitions(a), want)
	extra := toolreg.GroupInfo{Name: "bench_extra", Label: "Extra"}
	var unregister func()
	settle(b)
	var defs []toolreg.Definition
	last, stale := reg.Version(), 0
	for b.Loop() {
		if unregister == nil {
			unregister, _ = reg.RegisterGroup(extra, "bench")
		} else {
			unregister()
			unregister = nil
		}
		if v := reg.Version(); v == last {
			stale++
		} else {
			last = v
		}
		defs = reg.Definitions(a)
	}
	if stale > 0 {
		b.Fatalf("%d iterations changed nothing: they measured the cache", stale)
	}
	benchCheckDefs(b, defs, want)
	benchSink = defs
}

// BenchmarkDefinitionsFromScratch is a listing after every change.
func BenchmarkDefinitionsFromScratch(b *testing.B) {
	reg, want := benchCatalogRegistry(b)
	benchFromScratch(b, reg, benchAccess, want)
}

// BenchmarkDefinitionsLayersFromScratch is the same with three layers.
func BenchmarkDefinitionsLayersFromScratch(b *testing.B) {
	reg, want := benchCatalogRegistry(b)
	a := benchAccess
	a.Layers = benchListingLayers(b, want)
	benchFromScratch(b, reg, a, want)
}

// benchWait is the tool of the batch benchmarks: it takes 10 ms, as a quick
// network call does, honouring its context.
func benchWait(b *testing.B) *toolreg.Registry {
	b.Helper()
	reg := toolreg.New()
	t := benchTool("wait_10ms", false, true)
	t.Handler = func(ctx context.Context, _ map[string]any, _ toolreg.CallContext) (string, error) {
		select {
		case <-time.After(10 * time.Millisecond):
			return benchResult, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if _, err := reg.Register(t, "bench"); err != nil {
		b.Fatal(err)
	}
	return reg
}

// benchBatch times ExecuteBatch of n calls of the 10 ms tool at
// parallelism n.
func benchBatch(b *testing.B, n int) {
	reg := benchWait(b)
	calls := make([]toolreg.ToolCall, n)
	for i := range calls {
		calls[i] = toolreg.ToolCall{ID: fmt.Sprint("call_", i), Name: "wait_10ms", Arguments: benchArgsJSON}
	}
	ctx := benchCtx(b)
	settle(b)
	for b.Loop() {
		for _, r := range reg.ExecuteBatch(ctx, calls, toolreg.CallContext{}, toolreg.BatchOptions{Parallelism: n}) {
			if r.Content != benchResult {
				b.Fatalf("call %s: %s", r.CallID, r.Content)
			}
		}
	}
}

// BenchmarkBatchOne is one 10 ms call through ExecuteBatch.
func BenchmarkBatchOne(b *testing.B) { benchBatch(b, 1) }

// BenchmarkBatchEight is eight 10 ms calls at parallelism 8: they overlap,
// so the batch takes about as long as one call.
func BenchmarkBatchEight(b *testing.B) { benchBatch(b, 8) }
