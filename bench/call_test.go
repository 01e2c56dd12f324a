package bench

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/toolreg/toolreg"
)

// Calls of one tool of the 1,000-tool catalog: the floor, toolreg and the
// peers, declared in the order they are compared, so that in every round a
// benchmark runs right after the one it is judged against. Execute and its
// variants use context.Background(), except where the benchmark says
// otherwise; the calls that stand for a request handler's (ExecuteJSON,
// CallJSON and the peers' calls) use a cancelable context, as every HTTP
// request has.

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

// BenchmarkExecuteIsolated is BenchmarkExecute with the tools left as
// registered by default: each call runs its handler on a goroutine of its
// own, so that a handler that ignores its context, hangs or calls
// runtime.Goexit cannot hold or end the caller.
func BenchmarkExecuteIsolated(b *testing.B) {
	reg := toolreg.New()
	for i := range catalogSize {
		tool := toolregTool(i)
		tool.Inline = false
		if _, err := reg.Register(tool, catalogPlugin); err != nil {
			b.Fatal(err)
		}
	}
	benchExecute(b, reg, context.Background())
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

// BenchmarkMCPGoCall is mcp-go's HandleMessage with a tools/call request of
// the same tool and arguments as BenchmarkExecuteJSON, and a cancelable
// context. The response is left as HandleMessage returns it, unmarshaled.
func BenchmarkMCPGoCall(b *testing.B) {
	s := newMCPGoServer(catalogSize)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checkAnswer(b, "mcp-go", mcpgoText(s.HandleMessage(ctx, mcpgoCall)))
	settle(b)
	var resp any
	for b.Loop() {
		resp = s.HandleMessage(ctx, mcpgoCall)
	}
	sink = resp
}

// BenchmarkGoSDKCall is the go-sdk client's CallTool of the same tool with
// the same arguments as BenchmarkExecuteJSON, over the in-memory transport,
// with a cancelable context.
func BenchmarkGoSDKCall(b *testing.B) {
	s := newGoSDKSession(b, catalogSize)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checkAnswer(b, "go-sdk", gosdkText(s.call(ctx)))
	settle(b)
	var res any
	for b.Loop() {
		r, err := s.call(ctx)
		if err != nil {
			b.Fatal(err)
		}
		res = r
	}
	sink = res
}
