package wire_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolreg/toolreg"
)

// TestMain fails the package if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// tool returns a registered tool named name, in groups, whose handler echoes
// its arguments' keys count; props maps argument names to schemas.
func tool(name, description string, props map[string]any, groups ...string) toolreg.RegisteredTool {
	return toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        name,
			Description: description,
			Parameters:  toolreg.Parameters{Properties: props},
		}},
		Groups:  groups,
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "ok " + name, nil },
	}
}

// registry returns a registry holding tools, registered for plugin "test".
func registry(t testing.TB, tools ...toolreg.RegisteredTool) *toolreg.Registry {
	t.Helper()
	reg := toolreg.New()
	for _, tl := range tools {
		_, err := reg.Register(tl, "test")
		require.NoError(t, err)
	}
	return reg
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
