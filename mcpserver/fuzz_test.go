package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolreg/toolreg"
)

// FuzzCall feeds tools/call what a client controls: the tool name and the
// raw arguments. Whatever they are, the call does not panic; a name the
// listing does not offer gets exactly the unknown-tool error, and any other
// answer is one text block flagged isError exactly when the registry's
// result has a code.
func FuzzCall(f *testing.F) {
	reg := toolreg.New()
	echo := func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		b, err := json.Marshal(args)
		return string(b), err
	}
	for _, rt := range []toolreg.RegisteredTool{
		{Definition: toolreg.Definition{Function: toolreg.Function{Name: "echo", Parameters: toolreg.Parameters{
			Properties: map[string]any{"s": map[string]any{"type": "string"}}, Required: []string{"s"},
		}}}, Handler: echo},
		{Definition: toolreg.Definition{Function: toolreg.Function{Name: "secret"}}, Handler: echo, Risk: toolreg.RiskSensitive},
		{Definition: toolreg.Definition{Function: toolreg.Function{Name: "grouped"}}, Handler: echo, Groups: []string{"g"}},
	} {
		if _, err := reg.Register(rt, "fuzz"); err != nil {
			f.Fatal(err)
		}
	}
	srv, err := New(reg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	f.Add("echo", []byte(`{"s":"x"}`))
	f.Add("echo", []byte(`null`))
	f.Add("echo", []byte(`{"s":1e400}`))
	f.Add("secret", []byte(`{}`))
	f.Add("grouped", []byte(``))
	f.Add("nope\xff", []byte(`[[[[[[[[[[`))
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(args)}}
		res, err := srv.call(t.Context(), req)
		if name != "echo" {
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || res != nil {
				t.Fatalf("%q: want the unknown-tool error, got %v, %v", name, res, err)
			}
			return
		}
		if err != nil || res == nil || len(res.Content) != 1 {
			t.Fatalf("echo: want one result block, got %v, %v", res, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		var failure struct{ Code string }
		isFailure := json.Unmarshal([]byte(text), &failure) == nil && failure.Code != ""
		if res.IsError != isFailure {
			t.Fatalf("echo %q: isError %v for %s", args, res.IsError, text)
		}
	})
}
