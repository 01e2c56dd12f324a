package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/toolreg/toolreg"
)

// The catalog every side serves. Tools are named like those of MCP servers
// (srv0025_search_issues): twenty tools per server, five verbs times four
// nouns, the server number first. Every tool has the same schema and calls
// the same handler.
const (
	// catalogSize is the size of the registry behind the call and listing
	// benchmarks, for toolreg and the peers alike.
	catalogSize = 1000

	// toolsPerServer is how many tools share a srvNNNN_ prefix.
	toolsPerServer = 20

	// callIndex is the tool that the call benchmarks call: one in the middle
	// of the catalog, neither first nor last in any order.
	callIndex = 517

	// changeIndex is the tool that the "after a change" benchmarks register
	// again.
	changeIndex = 250

	// answer is what the handler returns: the result every call benchmark
	// checks before it is timed.
	answer = `{"ok":true,"items":3}`

	// argsJSON is the model's "arguments" string: all four parameters.
	argsJSON = `{"query":"quarterly report","mode":"exact","limit":10,"tags":["finance","2024"]}`

	// schemaJSON is the input schema of every tool: a string, an enum, an
	// integer and an array of strings; two required; no other key allowed.
	schemaJSON = `{"type":"object","properties":{` +
		`"query":{"type":"string","description":"Text to search for."},` +
		`"mode":{"type":"string","enum":["fast","exact","fuzzy"],"description":"How to match the text."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Most results to return."},` +
		`"tags":{"type":"array","items":{"type":"string"},"description":"Only results that carry every one of these tags."}},` +
		`"required":["query","mode"],"additionalProperties":false}`

	// unknownName is the name of the unknown-name benchmark: the model
	// dropped the server prefix of srvNNNN_search_issues, a mistake that
	// resembles thousands of real names in a large catalog.
	unknownName = "search_issues"
)

var (
	verbs = [...]string{"search", "get", "create", "update", "delete"}
	nouns = [...]string{"issues", "files", "events", "contacts"}
)

// toolName is the name of tool i of the catalog.
func toolName(i int) string {
	return fmt.Sprintf("srv%04d_%s_%s", i/toolsPerServer, verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)])
}

// toolDescription is the description of tool i.
func toolDescription(i int) string {
	return fmt.Sprintf("%s %s on server %d; returns how many matched.",
		verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)], i/toolsPerServer)
}

// callName is the name that the call benchmarks call.
var callName = toolName(callIndex)

// callArgs returns the arguments of every map-based call, as json.Unmarshal
// decodes argsJSON: the same four values.
func callArgs() map[string]any {
	return map[string]any{"query": "quarterly report", "mode": "exact", "limit": 10.0, "tags": []any{"finance", "2024"}}
}

// handle is the handler of every tool on every side: it reads one argument,
// as any handler does, and answers a constant, so that the time measured is
// the dispatch around it.
func handle(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
	if _, ok := args["query"].(string); !ok {
		return "", errors.New("query must be a string")
	}
	return answer, nil
}

// schema returns the decoded schemaJSON. Registries copy what they are
// given, so every tool may share one decoded schema.
var schema = sync.OnceValue(func() map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(schemaJSON), &m); err != nil {
		panic(err)
	}
	return m
})

// toolregTool returns tool i of the catalog as toolreg registers it.
func toolregTool(i int) toolreg.RegisteredTool {
	s := schema()
	var required []string
	for _, k := range s["required"].([]any) {
		required = append(required, k.(string))
	}
	return toolreg.RegisteredTool{
		Definition: toolreg.Definition{
			Type: "function",
			Function: toolreg.Function{
				Name:        toolName(i),
				Description: toolDescription(i),
				Parameters: toolreg.Parameters{
					Type:                 "object",
					Properties:           s["properties"].(map[string]any),
					Required:             required,
					AdditionalProperties: toolreg.Bool(false),
				},
			},
		},
		Handler: handle,
		// handle returns at once, as a handler that honours its context
		// does: such a tool runs inline, on the caller's goroutine.
		// BenchmarkExecuteIsolated measures the default, a goroutine per
		// call.
		Inline: true,
	}
}

// catalogPlugin owns every tool of a registry except the victims of the
// UnregisterByPlugin benchmarks.
const catalogPlugin = "catalog"

// victimPlugin owns victimCount tools spread over the whole catalog: one in
// every n/victimCount, so that its tools are not neighbours in name order.
const (
	victimPlugin = "victim"
	victimCount  = 1000
)

// pluginOf is the plugin that registers tool i of an n-tool registry.
func pluginOf(i, n int) string {
	if n >= 10*victimCount && i%(n/victimCount) == 0 {
		return victimPlugin
	}
	return catalogPlugin
}

// newRegistry returns a registry of tools 0..n-1, registered in index order.
func newRegistry(tb testing.TB, n int, opts ...toolreg.Option) *toolreg.Registry {
	tb.Helper()
	reg := toolreg.New(opts...)
	for i := range n {
		if _, err := reg.Register(toolregTool(i), pluginOf(i, n)); err != nil {
			tb.Fatal(err)
		}
	}
	return reg
}

// shared holds the large registries, built once per process: the scale
// benchmarks that only read share them, and the one that removes tools puts
// them back before it returns.
var shared struct {
	mu   sync.Mutex
	regs map[int]*toolreg.Registry
}

// sharedRegistry returns the shared n-tool registry, building it on first use.
func sharedRegistry(tb testing.TB, n int) *toolreg.Registry {
	tb.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if reg := shared.regs[n]; reg != nil {
		return reg
	}
	reg := newRegistry(tb, n)
	if shared.regs == nil {
		shared.regs = map[int]*toolreg.Registry{}
	}
	shared.regs[n] = reg
	return reg
}

// shuffled returns the names of tools 0..n-1 in an order that is the same in
// every run: a fixed seed, so that rounds compare like with like.
func shuffled(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = toolName(i)
	}
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	rng.Shuffle(n, func(i, j int) { names[i], names[j] = names[j], names[i] })
	return names
}

// settle collects the garbage of a benchmark's setup, so that the timed
// loop does not pay for it, and asks for allocations to be reported. Every
// benchmark calls it right before its loop.
func settle(b *testing.B) {
	b.Helper()
	runtime.GC()
	b.ReportAllocs()
}

// sink keeps results alive so that the compiler cannot drop the work.
var sink any

// checkAnswer fails the benchmark unless a call gave the handler's answer,
// so that no benchmark measures a failure by mistake.
func checkAnswer(tb testing.TB, side, got string) {
	tb.Helper()
	if got != answer {
		tb.Fatalf("%s answered %q, want %q", side, got, answer)
	}
}

// codeOf returns the "code" of a toolreg failure result, or "" for anything
// else.
func codeOf(result string) string {
	var f struct {
		Code string `json:"code"`
	}
	if json.Unmarshal([]byte(result), &f) != nil {
		return ""
	}
	return f.Code
}
