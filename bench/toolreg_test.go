package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/toolreg/toolreg"
)

// Calls through toolreg on the 1,000-tool catalog, next to the floor they
// are judged against. Execute and its variants use context.Background(),
// except where the benchmark says otherwise; the calls that stand for a
// request handler's (ExecuteJSON, CallJSON, and the peers' calls) use a
// cancelable context, as every HTTP request has.

// floorCall is the floor: a map lookup and a direct call of the handler with
// the registry's signature.
func floorCall(ctx context.Context, floor map[string]toolreg.Handler, name string, args map[string]any) string {
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

// newFloor returns a map of the catalog's names to their handlers.
func newFloor(n int) map[string]toolreg.Handler {
	floor := make(map[string]toolreg.Handler, n)
	for i := range n {
		floor[toolName(i)] = handle
	}
	return floor
}

// BenchmarkFloor is what Execute is compared with: a lookup in a map of the
// 1,000 names plus a direct call of the same handler with the same args.
func BenchmarkFloor(b *testing.B) {
	floor := newFloor(catalogSize)
	ctx, args := context.Background(), callArgs()
	checkAnswer(b, "floor", floorCall(ctx, floor, callName, args))
	settle(b)
	var res string
	for b.Loop() {
		res = floorCall(ctx, floor, callName, args)
	}
	sink = res
}

// BenchmarkUnmarshalFloor is the floor of a call that arrives as JSON text:
// json.Unmarshal of argsJSON into a fresh map, then the floor.
func BenchmarkUnmarshalFloor(b *testing.B) {
	floor := newFloor(catalogSize)
	ctx := context.Background()
	settle(b)
	var res string
	for b.Loop() {
		var args map[string]any
		if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
			b.Fatal(err)
		}
		res = floorCall(ctx, floor, callName, args)
	}
	checkAnswer(b, "floor", res)
	sink = res
}

// benchExecute times reg.Execute of the call tool with ctx.
func benchExecute(b *testing.B, reg *toolreg.Registry, ctx context.Context) {
	b.Helper()
	args := callArgs()
	checkAnswer(b, "Execute", reg.Execute(ctx, callName, args, toolreg.CallContext{}))
	settle(b)
	var res string
	for b.Loop() {
		res = reg.Execute(ctx, callName, args, toolreg.CallContext{})
	}
	sink = res
}

// BenchmarkExecute is Execute with light validation (required keys, no
// unknown key), no guard, no listener, context.Background().
func BenchmarkExecute(b *testing.B) {
	benchExecute(b, newRegistry(b, catalogSize), context.Background())
}

// BenchmarkExecuteCancelable is BenchmarkExecute with a cancelable context,
// made once by context.WithCancel, as a request handler's is.
func BenchmarkExecuteCancelable(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	benchExecute(b, newRegistry(b, catalogSize), ctx)
}

// BenchmarkExecuteListener is BenchmarkExecute with one event listener that
// counts the events. No argument is marked sensitive.
func BenchmarkExecuteListener(b *testing.B) {
	reg := newRegistry(b, catalogSize)
	var events atomic.Int64
	defer reg.Subscribe(func(toolreg.ExecuteEvent) { events.Add(1) })()
	reg.Execute(context.Background(), callName, callArgs(), toolreg.CallContext{})
	if got := events.Load(); got != 2 {
		b.Fatalf("one call delivered %d events, want 2", got)
	}
	benchExecute(b, reg, context.Background())
}

// BenchmarkExecuteFullValidation is BenchmarkExecute on a registry built
// WithSchemaValidation: every call is validated against the full JSON Schema.
func BenchmarkExecuteFullValidation(b *testing.B) {
	reg := newRegistry(b, catalogSize, toolreg.WithSchemaValidation())
	// The light check alone accepts a string for the integer: a refusal
	// proves the full schema is in force.
	bad := callArgs()
	bad["limit"] = "ten"
	if res := reg.Execute(context.Background(), callName, bad, toolreg.CallContext{}); codeOf(res) != toolreg.CodeInvalidArguments {
		b.Fatalf("a string for an integer was not refused: %s", res)
	}
	benchExecute(b, reg, context.Background())
}

// BenchmarkCall is Call, the Result-returning form of Execute, with the
// arguments of BenchmarkExecute.
func BenchmarkCall(b *testing.B) {
	reg := newRegistry(b, catalogSize)
	ctx, args := context.Background(), callArgs()
	first := reg.Call(ctx, callName, args, toolreg.CallContext{})
	checkAnswer(b, "Call", first.Content)
	if first.IsError() {
		b.Fatalf("Call failed: %+v", first)
	}
	settle(b)
	var res toolreg.Result
	for b.Loop() {
		res = reg.Call(ctx, callName, args, toolreg.CallContext{})
	}
	sink = res
}

// BenchmarkExecuteJSON is ExecuteJSON on the model's arguments string, with
// a cancelable context: the call the peers' calls are compared with.
func BenchmarkExecuteJSON(b *testing.B) {
	reg := newRegistry(b, catalogSize)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checkAnswer(b, "ExecuteJSON", reg.ExecuteJSON(ctx, callName, argsJSON, toolreg.CallContext{}))
	settle(b)
	var res string
	for b.Loop() {
		res = reg.ExecuteJSON(ctx, callName, argsJSON, toolreg.CallContext{})
	}
	sink = res
}

// BenchmarkCallJSON is CallJSON with the arguments and context of
// BenchmarkExecuteJSON.
func BenchmarkCallJSON(b *testing.B) {
	reg := newRegistry(b, catalogSize)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := reg.CallJSON(ctx, callName, argsJSON, toolreg.CallContext{})
	checkAnswer(b, "CallJSON", first.Content)
	if first.IsError() {
		b.Fatalf("CallJSON failed: %+v", first)
	}
	settle(b)
	var res toolreg.Result
	for b.Loop() {
		res = reg.CallJSON(ctx, callName, argsJSON, toolreg.CallContext{})
	}
	sink = res
}

// checkListing fails unless list is the JSON array of the catalog's
// definitions that json.Marshal(reg.Definitions(toolreg.Access{})) writes.
func checkListing(b *testing.B, reg *toolreg.Registry, list []byte) {
	b.Helper()
	var defs []json.RawMessage
	if err := json.Unmarshal(list, &defs); err != nil {
		b.Fatalf("DefinitionsJSON is not a JSON array: %v", err)
	}
	if len(defs) != catalogSize {
		b.Fatalf("DefinitionsJSON listed %d tools, want %d", len(defs), catalogSize)
	}
	want, err := json.Marshal(reg.Definitions(toolreg.Access{}))
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.Equal(list, want) {
		b.Fatal("DefinitionsJSON differs from json.Marshal(Definitions)")
	}
}

// BenchmarkDefinitionsJSONCached lists the 1,000 tools as wire bytes for the
// zero Access on an unchanged registry: what each model turn sends.
func BenchmarkDefinitionsJSONCached(b *testing.B) {
	reg := newRegistry(b, catalogSize)
	checkListing(b, reg, reg.DefinitionsJSON(toolreg.Access{}))
	version := reg.Version()
	settle(b)
	var list []byte
	for b.Loop() {
		list = reg.DefinitionsJSON(toolreg.Access{})
	}
	if reg.Version() != version {
		b.Fatal("the registry changed during the benchmark")
	}
	sink = list
}

// BenchmarkDefinitionsJSONAfterChange is one change, then the listing of
// BenchmarkDefinitionsJSONCached: the first listing after a change. The
// change registers one tool again, unchanged, which replaces it: the tool
// set and the listing stay the same while the registry's version grows.
// BenchmarkToolChange times the change alone.
func BenchmarkDefinitionsJSONAfterChange(b *testing.B) {
	reg := newRegistry(b, catalogSize)
	tool := toolregTool(changeIndex)
	checkListing(b, reg, reg.DefinitionsJSON(toolreg.Access{}))
	settle(b)
	var list []byte
	last, stale, failed := reg.Version(), 0, 0
	for b.Loop() {
		if _, err := reg.Register(tool, catalogPlugin); err != nil {
			failed++
		}
		if v := reg.Version(); v == last {
			stale++
		} else {
			last = v
		}
		list = reg.DefinitionsJSON(toolreg.Access{})
	}
	if failed > 0 || stale > 0 {
		b.Fatalf("%d registrations failed and %d changed nothing: they measured the cache", failed, stale)
	}
	checkListing(b, reg, list)
	sink = list
}

// BenchmarkToolChange is the change of BenchmarkDefinitionsJSONAfterChange
// alone, with nothing listed.
func BenchmarkToolChange(b *testing.B) {
	reg := newRegistry(b, catalogSize)
	tool := toolregTool(changeIndex)
	settle(b)
	failed := 0
	for b.Loop() {
		if _, err := reg.Register(tool, catalogPlugin); err != nil {
			failed++
		}
	}
	if failed > 0 {
		b.Fatalf("%d registrations failed", failed)
	}
}
