package main

import (
	"bytes"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const catalog = "../../toolsearch/testdata/catalog.json"

func transcript(t *testing.T) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(&out, catalog); err != nil {
		t.Fatalf("run: %v", err)
	}
	return out.String()
}

// TestTranscript checks that the scripted model finds and calls its tools,
// that the offered list changes only when a search discovers a new tool, and
// that the hidden group stays hidden.
func TestTranscript(t *testing.T) {
	out := transcript(t)
	for _, want := range []string{
		"registry: 420 catalog tools and search_tools; this session may reach 400 of them",
		"turn 1 offers 2 tools (",
		"): get_current_time, search_tools\n",
		"tool  ← 3 definitions: github_create_issue, ",
		`tool  ← {"args":{"owner":"acme","repo":"web","title":"Login button does nothing"},"ok":true,"tool":"github_create_issue"}`,
		"tool  ← 2 definitions: slack_post_message, ", // found despite the typos
		`"ok":true,"tool":"slack_post_message"}`,
		`model → search_tools {"query":"refund a payment","limit":3}` + "\n" + `tool  ← {"tools":[],"note":`,
		`"ok":true,"tool":"get_current_time"}`,
		"tool  ← 1 definitions: calendar_create_event\n",
		"discovered in session-1: calendar_create_event, ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "stripe_") || strings.Contains(out, "paypal_") {
		t.Errorf("a tool of the payments group, which this session may not reach, appears:\n%s", out)
	}
	// A turn is byte-identical to the one before exactly when the step
	// before it discovered nothing new.
	for turn, identical := range map[string]bool{
		"turn 2 ": false, "turn 3 ": true, "turn 4 ": false, "turn 5 ": true,
		"turn 6 ": true, "turn 7 ": true, "turn 8 ": true, "turn 9 ": false,
	} {
		i := strings.Index(out, turn)
		if i < 0 {
			t.Fatalf("%q missing:\n%s", turn, out)
		}
		line, _, _ := strings.Cut(out[i:], "\n")
		if got := strings.Contains(line, "byte-identical"); got != identical {
			t.Errorf("%s: byte-identical %v, want %v", line, got, identical)
		}
	}
}

// TestDeterministic checks that two runs print the same bytes.
func TestDeterministic(t *testing.T) {
	if a, b := transcript(t), transcript(t); a != b {
		t.Errorf("two runs differ:\n%s\n---\n%s", a, b)
	}
}

func TestMissingCatalog(t *testing.T) {
	if err := run(&bytes.Buffer{}, "no/such/catalog.json"); err == nil {
		t.Error("want an error for a missing catalog")
	}
}
