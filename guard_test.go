package toolreg_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// guardCounted registers a tool whose handler counts its runs.
func guardCounted(t *testing.T, r *toolreg.Registry, tool toolreg.RegisteredTool) *atomic.Int32 {
	t.Helper()
	var runs atomic.Int32
	tool.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		runs.Add(1)
		return "ran", nil
	}
	mustRegister(t, r, tool, "p")
	return &runs
}

func TestGuardReceivesResolvedPolicyAndCaller(t *testing.T) {
	tests := []struct {
		name string
		decl toolreg.PolicyDecl
		want toolreg.GuardRequest
	}{
		{"no declaration is public", toolreg.PolicyDecl{},
			toolreg.GuardRequest{Visibility: toolreg.VisibilityPublic}},
		{"dangerous expands to restricted with session confirmation", toolreg.PolicyDecl{Risk: toolreg.RiskDangerous},
			toolreg.GuardRequest{Visibility: toolreg.VisibilityRestricted, Confirm: toolreg.ConfirmSession, Risk: toolreg.RiskDangerous}},
		{"an explicit field wins over the risk", toolreg.PolicyDecl{Risk: toolreg.RiskDangerous, Confirm: toolreg.ConfirmAlways},
			toolreg.GuardRequest{Visibility: toolreg.VisibilityRestricted, Confirm: toolreg.ConfirmAlways, Risk: toolreg.RiskDangerous}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := toolreg.New()
			tool := newTool("rm", "ok", map[string]any{"path": str()}, "path")
			tool.Visibility, tool.Confirm, tool.Risk = tc.decl.Visibility, tc.decl.Confirm, tc.decl.Risk
			tool.Groups = []string{"files"}
			mustRegister(t, r, tool, "p")
			var got toolreg.GuardRequest
			r.SetExecutionGuard(func(_ context.Context, req toolreg.GuardRequest) error {
				got = req
				return nil
			})

			res := r.Execute(context.Background(), "rm", map[string]any{"path": "/tmp/x"},
				toolreg.CallContext{SessionID: "s1", UserID: "u1", SkipConfirm: true,
					Access: toolreg.Access{Groups: []string{"files"}}, Permissions: []string{"fs:read"}})
			require.Equal(t, "ok", res)
			want := tc.want
			want.Name, want.Type, want.SessionID, want.UserID, want.Platform = "rm", "tool", "s1", "u1", "unknown"
			want.Args = map[string]any{"path": "/tmp/x"}
			want.SkipConfirm = true
			want.PluginName, want.Groups, want.Permissions = "p", []string{"files"}, []string{"fs:read"}
			assert.Equal(t, want, got)
		})
	}
}

func TestGuardDecisions(t *testing.T) {
	tests := []struct {
		name     string
		guard    toolreg.ExecutionGuard
		wantCode string
		wantMsg  string
	}{
		{"nil allows", func(context.Context, toolreg.GuardRequest) error { return nil }, "", ""},
		{"an error denies with its text", func(context.Context, toolreg.GuardRequest) error { return errors.New("level 0 < 2") },
			toolreg.CodeDenied, "level 0 < 2"},
		{"wrapping ErrConfirmationRequired asks for confirmation", func(context.Context, toolreg.GuardRequest) error {
			return fmt.Errorf("confirm deleting the file: %w", toolreg.ErrConfirmationRequired)
		}, toolreg.CodeConfirmationRequired, "confirm deleting the file"},
		{"NeedConfirmation asks with its prompt alone", func(context.Context, toolreg.GuardRequest) error {
			return toolreg.NeedConfirmation("approve act?")
		}, toolreg.CodeConfirmationRequired, "approve act?"},
		{"a panic denies", func(context.Context, toolreg.GuardRequest) error { panic("guard bug") },
			toolreg.CodeDenied, "guard failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := toolreg.New()
			runs := guardCounted(t, r, newTool("act", "", nil))
			r.SetExecutionGuard(tc.guard)

			res := r.Execute(context.Background(), "act", nil, toolreg.CallContext{})
			if tc.wantCode == "" {
				assert.Equal(t, "ran", res)
				assert.EqualValues(t, 1, runs.Load())
				return
			}
			msg, code := failureOf(t, res)
			assert.Equal(t, tc.wantCode, code)
			assert.Contains(t, msg, tc.wantMsg)
			assert.NotContains(t, msg, "guard bug", "a panic value never reaches the model")
			assert.EqualValues(t, 0, runs.Load(), "the handler must not run")
		})
	}
}

func TestGuardSeesOnlyValidArguments(t *testing.T) {
	r := toolreg.New()
	guardCounted(t, r, newTool("act", "", map[string]any{"path": str()}, "path"))
	var guarded atomic.Int32
	r.SetExecutionGuard(func(context.Context, toolreg.GuardRequest) error {
		guarded.Add(1)
		return nil
	})

	_, code := failureOf(t, r.Execute(context.Background(), "act", nil, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeInvalidArguments, code)
	assert.EqualValues(t, 0, guarded.Load(), "a human is never asked about an invalid call")
}

func TestWithoutAGuard(t *testing.T) {
	tests := []struct {
		name     string
		opts     []toolreg.Option
		decl     toolreg.PolicyDecl
		wantCode string
	}{
		{"fail-open allows a dangerous tool", nil, toolreg.PolicyDecl{Risk: toolreg.RiskDangerous}, ""},
		{"fail-closed denies a restricted tool", []toolreg.Option{toolreg.WithFailClosed()},
			toolreg.PolicyDecl{Visibility: toolreg.VisibilityRestricted}, toolreg.CodeDenied},
		{"fail-closed denies a public tool that needs confirmation", []toolreg.Option{toolreg.WithFailClosed()},
			toolreg.PolicyDecl{Confirm: toolreg.ConfirmAlways}, toolreg.CodeDenied},
		{"fail-closed still allows a public tool", []toolreg.Option{toolreg.WithFailClosed()},
			toolreg.PolicyDecl{Risk: toolreg.RiskSafe}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := toolreg.New(tc.opts...)
			tool := newTool("act", "", nil)
			tool.Visibility, tool.Confirm, tool.Risk = tc.decl.Visibility, tc.decl.Confirm, tc.decl.Risk
			runs := guardCounted(t, r, tool)

			res := r.Execute(context.Background(), "act", nil, toolreg.CallContext{})
			if tc.wantCode == "" {
				assert.Equal(t, "ran", res)
				return
			}
			_, code := failureOf(t, res)
			assert.Equal(t, tc.wantCode, code)
			assert.EqualValues(t, 0, runs.Load())
		})
	}
}

func TestSetExecutionGuardNilRemovesTheGuard(t *testing.T) {
	r := toolreg.New()
	guardCounted(t, r, newTool("act", "", nil))
	r.SetExecutionGuard(func(context.Context, toolreg.GuardRequest) error { return errors.New("no") })
	r.SetExecutionGuard(nil)
	assert.Equal(t, "ran", r.Execute(context.Background(), "act", nil, toolreg.CallContext{}))
}

func TestContextCanceledWhileTheGuardWaits(t *testing.T) {
	r := toolreg.New()
	runs := guardCounted(t, r, newTool("act", "", nil))
	ctx, cancel := context.WithCancel(context.Background())
	r.SetExecutionGuard(func(context.Context, toolreg.GuardRequest) error {
		cancel() // the user walks away while the confirmation dialog is open
		return nil
	})

	_, code := failureOf(t, r.Execute(ctx, "act", nil, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeCanceled, code)
	assert.EqualValues(t, 0, runs.Load())
}

func TestNeedConfirmationWrapsTheSentinel(t *testing.T) {
	err := toolreg.NeedConfirmation("approve?")
	assert.ErrorIs(t, err, toolreg.ErrConfirmationRequired)
	assert.Equal(t, "approve?", err.Error(), "the model reads the prompt without a library prefix")
}
