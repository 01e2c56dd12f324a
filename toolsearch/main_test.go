package toolsearch_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

// TestMain fails the package if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// everything reaches every tool.
var everything = toolreg.Access{Groups: []string{toolreg.AllGroups}}

// catalog returns the definitions of testdata/catalog.json.
func catalog(t testing.TB) []toolreg.Definition {
	t.Helper()
	b, err := os.ReadFile("testdata/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	var defs []toolreg.Definition
	if err := json.Unmarshal(b, &defs); err != nil {
		t.Fatal(err)
	}
	return defs
}

// echo is a handler that answers the tool's name.
func echo(name string) toolreg.Handler {
	return func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		return `{"tool":"` + name + `"}`, nil
	}
}

// tool returns a registrable tool named name with a description and string
// parameters.
func tool(name, description string, params ...string) toolreg.RegisteredTool {
	props := map[string]any{}
	for _, p := range params {
		props[p] = map[string]any{"type": "string", "description": "the " + p}
	}
	return toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name: name, Description: description,
			Parameters: toolreg.Parameters{Properties: props},
		}},
		Handler: echo(name),
	}
}

// catalogRegistry registers every tool of the catalog; groups, when not
// nil, gives some of them groups.
func catalogRegistry(t testing.TB, groups func(name string) []string) *toolreg.Registry {
	t.Helper()
	reg := toolreg.New()
	for _, d := range catalog(t) {
		rt := toolreg.RegisteredTool{Definition: d, Handler: echo(d.Function.Name)}
		if groups != nil {
			rt.Groups = groups(d.Function.Name)
		}
		if _, err := reg.Register(rt, "catalog"); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// names returns the names of ms.
func names(ms []toolsearch.Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
