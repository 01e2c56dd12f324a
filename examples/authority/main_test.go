package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// session runs the program with pipes for stdin and stdout, answers each
// prompt with the next of answers, and returns the transcript and the
// prompts seen.
func session(t *testing.T, answers ...string) (transcript string, prompts []string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(context.Background(), inR, outW)
		outW.Close()
		done <- err
	}()
	var b strings.Builder
	lines := bufio.NewScanner(outR)
	for lines.Scan() {
		line := lines.Text()
		b.WriteString(line + "\n")
		if strings.HasPrefix(line, "? ") {
			prompts = append(prompts, line)
			if len(answers) == 0 {
				inW.Close() // the person walks away
				continue
			}
			if _, err := io.WriteString(inW, answers[0]+"\n"); err != nil {
				t.Fatal(err)
			}
			answers = answers[1:]
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(answers) > 0 {
		t.Errorf("%d answers were never asked for", len(answers))
	}
	return b.String(), prompts
}

func TestTerminalSession(t *testing.T) {
	out, prompts := session(t, "s", "y", "n", "y")

	// The person is asked four times, all for the owner: once for each
	// session-confirmed tool, and for each run of the always-confirmed one.
	if len(prompts) != 4 {
		t.Fatalf("asked %d times, want 4:\n%s", len(prompts), out)
	}
	for i, want := range []string{
		`? olivia wants to run delete_notes {"title":"draft"}; allow? [y]es, [n]o, [s]ession`,
		`? olivia wants to run run_shell {"command":"ls ~/notes"}; allow? [y]es, [n]o (asked every time)`,
		`? olivia wants to run run_shell {"command":"rm -r ~/notes"}; allow? [y]es, [n]o (asked every time)`,
		`? olivia wants to run send_email {"password":"[redacted]","to":"bob@example.com"}; allow? [y]es, [n]o, [s]ession`,
	} {
		if prompts[i] != want {
			t.Errorf("prompt %d is %q, want %q", i, prompts[i], want)
		}
	}
	// Each call, then the line the model reads.
	steps := []struct{ call, result string }{
		{`> sam calls read_notes {"title":"groceries"}`, `< read_notes ran for sam`},
		{`> sam calls delete_notes {"title":"groceries"}`, `< {"error":"authority: tool \"delete_notes\" needs authority level 2","code":"denied"}`},
		{`> olivia calls delete_notes {"title":"draft"}`, `< delete_notes ran for olivia`},
		{`> olivia calls delete_notes {"title":"old draft"}`, `< delete_notes ran for olivia`},
		{`> olivia calls run_shell {"command":"ls ~/notes"}`, `< run_shell ran for olivia`},
		{`> olivia calls run_shell {"command":"rm -r ~/notes"}`, `< {"error":"authority: tool \"run_shell\" was declined: the person said no","code":"denied"}`},
		{`> olivia calls format_disk {}`, `< {"error":"authority: tool \"format_disk\" is denied by policy","code":"denied"}`},
		{`> sam calls send_email {"password":"hunter2","to":"bob@example.com"}`, `< {"error":"authority: tool \"send_email\" needs authority level 1","code":"denied"}`},
		{`> olivia calls send_email {"password":"hunter2","to":"bob@example.com"}`, `< send_email ran for olivia`},
	}
	lines := strings.Split(out, "\n")
	at := 0
	for _, s := range steps {
		for at < len(lines) && lines[at] != s.call {
			at++
		}
		if at == len(lines) {
			t.Fatalf("missing or out of order: %s\n%s", s.call, out)
		}
		// The result is the first "< " line after the call; a prompt may
		// come between.
		got := ""
		for at++; at < len(lines) && got == ""; at++ {
			if strings.HasPrefix(lines[at], "< ") {
				got = lines[at]
			}
		}
		if got != s.result {
			t.Errorf("after %s\n got %s\nwant %s", s.call, got, s.result)
		}
	}
	for _, want := range []string{
		"olivia is offered: delete_notes, read_notes, run_shell, send_email\n",
		"sam is offered: read_notes\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestNoAnswerIsNo(t *testing.T) {
	out, prompts := session(t)
	// delete_notes twice (no grant was made), run_shell twice and
	// send_email, each answered by the end of input.
	if len(prompts) != 5 {
		t.Errorf("asked %d times, want 5:\n%s", len(prompts), out)
	}
	if strings.Contains(out, "delete_notes ran") || strings.Contains(out, "run_shell ran") || strings.Contains(out, "send_email ran") {
		t.Errorf("a call ran without a yes:\n%s", out)
	}
	if !strings.Contains(out, `was declined: nobody answered`) {
		t.Errorf("no denial for the missing answer:\n%s", out)
	}
}
