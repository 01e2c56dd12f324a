package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/toolreg/toolreg"
)

// Listings of the 1,000-tool catalog as the wire bytes a model turn sends:
// toolreg's DefinitionsJSON, cached and right after a change, next to the
// peers' tools/list, declared in the order they are compared.

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

// mcpgoListed returns how many tools a marshaled tools/list response holds,
// or -1 if it is not one.
func mcpgoListed(body []byte) int {
	var r struct {
		Result struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &r) != nil || r.Result.NextCursor != "" {
		return -1
	}
	return len(r.Result.Tools)
}

// BenchmarkMCPGoList is mcp-go's HandleMessage with a tools/list request,
// then json.Marshal of the response: the wire bytes of the 1,000 tools, as
// BenchmarkDefinitionsJSONCached gives them.
func BenchmarkMCPGoList(b *testing.B) {
	s := newMCPGoServer(catalogSize)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, err := json.Marshal(s.HandleMessage(ctx, mcpgoList))
	if err != nil {
		b.Fatal(err)
	}
	if n := mcpgoListed(body); n != catalogSize {
		b.Fatalf("tools/list listed %d tools, want %d: %.200s", n, catalogSize, body)
	}
	settle(b)
	for b.Loop() {
		body, err = json.Marshal(s.HandleMessage(ctx, mcpgoList))
		if err != nil {
			b.Fatal(err)
		}
	}
	sink = body
}

// BenchmarkGoSDKList is the go-sdk client's ListTools of the 1,000 tools over
// the in-memory transport. The setup checks that each call reaches the
// server (no client cache answers it).
func BenchmarkGoSDKList(b *testing.B) {
	s := newGoSDKSession(b, catalogSize)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := s.lists.Load()
	tools, err := s.list(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if len(tools) != catalogSize {
		b.Fatalf("ListTools listed %d tools, want %d", len(tools), catalogSize)
	}
	if s.lists.Load() == before {
		b.Fatal("ListTools did not reach the server")
	}
	settle(b)
	before = s.lists.Load()
	for b.Loop() {
		tools, err = s.list(ctx)
		if err != nil {
			b.Fatal(err)
		}
	}
	if got := s.lists.Load() - before; got < int64(b.N) {
		b.Fatalf("%d of %d listings reached the server", got, b.N)
	}
	sink = tools
}
