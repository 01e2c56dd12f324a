package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// transcript runs the example with its temporary folder under a fresh
// directory, checks that run removed the folder, and returns the output.
func transcript(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("run: %v", err)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("run left %d entries in the temporary directory, first %q", len(left), left[0].Name())
	}
	if strings.Contains(out.String(), tmp) || strings.Contains(out.String(), "toolreg-quickstart-") {
		t.Error("the transcript shows the temporary folder's path")
	}
	return out.String()
}

// TestTranscript checks that every case appears, in order, with the result
// the model should read.
func TestTranscript(t *testing.T) {
	out := transcript(t)
	// Each case: the call as the model sent it, then the start of the
	// result line and something the result must contain.
	cases := []struct{ call, result string }{
		{`add {"a":2,"b":3}   [user alice`, "tool  ← 5\n"},
		{`read_fil {"path":"notes.txt"}`, `did you mean \"read_file\"?","code":"not_found"}`},
		{`add {"a":2}   [`, `missing required argument \"b\"","code":"invalid_arguments"}`},
		{`add {"a":2,"b":   [`, `not valid JSON`},
		{`read_file {"path":"notes.txt"}   [user bob`, `"code":"denied"}`},
		{`read_file {"path":"notes.txt"}   [user alice`, "tool  ← Buy milk. Water the plants.\n"},
		{`read_file {"path":"../../etc/passwd"}`, `"code":"tool_error"}`},
		{`delete_file {"path":"draft.txt"}`, `"code":"confirmation_required"}`},
		{`alice clicks "Allow for this session"`, ""},
		{`delete_file {"path":"draft.txt"}`, "tool  ← deleted draft.txt\n"},
		{`web_search {"query":"golang"}   [user alice, session s-alice]`, `{"error":"unknown tool \"web_search\"","code":"not_found"}`},
		{`web_search {"query":"golang"}   [user alice, session s-alice-web]`, `tool  ← {"query":"golang","results":[`},
		{`flaky_tool {}`, `"code":"panic"}`},
	}
	rest := out
	for _, c := range cases {
		i := strings.Index(rest, c.call)
		if i < 0 {
			t.Fatalf("call %q not found (in order) in the transcript:\n%s", c.call, out)
		}
		rest = rest[i+len(c.call):]
		if c.result == "" {
			continue
		}
		// The result is on the line after the call.
		_, after, _ := strings.Cut(rest, "\n")
		line, _, _ := strings.Cut(after, "\n")
		if !strings.Contains(line+"\n", c.result) {
			t.Errorf("after call %q the result is\n\t%s\nwant it to contain\n\t%s", c.call, line, c.result)
		}
	}

	for _, want := range []string{
		"offers the model 4 tools: add, delete_file, flaky_tool, read_file\n",
		`"name": "add"`,
		"24 events, a start and an end for each of 12 calls",
		"call_12  flaky_tool   web     panic",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
}

// TestDeterministic checks that two runs print the same bytes.
func TestDeterministic(t *testing.T) {
	if a, b := transcript(t), transcript(t); a != b {
		t.Errorf("two runs differ:\n%s\n---\n%s", a, b)
	}
}
