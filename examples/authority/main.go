// Command authority shows the authority package at a terminal: scripted
// calls from an owner and a stranger run through a registry, and you answer
// the confirmation prompts, y (yes), n (no) or s (yes for this session).
//
//	go run ./examples/authority
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

func main() {
	if err := run(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "authority example:", err)
		os.Exit(1)
	}
}

var (
	owner    = authority.Identity{Platform: "terminal", UserID: "olivia"}
	stranger = authority.Identity{Platform: "terminal", UserID: "sam"}
)

// step is one scripted call.
type step struct {
	who  authority.Identity
	tool string
	args map[string]any
}

var script = []step{
	{stranger, "read_notes", map[string]any{"title": "groceries"}},
	{stranger, "delete_notes", map[string]any{"title": "groceries"}},
	{owner, "delete_notes", map[string]any{"title": "draft"}},
	{owner, "delete_notes", map[string]any{"title": "old draft"}},
	{owner, "run_shell", map[string]any{"command": "ls ~/notes"}},
	{owner, "run_shell", map[string]any{"command": "rm -r ~/notes"}},
	{owner, "format_disk", map[string]any{}},
	{stranger, "send_email", map[string]any{"to": "bob@example.com", "password": "hunter2"}},
	{owner, "send_email", map[string]any{"to": "bob@example.com", "password": "hunter2"}},
}

// run plays the script, asking the person at in/out to confirm calls.
func run(ctx context.Context, in io.Reader, out io.Writer) error {
	term := &terminal{in: bufio.NewScanner(in), out: out}
	reg, err := newRegistry()
	if err != nil {
		return err
	}
	a, err := authority.New(
		authority.WithOwners(owner),
		authority.WithDeny("tool:format_*"),
		authority.WithConfirm("tool:run_shell", toolreg.ConfirmAlways),
		authority.WithConfirm("tool:send_email", toolreg.ConfirmSession),
		authority.WithConfirmer("terminal", term.confirm),
		authority.WithRegistry(reg), // the prompt hides arguments marked x-sensitive
	)
	if err != nil {
		return err
	}
	reg.SetExecutionGuard(a.Guard())

	for _, who := range []authority.Identity{owner, stranger} {
		layer, err := a.Layer(ctx, who, "session-1")
		if err != nil {
			return err
		}
		var names []string
		for _, s := range reg.Summaries(toolreg.Access{Layers: []toolreg.Layer{layer}}) {
			names = append(names, s.Name)
		}
		term.printf("%s is offered: %s\n", who.UserID, strings.Join(names, ", "))
	}
	for _, s := range script {
		args, _ := json.Marshal(s.args)
		term.printf("\n> %s calls %s %s\n", s.who.UserID, s.tool, args)
		res := reg.Call(ctx, s.tool, s.args, toolreg.CallContext{SessionID: "session-1", Platform: s.who.Platform, UserID: s.who.UserID})
		term.printf("< %s\n", res.Content)
	}
	return nil
}

// terminal asks the person at the keyboard.
type terminal struct {
	mu  sync.Mutex // one prompt at a time
	in  *bufio.Scanner
	out io.Writer
}

func (t *terminal) printf(format string, args ...any) { fmt.Fprintf(t.out, format, args...) }

// confirm prints the request and reads y, n or s. Anything else, or the end
// of input, is no.
func (t *terminal) confirm(_ context.Context, r authority.ConfirmRequest) (authority.Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	args, _ := json.Marshal(r.Args)
	choices := "[y]es, [n]o, [s]ession"
	if r.Confirm == toolreg.ConfirmAlways {
		choices = "[y]es, [n]o (asked every time)"
	}
	t.printf("? %s wants to run %s %s; allow? %s\n", r.Identity.UserID, r.Tool, args, choices)
	if !t.in.Scan() {
		return authority.Answer{Decision: authority.Deny, Reason: "nobody answered"}, nil
	}
	switch strings.ToLower(strings.TrimSpace(t.in.Text())) {
	case "y", "yes":
		return authority.Answer{Decision: authority.Allow}, nil
	case "s", "session":
		return authority.Answer{Decision: authority.Allow, Grant: authority.GrantSession}, nil
	}
	return authority.Answer{Decision: authority.Deny, Reason: "the person said no"}, nil
}

// newRegistry registers the example's tools.
func newRegistry() (*toolreg.Registry, error) {
	reg := toolreg.New()
	tools := []struct {
		name, description string
		risk              toolreg.Risk
		props             map[string]any
	}{
		{"read_notes", "Read a note.", toolreg.RiskSafe, map[string]any{"title": str(false)}},
		{"send_email", "Send an email.", toolreg.RiskSensitive, map[string]any{"to": str(false), "password": str(true)}},
		{"delete_notes", "Delete a note.", toolreg.RiskDangerous, map[string]any{"title": str(false)}},
		{"run_shell", "Run a shell command.", toolreg.RiskDangerous, map[string]any{"command": str(false)}},
		{"format_disk", "Format the disk.", toolreg.RiskDangerous, nil},
	}
	for _, tl := range tools {
		_, err := reg.Register(toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: tl.name, Description: tl.description,
				Parameters: toolreg.Parameters{Properties: tl.props}}},
			Risk: tl.risk,
			Handler: func(_ context.Context, args map[string]any, call toolreg.CallContext) (string, error) {
				return fmt.Sprintf("%s ran for %s", tl.name, call.UserID), nil
			},
		}, "example")
		if err != nil {
			return nil, err
		}
	}
	return reg, nil
}

func str(sensitive bool) map[string]any {
	s := map[string]any{"type": "string"}
	if sensitive {
		s["x-sensitive"] = true
	}
	return s
}
