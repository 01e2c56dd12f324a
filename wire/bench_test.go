package wire_test

import (
	"fmt"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

// benchRegistry holds n tools with a small nested schema each.
func benchRegistry(b *testing.B, n int) *toolreg.Registry {
	var tools []toolreg.RegisteredTool
	for i := range n {
		tools = append(tools, tool(fmt.Sprintf("tool_%03d", i), "A tool for benchmarks.", map[string]any{
			"path":  str("a path"),
			"limit": map[string]any{"type": "integer", "minimum": 1},
			"opts":  map[string]any{"type": "object", "properties": map[string]any{"deep": map[string]any{"type": []any{"boolean", "null"}}}},
			"tags":  map[string]any{"type": "array", "items": str("a tag")},
		}))
	}
	return registry(b, tools...)
}

func BenchmarkTools(b *testing.B) {
	a := wire.New(benchRegistry(b, 100))
	acc := toolreg.Access{}
	b.Run("chat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = a.ChatTools(acc)
		}
	})
	b.Run("anthropic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = a.AnthropicTools(acc)
		}
	})
	b.Run("gemini", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = a.GeminiTools(acc)
		}
	})
}

func BenchmarkCalls(b *testing.B) {
	var calls []call
	for i := range 8 {
		calls = append(calls, call{id: fmt.Sprintf("call_%d", i), name: "tool_001", args: `{"path":"/tmp/x","limit":5,"tags":["a","b"]}`})
	}
	a := wire.New(nil)
	for _, f := range formats {
		raw := []byte(f.response(calls...))
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := f.parse(a, raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
