package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolreg/toolreg"
)

// The registry at scale: the same tool, many times over.

// benchRegisterThenCall registers n tools in a fixed shuffled order into a
// new registry and calls each right after its registration, as a product
// that loads a catalog while serving does. One op is the whole run, from an
// empty registry to n tools; the ns/tool metric is one registration and its
// call.
func benchRegisterThenCall(b *testing.B, n int) {
	index := make(map[string]int, n)
	for i := range n {
		index[toolName(i)] = i
	}
	tools := make([]toolreg.RegisteredTool, 0, n)
	for _, name := range shuffled(n) {
		tools = append(tools, toolregTool(index[name]))
	}
	ctx, args := context.Background(), callArgs()
	settle(b)
	failed := 0
	var reg *toolreg.Registry
	for b.Loop() {
		reg = toolreg.New()
		for _, t := range tools {
			if _, err := reg.Register(t, catalogPlugin); err != nil {
				b.Fatal(err)
			}
			if reg.Execute(ctx, t.Definition.Function.Name, args, toolreg.CallContext{}) != answer {
				failed++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/tool")
	if failed > 0 {
		b.Fatalf("%d calls did not answer", failed)
	}
	if !reg.Has(toolName(n - 1)) {
		b.Fatal("the last tool is missing")
	}
	sink = reg
}

// BenchmarkRegisterThenCall10k registers 10,000 tools, a call after each.
func BenchmarkRegisterThenCall10k(b *testing.B) { benchRegisterThenCall(b, 10_000) }

// BenchmarkRegisterThenCall100k registers 100,000 tools, a call after each.
// With BenchmarkRegisterThenCall10k it shows how the cost grows: ten times
// the tools should cost ten times as much.
func BenchmarkRegisterThenCall100k(b *testing.B) { benchRegisterThenCall(b, 100_000) }

// churnSize is the size of the registry of the churn benchmarks.
const churnSize = 10_000

// benchChurn is Execute of one tool, with context.Background(), on the
// shared 10,000-tool registry while another goroutine makes one change
// every `every` (none when every is 0): it registers a tool that the
// registry does not hold, and at the next change removes it again. Either is
// a change of the tool set. A change that comes late is made at once, so the
// rate holds on average unless a change takes longer than `every`; the
// changes/s metric is the rate achieved. Allocations include the writer's.
func benchChurn(b *testing.B, every time.Duration) {
	reg := sharedRegistry(b, churnSize)
	ctx, args := context.Background(), callArgs()
	checkAnswer(b, "Execute", reg.Execute(ctx, callName, args, toolreg.CallContext{}))
	extra := toolregTool(churnSize) // not in the registry
	if reg.Has(extra.Definition.Function.Name) {
		b.Fatalf("%s is already registered", extra.Definition.Function.Name)
	}

	var changes, failures atomic.Int64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		if every == 0 {
			return
		}
		// One change per period on average: a change that comes late is
		// made at once and the next is due a period after its own due time,
		// so a slow change or a late wake-up does not lower the rate.
		timer := time.NewTimer(every)
		defer timer.Stop()
		due := time.Now().Add(every)
		var unregister func()
		for {
			if wait := time.Until(due); wait > 0 {
				timer.Reset(wait)
				select {
				case <-stop:
					if unregister != nil {
						unregister()
					}
					return
				case <-timer.C:
				}
			} else {
				select {
				case <-stop:
					if unregister != nil {
						unregister()
					}
					return
				default:
				}
			}
			due = due.Add(every)
			if unregister == nil {
				u, err := reg.Register(extra, "churn")
				if err != nil {
					failures.Add(1)
					continue
				}
				unregister = u
			} else {
				unregister()
				unregister = nil
			}
			changes.Add(1)
		}
	}()

	settle(b)
	failed := 0
	start := changes.Load()
	for b.Loop() {
		if reg.Execute(ctx, callName, args, toolreg.CallContext{}) != answer {
			failed++
		}
	}
	made := changes.Load() - start
	close(stop)
	<-done
	b.ReportMetric(float64(made)/b.Elapsed().Seconds(), "changes/s")
	switch {
	case failed > 0:
		b.Fatalf("%d calls did not answer", failed)
	case failures.Load() > 0:
		b.Fatalf("%d changes failed", failures.Load())
	case every > 0 && made == 0:
		b.Fatal("no change was made during the benchmark")
	case reg.Has(extra.Definition.Function.Name):
		b.Fatal("the churned tool was left registered")
	}
}

// BenchmarkChurnNone10k is the Execute of the churn benchmarks with no change.
func BenchmarkChurnNone10k(b *testing.B) { benchChurn(b, 0) }

// BenchmarkChurn1ms10k is the Execute of the churn benchmarks while the
// registry changes once per millisecond.
func BenchmarkChurn1ms10k(b *testing.B) { benchChurn(b, time.Millisecond) }

// BenchmarkUnknownName100k is Execute of a name that the 100,000-tool
// registry does not hold but that resembles thousands of its names.
func BenchmarkUnknownName100k(b *testing.B) {
	reg := sharedRegistry(b, 100_000)
	ctx, args := context.Background(), callArgs()
	if res := reg.Execute(ctx, unknownName, args, toolreg.CallContext{}); codeOf(res) != toolreg.CodeNotFound {
		b.Fatalf("an unknown name answered %s", res)
	}
	settle(b)
	var res string
	for b.Loop() {
		res = reg.Execute(ctx, unknownName, args, toolreg.CallContext{})
	}
	sink = res
}

// benchUnregisterByPlugin removes the 1,000 tools of one plugin, spread over
// the whole name space, from the shared n-tool registry. One op is
// UnregisterByPlugin and the first lookup after it, so that work left for
// the next reader is counted too. Between ops, untimed, the plugin's tools
// are registered again.
func benchUnregisterByPlugin(b *testing.B, n int) {
	reg := sharedRegistry(b, n)
	var tools []toolreg.RegisteredTool
	for i := range n {
		if pluginOf(i, n) == victimPlugin {
			tools = append(tools, toolregTool(i))
		}
	}
	if len(tools) != victimCount {
		b.Fatalf("the plugin owns %d tools, want %d", len(tools), victimCount)
	}
	victim := tools[len(tools)/2].Definition.Function.Name
	if !reg.Has(victim) || pluginOf(callIndex, n) == victimPlugin {
		b.Fatal("the fixture is not as expected")
	}
	settle(b)
	wrong := 0
	for b.Loop() {
		reg.UnregisterByPlugin(victimPlugin)
		if reg.Has(victim) || !reg.Has(callName) {
			wrong++
		}
		b.StopTimer()
		for _, t := range tools {
			if _, err := reg.Register(t, victimPlugin); err != nil {
				b.Fatal(err)
			}
		}
		reg.Has(victim)
		b.StartTimer()
	}
	if wrong > 0 {
		b.Fatalf("%d removals removed the wrong tools", wrong)
	}
}

// BenchmarkUnregisterByPlugin1kOf10k removes 1,000 tools of 10,000.
func BenchmarkUnregisterByPlugin1kOf10k(b *testing.B) { benchUnregisterByPlugin(b, 10_000) }

// BenchmarkUnregisterByPlugin1kOf100k removes 1,000 tools of 100,000. With
// BenchmarkUnregisterByPlugin1kOf10k it shows whether the cost follows the
// tools removed or the tools kept.
func BenchmarkUnregisterByPlugin1kOf100k(b *testing.B) { benchUnregisterByPlugin(b, 100_000) }

// benchRotate is Execute with context.Background() on an n-tool registry,
// each call naming the next of the n tools in a fixed shuffled order, as
// calls spread over a large catalog do.
func benchRotate(b *testing.B, reg *toolreg.Registry, n int) {
	names := shuffled(n)
	ctx, args := context.Background(), callArgs()
	checkAnswer(b, "Execute", reg.Execute(ctx, names[0], args, toolreg.CallContext{}))
	settle(b)
	var res string
	i := 0
	for b.Loop() {
		res = reg.Execute(ctx, names[i], args, toolreg.CallContext{})
		if i++; i == n {
			i = 0
		}
	}
	checkAnswer(b, "Execute", res)
	sink = res
}

// BenchmarkRotate1k rotates over the names of a 1,000-tool registry.
func BenchmarkRotate1k(b *testing.B) {
	benchRotate(b, newRegistry(b, catalogSize), catalogSize)
}

// BenchmarkRotate100k rotates over the names of the 100,000-tool registry.
func BenchmarkRotate100k(b *testing.B) {
	benchRotate(b, sharedRegistry(b, 100_000), 100_000)
}
