package bench

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolreg/toolreg"
)

// These tests hold the benchmarks to what they claim: every side serves the
// same catalog and answers the same call with the handler's answer.

func TestCatalogNamesAreUniqueAndValid(t *testing.T) {
	for _, n := range []int{catalogSize, 100_000} {
		seen := make(map[string]bool, n)
		for i := range n {
			name := toolName(i)
			if seen[name] {
				t.Fatalf("toolName(%d) = %q repeats an earlier name", i, name)
			}
			seen[name] = true
		}
		if seen[unknownName] {
			t.Fatalf("the unknown name %q is in the %d-tool catalog", unknownName, n)
		}
	}
}

func TestVictimPluginOwnsAThousandScatteredTools(t *testing.T) {
	for _, n := range []int{10_000, 100_000} {
		var owned []int
		for i := range n {
			if pluginOf(i, n) == victimPlugin {
				owned = append(owned, i)
			}
		}
		if len(owned) != victimCount {
			t.Errorf("in %d tools the plugin owns %d, want %d", n, len(owned), victimCount)
		}
		if len(owned) > 1 && owned[1]-owned[0] != n/victimCount {
			t.Errorf("in %d tools the plugin's tools are %d apart, want %d", n, owned[1]-owned[0], n/victimCount)
		}
	}
	if n := catalogSize; slices.ContainsFunc([]int{0, 1, n - 1}, func(i int) bool { return pluginOf(i, n) != catalogPlugin }) {
		t.Error("the 1,000-tool catalog has tools outside its plugin")
	}
}

func TestShuffledIsAFixedPermutation(t *testing.T) {
	a, b := shuffled(catalogSize), shuffled(catalogSize)
	if !slices.Equal(a, b) {
		t.Fatal("two shuffles of the same size differ")
	}
	sorted := slices.Sorted(slices.Values(a))
	want := make([]string, catalogSize)
	for i := range want {
		want[i] = toolName(i)
	}
	slices.Sort(want)
	if !slices.Equal(sorted, want) {
		t.Fatal("the shuffle is not a permutation of the names")
	}
	if a[0] == toolName(0) && a[1] == toolName(1) {
		t.Fatal("the shuffle left the order as it was")
	}
}

func TestEverySideAnswersTheSameCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := newRegistry(t, catalogSize)
	full := newRegistry(t, catalogSize, toolreg.WithSchemaValidation())
	mcpgo := newMCPGoServer(catalogSize)
	gosdk := newGoSDKSession(t, catalogSize)
	for _, side := range []struct {
		name string
		call func() string
	}{
		{"the floor", func() string { return floorCall(ctx, newFloor(catalogSize), callName, callArgs()) }},
		{"Execute", func() string { return reg.Execute(ctx, callName, callArgs(), toolreg.CallContext{}) }},
		{"Execute with full validation", func() string { return full.Execute(ctx, callName, callArgs(), toolreg.CallContext{}) }},
		{"ExecuteJSON", func() string { return reg.ExecuteJSON(ctx, callName, argsJSON, toolreg.CallContext{}) }},
		{"CallJSON", func() string { return reg.CallJSON(ctx, callName, argsJSON, toolreg.CallContext{}).Content }},
		{"mcp-go tools/call", func() string { return mcpgoText(mcpgo.HandleMessage(ctx, mcpgoCall)) }},
		{"go-sdk CallTool", func() string { return gosdkText(gosdk.call(ctx)) }},
	} {
		t.Run(side.name+" gives the handler's answer", func(t *testing.T) {
			if got := side.call(); got != answer {
				t.Errorf("got %q, want %q", got, answer)
			}
		})
	}
}

func TestEverySideListsTheSameTools(t *testing.T) {
	ctx := context.Background()
	want := make([]string, catalogSize)
	for i := range want {
		want[i] = toolName(i)
	}
	slices.Sort(want)

	var defs []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(newRegistry(t, catalogSize).DefinitionsJSON(toolreg.Access{}), &defs); err != nil {
		t.Fatal(err)
	}
	var toolreged []string
	for _, d := range defs {
		toolreged = append(toolreged, d.Function.Name)
	}

	body, err := json.Marshal(newMCPGoServer(catalogSize).HandleMessage(ctx, mcpgoList))
	if err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &listed); err != nil {
		t.Fatal(err)
	}
	var mcpgoNames []string
	for _, tool := range listed.Result.Tools {
		mcpgoNames = append(mcpgoNames, tool.Name)
	}

	tools, err := newGoSDKSession(t, catalogSize).list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var gosdkNames []string
	for _, tool := range tools {
		gosdkNames = append(gosdkNames, tool.Name)
	}

	for _, side := range []struct {
		name  string
		names []string
	}{
		{"DefinitionsJSON", toolreged},
		{"mcp-go tools/list", mcpgoNames},
		{"go-sdk ListTools", gosdkNames},
	} {
		t.Run(side.name+" lists the catalog", func(t *testing.T) {
			got := slices.Sorted(slices.Values(side.names))
			if !slices.Equal(got, want) {
				t.Errorf("listed %d names, want the %d of the catalog", len(got), len(want))
			}
		})
	}
	if len(defs) > 0 && !json.Valid(defs[0].Function.Parameters) {
		t.Error("DefinitionsJSON carries an invalid schema")
	}
}
