package toolreg_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolreg/toolreg"
)

// TestMain fails the package if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newTool returns a tool named name whose handler answers result. props maps
// argument names to JSON Schemas; required lists the required ones.
func newTool(name, result string, props map[string]any, required ...string) toolreg.RegisteredTool {
	return toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        name,
			Description: "test tool " + name,
			Parameters:  toolreg.Parameters{Properties: props, Required: required},
		}},
		Handler: answer(result),
	}
}

// answer is a handler that returns result.
func answer(result string) toolreg.Handler {
	return func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		return result, nil
	}
}

// str is the JSON Schema of a string argument.
func str() map[string]any { return map[string]any{"type": "string"} }

// mustRegister registers t for plugin and fails the test on error.
func mustRegister(t testing.TB, r *toolreg.Registry, tool toolreg.RegisteredTool, plugin string) func() {
	t.Helper()
	unregister, err := r.Register(tool, plugin)
	require.NoError(t, err)
	return unregister
}

// failureOf decodes a failure result; it fails the test when result is not
// exactly {"error":…,"code":…}.
func failureOf(t testing.TB, result string) (msg, code string) {
	t.Helper()
	var f map[string]string
	require.NoError(t, json.Unmarshal([]byte(result), &f), "result %q is not a failure object", result)
	require.Len(t, f, 2, "failure %q should have exactly error and code", result)
	require.Contains(t, f, "error")
	require.Contains(t, f, "code")
	return f["error"], f["code"]
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// mustGroup registers g for plugin and fails the test on error.
func mustGroup(t testing.TB, r *toolreg.Registry, g toolreg.GroupInfo, plugin string) func() {
	t.Helper()
	unregister, err := r.RegisterGroup(g, plugin)
	require.NoError(t, err)
	return unregister
}
