package wire_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/wire"
)

// vendorSchema is a strict schema with vendor keywords everywhere a strict
// schema can hold one: a property, a property whose name starts with "x-",
// both branches of the nullable pattern, a $defs entry reached through
// items, and the $defs entry itself. Its maximum is beyond float64.
const vendorSchema = `{"type":"object",
	"properties":{
		"token":{"type":"string","x-sensitive":true},
		"x-id":{"type":"string","x-sensitive":true,"x-note":"a property name, not a keyword"},
		"note":{"anyOf":[{"type":"string","x-sensitive":true},{"type":"null","x-why":"optional"}]},
		"creds":{"type":"array","items":{"$ref":"#/$defs/Cred"}},
		"limit":{"type":"integer","maximum":9007199254740993}},
	"required":["token","x-id","note","creds","limit"],
	"additionalProperties":false,
	"$defs":{"Cred":{"type":"object","x-note":"internal",
		"properties":{"secret":{"type":"string","x-sensitive":true}},
		"required":["secret"],"additionalProperties":false}}}`

// strippedSchema is vendorSchema as a provider's strict mode gets it.
const strippedSchema = `{"type":"object",
	"properties":{
		"token":{"type":"string"},
		"x-id":{"type":"string"},
		"note":{"anyOf":[{"type":"string"},{"type":"null"}]},
		"creds":{"type":"array","items":{"$ref":"#/$defs/Cred"}},
		"limit":{"type":"integer","maximum":9007199254740993}},
	"required":["token","x-id","note","creds","limit"],
	"additionalProperties":false,
	"$defs":{"Cred":{"type":"object",
		"properties":{"secret":{"type":"string"}},
		"required":["secret"],"additionalProperties":false}}}`

// vendorTool registers vendorSchema as tool name, strict or not.
func vendorTool(t *testing.T, name string, strict bool) toolreg.RegisteredTool {
	t.Helper()
	d := toolreg.Definition{Function: toolreg.Function{Name: name, Description: "Sign in.", Strict: strict}}
	dec := json.NewDecoder(strings.NewReader(vendorSchema))
	dec.UseNumber() // the maximum keeps its digits
	require.NoError(t, dec.Decode(&d.Function.Parameters))
	return toolreg.RegisteredTool{Definition: d, Handler: tool(name, "", nil).Handler}
}

// TestStrictToolsAreSentWithoutVendorKeywords checks that every provider
// format sends a strict tool's schema without its vendor keywords, at every
// depth, keeping property names, exact numbers and everything else; that a
// tool that is not strict is sent as registered; and that the registry's
// own definitions, which its redaction reads, are left as they were.
func TestStrictToolsAreSentWithoutVendorKeywords(t *testing.T) {
	reg := registry(t, vendorTool(t, "sign_in", true), vendorTool(t, "sign_in_loose", false))
	a := wire.New(reg)
	before := string(reg.DefinitionsJSON(toolreg.Access{}))

	chat, err := a.ChatTools(toolreg.Access{})
	require.NoError(t, err)
	resp, err := a.ResponsesTools(toolreg.Access{})
	require.NoError(t, err)
	anth, err := a.AnthropicTools(toolreg.Access{})
	require.NoError(t, err)
	require.Len(t, chat, 2)
	require.Len(t, resp, 2)
	require.Len(t, anth, 2)

	for _, tc := range []struct {
		format        string
		strict, loose json.RawMessage
	}{
		{"chat", json.RawMessage(mustJSON(t, chat[0].Function.Parameters)), json.RawMessage(mustJSON(t, chat[1].Function.Parameters))},
		{"responses", resp[0].Parameters, resp[1].Parameters},
		{"anthropic", anth[0].InputSchema, anth[1].InputSchema},
	} {
		t.Run(tc.format, func(t *testing.T) {
			assert.JSONEq(t, strippedSchema, string(tc.strict))
			assert.NotContains(t, string(tc.strict), `"x-sensitive"`)
			assert.Contains(t, string(tc.strict), `9007199254740993`, "the maximum keeps its exact digits")
			assert.JSONEq(t, vendorSchema, string(tc.loose), "a tool that is not strict is sent as registered")
		})
	}
	assert.Equal(t, before, string(reg.DefinitionsJSON(toolreg.Access{})), "the registry's definitions are unchanged")
	assert.Equal(t, 8, strings.Count(before, `"x-sensitive":true`), "both tools keep their vendor keywords in the registry")
	defs := reg.Definitions(toolreg.Access{})
	assert.Equal(t, true, defs[0].Function.Parameters.Properties["token"].(map[string]any)["x-sensitive"],
		"stripping copied what it changed")
}
