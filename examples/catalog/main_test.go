package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalogExample(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	got := out.String()
	for _, want := range []string{
		"30 tools registered (3 reserved), 5 packs.",
		"Integrity of the product's catalog: ok",
		"== free-user: offered 16 tools",
		`call web_search      -> {"error":"tool \"web_search\" is not available: not in your plan: web","code":"not_available"}`,
		"== paid-user: offered 27 tools",
		"call generate_image  -> demo generate_image ran for paid-user with x",
		"== review-scenario: offered 7 tools",
		`call write_file      -> {"error":"unknown tool \"write_file\"; did you mean \"read_file\"?","code":"not_found"}`,
		`why not write_file?    permissions: tool "write_file" needs the permission "fs:write"; scenario: not in the scenario list`,
		`why not sql_query?     registry: reserved: declared without an executor`,
		`toolreg: plan "plan": tool "read_file" is in two capability groups, "files" and "web"`,
		`toolreg: permissions: tool "run_script" is named in Required but not registered`,
		`toolreg: whitelist "review-scenario": tool "read_files" is not registered`,
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "review-scenario with x\n   call write_file      -> demo", "the read-only scenario never writes")

	var again bytes.Buffer
	require.NoError(t, run(&again))
	assert.Equal(t, got, again.String(), "two runs print the same bytes")
	assert.Equal(t, 3, strings.Count(got, "why not sql_query?"))
}
