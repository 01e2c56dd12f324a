package mcpclient

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolreg/toolreg"
)

// FuzzImport feeds the import path a remote tool's name and input schema as
// a hostile server could send them. Whatever the input, conversion does not
// panic, a converted tool has a valid registry name, and the registry either
// takes it or refuses it for its schema, never for its name.
func FuzzImport(f *testing.F) {
	f.Add("ok", []byte(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`))
	f.Add("files.read", []byte(`{"definitions":{"A":{}},"properties":{"a":{"$ref":"#/definitions/A"}}}`))
	f.Add("bad\xff\xfename", []byte(`{"type":"object","additionalProperties":{"type":"string"}}`))
	f.Add("", []byte(`null`))
	f.Add("deep", []byte(`{"properties":{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}`))
	f.Add("req", []byte(`{"type":"object","required":["x"]}`))
	f.Fuzz(func(t *testing.T, name string, schema []byte) {
		var input any
		if json.Unmarshal(schema, &input) != nil {
			input = json.RawMessage(`{}`) // the SDK client only hands over valid JSON
		}
		c := &Client{cfg: defaults()}
		c.cfg.maxToolBytes = 1 << 20
		cand, err := c.convert(&mcp.Tool{Name: name, InputSchema: input})
		if err != nil {
			if !errors.Is(err, ErrNoName) && !errors.Is(err, ErrUnsupportedSchema) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		got := cand.tool.Definition.Function.Name
		if !validName(got) {
			t.Fatalf("registry name %q from %q is not valid", got, name)
		}
		again, _ := c.convert(&mcp.Tool{Name: name, InputSchema: input})
		if again.tool.Definition.Function.Name != got || again.fingerprint != cand.fingerprint {
			t.Fatalf("conversion of %q is not stable", name)
		}
		_, err = toolreg.New(toolreg.WithSchemaValidation()).Register(cand.tool, "fuzz")
		if err != nil && (errors.Is(err, toolreg.ErrInvalidName) || !errors.Is(err, toolreg.ErrInvalidSchema)) {
			t.Fatalf("the registry refused %q for a reason other than its schema: %v", got, err)
		}
	})
}
