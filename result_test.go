package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// TestCallReportsTheCodeBesideTheContent runs each case through Call and
// CallJSON, with handlers isolated (the default) and inline (the short path
// of the commonest call), and checks that the Result agrees with Execute.
func TestCallReportsTheCodeBesideTheContent(t *testing.T) {
	tests := []struct {
		name, tool, args, callID string
		wantCode                 string
	}{
		{"a success that looks like a failure is a success", "mimic", `{}`, "call_abc", ""},
		{"a handler error", "failing", `{}`, "c2", toolreg.CodeToolError},
		{"a panic", "panicking", `{}`, "c4", toolreg.CodePanic},
		{"an unknown name", "nope", `{}`, "c3", toolreg.CodeNotFound},
		{"bad JSON", "mimic", `{`, "", toolreg.CodeInvalidArguments},
	}
	for _, inline := range []bool{false, true} {
		var opts []toolreg.Option
		if inline {
			opts = append(opts, toolreg.WithInlineHandlers())
		}
		r := toolreg.New(opts...)
		// A handler whose success looks exactly like a registry failure.
		mustRegister(t, r, newTool("mimic", `{"error":"x","code":"denied"}`, nil), "p")
		failing := newTool("failing", "", nil)
		failing.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			return "", errors.New("disk full")
		}
		mustRegister(t, r, failing, "p")
		panicking := newTool("panicking", "", nil)
		panicking.Handler = func(context.Context, map[string]any, toolreg.CallContext) (string, error) { panic("boom") }
		mustRegister(t, r, panicking, "p")
		for _, tc := range tests {
			t.Run(fmt.Sprintf("inline=%v/%s", inline, tc.name), func(t *testing.T) {
				call := toolreg.CallContext{CallID: tc.callID}
				res := r.CallJSON(context.Background(), tc.tool, tc.args, call)
				checkCallResult(t, res, tc.tool, tc.callID, tc.wantCode, r.ExecuteJSON(context.Background(), tc.tool, tc.args, call))
				var args map[string]any
				if json.Unmarshal([]byte(tc.args), &args) == nil {
					res := r.Call(context.Background(), tc.tool, args, call)
					checkCallResult(t, res, tc.tool, tc.callID, tc.wantCode, r.Execute(context.Background(), tc.tool, args, call))
				}
			})
		}
	}
}

func checkCallResult(t *testing.T, res toolreg.Result, tool, callID, wantCode, executed string) {
	t.Helper()
	assert.Equal(t, wantCode, res.Code)
	assert.Equal(t, wantCode != "", res.IsError())
	assert.Equal(t, tool, res.Tool)
	assert.Equal(t, executed, res.Content)
	if callID != "" {
		assert.Equal(t, callID, res.CallID)
	} else {
		assert.Regexp(t, `^call_\d+$`, res.CallID, "the registry makes an id")
	}
	assert.Positive(t, int64(res.Duration))
}

func TestEventsCarryTheModelsCallID(t *testing.T) {
	r := toolreg.New()
	mustRegister(t, r, newTool("echo", "ok", nil), "p")
	var ids []string
	r.Subscribe(func(ev toolreg.ExecuteEvent) { ids = append(ids, ev.CallID) })
	res := r.Call(context.Background(), "echo", nil, toolreg.CallContext{CallID: "toolu_01"})
	assert.Equal(t, []string{"toolu_01", "toolu_01"}, ids)
	assert.Equal(t, "toolu_01", res.CallID)
}

func TestChainGuards(t *testing.T) {
	deny := func(reason string) toolreg.ExecutionGuard {
		return func(context.Context, toolreg.GuardRequest) error { return errors.New(reason) }
	}
	var asked []string
	allow := func(name string) toolreg.ExecutionGuard {
		return func(context.Context, toolreg.GuardRequest) error { asked = append(asked, name); return nil }
	}
	tests := []struct {
		name      string
		guards    []toolreg.ExecutionGuard
		wantErr   string
		wantAsked []string
	}{
		{"no guard allows", nil, "", nil},
		{"only nil guards allow", []toolreg.ExecutionGuard{nil, nil}, "", nil},
		{"all allow", []toolreg.ExecutionGuard{allow("a"), nil, allow("b")}, "", []string{"a", "b"}},
		{"the first refusal wins and stops the chain", []toolreg.ExecutionGuard{allow("a"), deny("first"), deny("second"), allow("c")}, "first", []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asked = nil
			err := toolreg.ChainGuards(tc.guards...)(context.Background(), toolreg.GuardRequest{})
			if tc.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.EqualError(t, err, tc.wantErr)
			}
			assert.Equal(t, tc.wantAsked, asked)
		})
	}
}
