// Command quickstart shows toolreg end to end, with no network and no model:
// two plugins register tools, a guard decides who may run what, and a
// scripted "model" makes the tool calls a real one might make, good and bad.
// Every call goes through the registry, and the transcript shows exactly what
// the model would read back.
//
// Run it from the repository root:
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/toolreg/toolreg"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run builds the registry, plays the scripted conversation and writes the
// transcript to w. It removes the folder it creates before returning.
func run(w io.Writer) error {
	dir, err := os.MkdirTemp("", "toolreg-quickstart-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	folder, err := openFolder(dir)
	if err != nil {
		return err
	}
	defer folder.Close()

	// toolreg.New() logs nothing by default. Pass
	// toolreg.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))) to see
	// refusals, restricted executions and recovered panics (with stacks).
	reg := toolreg.New()
	if err := registerBasics(reg.Scope("basics"), folder); err != nil {
		return err
	}
	if err := registerWeb(reg.Scope("web")); err != nil {
		return err
	}
	g := newGuard()
	reg.SetExecutionGuard(g.check)
	events := &eventLog{}
	unsubscribe := reg.Subscribe(events.record)
	defer unsubscribe()

	p := &printer{w: w}
	p.printf("toolreg quickstart: a scripted model calls tools through the registry.\n")
	showCatalog(p, reg)
	showOffer(p, reg)
	converse(context.Background(), p, reg, g)
	events.show(p)
	return p.err
}

// ---------------------------------------------------------------------------
// Plugin "basics": arithmetic and a small folder of files.

// folder is the only place the file tools may touch. os.Root refuses any
// path that leaves it, even through symbolic links.
type folder struct{ *os.Root }

// openFolder fills dir with two files and opens it as the tools' folder.
func openFolder(dir string) (*folder, error) {
	files := map[string]string{
		"notes.txt": "Buy milk. Water the plants.",
		"draft.txt": "An old draft nobody needs.",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return nil, err
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &folder{root}, nil
}

// local returns the path argument of a file tool, or an error the model can
// act on when it names something outside the folder.
func local(args map[string]any) (string, error) {
	path, _ := args["path"].(string)
	if !filepath.IsLocal(path) {
		return "", fmt.Errorf("path %q is outside the folder this tool may use; give a relative path like \"notes.txt\"", path)
	}
	return path, nil
}

// pathParams is the argument schema of the file tools: one relative path.
func pathParams() toolreg.Parameters {
	return toolreg.Parameters{
		Properties: map[string]any{
			"path": map[string]any{"type": "string", "description": "File name, relative to the folder."},
		},
		Required:             []string{"path"},
		AdditionalProperties: toolreg.Bool(false),
	}
}

// registerBasics registers the "basics" plugin: add (safe, anyone),
// read_file (sensitive: restricted) and delete_file (dangerous: restricted,
// and a human confirms once per session).
func registerBasics(s *toolreg.Scope, f *folder) error {
	tools := []toolreg.RegisteredTool{{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "add",
			Description: "Add two numbers and return the sum.",
			Parameters: toolreg.Parameters{
				Properties: map[string]any{
					"a": map[string]any{"type": "number"},
					"b": map[string]any{"type": "number"},
				},
				Required:             []string{"a", "b"},
				AdditionalProperties: toolreg.Bool(false),
			},
		}},
		Risk:    toolreg.RiskSafe,
		Handler: add,
	}, {
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "read_file",
			Description: "Read a text file from the user's notes folder.",
			Parameters:  pathParams(),
		}},
		Risk: toolreg.RiskSensitive,
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			path, err := local(args)
			if err != nil {
				return "", err
			}
			b, err := f.ReadFile(path)
			return string(b), err
		},
	}, {
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "delete_file",
			Description: "Delete a file from the user's notes folder.",
			Parameters:  pathParams(),
		}},
		Risk: toolreg.RiskDangerous,
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			path, err := local(args)
			if err != nil {
				return "", err
			}
			if err := f.Remove(path); err != nil {
				return "", err
			}
			return "deleted " + path, nil
		},
	}}
	for _, t := range tools {
		if _, err := s.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// add is the handler of the add tool. The registry has checked that a and b
// are present, but it checks their types only for Strict tools (or with
// toolreg.WithSchemaValidation), so add checks them itself.
func add(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
	a, okA := args["a"].(float64)
	b, okB := args["b"].(float64)
	if !okA || !okB {
		return "", errors.New("a and b must be numbers")
	}
	return fmt.Sprint(a + b), nil
}

// ---------------------------------------------------------------------------
// Plugin "web": a grouped search tool and a buggy tool.

// registerWeb registers the "web" plugin: the group "web" with web_search in
// it, and flaky_tool, which has no group and panics.
func registerWeb(s *toolreg.Scope) error {
	if _, err := s.RegisterGroup(toolreg.GroupInfo{
		Name:        "web",
		Label:       "Web search",
		Description: "Search the web (canned results in this example).",
	}); err != nil {
		return err
	}
	_, err := s.WithGroups("web").Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "web_search",
			Description: "Search the web and return the top results.",
			Parameters: toolreg.Parameters{
				Properties:           map[string]any{"query": map[string]any{"type": "string"}},
				Required:             []string{"query"},
				AdditionalProperties: toolreg.Bool(false),
			},
		}},
		Risk: toolreg.RiskSafe,
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			results := []map[string]string{
				{"title": "Go by Example", "url": "https://gobyexample.com"},
				{"title": "The Go Programming Language", "url": "https://go.dev"},
			}
			b, err := json.Marshal(map[string]any{"query": args["query"], "results": results})
			return string(b), err
		},
	})
	if err != nil {
		return err
	}
	_, err = s.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "flaky_tool",
			Description: "A deliberately buggy tool: it always panics.",
		}},
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			var m map[string]int
			//lint:ignore SA5000 the bug is the point: this tool demonstrates a contained panic
			m["boom"]++ // assignment to a nil map: a panic, as a real bug would cause
			return "unreachable", nil
		},
	})
	return err
}

// ---------------------------------------------------------------------------
// The guard: who may run what, and when a human must confirm.

// guard allows public tools to everyone and restricted ones to alice only.
// A tool that needs confirmation is refused with [toolreg.NeedConfirmation]
// until a human confirms it for the session.
type guard struct {
	mu        sync.Mutex
	confirmed map[string]bool // session + "/" + tool
}

func newGuard() *guard { return &guard{confirmed: map[string]bool{}} }

// check is the registry's [toolreg.ExecutionGuard]. The error text is what
// the model reads.
func (g *guard) check(_ context.Context, req toolreg.GuardRequest) error {
	if req.Visibility == toolreg.VisibilityRestricted && req.UserID != "alice" {
		return fmt.Errorf("user %q may not run %q: it is restricted to the owner", req.UserID, req.Name)
	}
	if req.Confirm == toolreg.ConfirmNone || req.SkipConfirm {
		return nil
	}
	g.mu.Lock()
	ok := req.Confirm == toolreg.ConfirmSession && g.confirmed[req.SessionID+"/"+req.Name]
	g.mu.Unlock()
	if !ok {
		return toolreg.NeedConfirmation(fmt.Sprintf(
			"the user must approve %q in this session first; tell them and wait", req.Name))
	}
	return nil
}

// confirm records that a human approved tool for session. A real host would
// do this when the user clicks "Allow" in its interface.
func (g *guard) confirm(session, tool string) {
	g.mu.Lock()
	g.confirmed[session+"/"+tool] = true
	g.mu.Unlock()
}

// ---------------------------------------------------------------------------
// The conversation.

// The callers of the scripted conversation. Each carries the Access its
// listing used, so the registry refuses grouped tools outside it just as it
// hides them.
var (
	alice      = toolreg.CallContext{SessionID: "s-alice", UserID: "alice", Platform: "cli"}
	bob        = toolreg.CallContext{SessionID: "s-bob", UserID: "bob", Platform: "chat"}
	aliceOnWeb = toolreg.CallContext{SessionID: "s-alice-web", UserID: "alice", Platform: "web", Access: toolreg.Access{Groups: []string{"web"}}}
)

// converse plays the model's tool calls in order and prints each with what
// the model reads back.
func converse(ctx context.Context, p *printer, reg *toolreg.Registry, g *guard) {
	c := &conversation{p: p, reg: reg}

	c.step("A good call: the model adds two numbers.")
	c.call(ctx, alice, "add", `{"a":2,"b":3}`)

	c.step("A hallucinated name: there is no read_fil. The answer suggests the real tool.")
	c.call(ctx, alice, "read_fil", `{"path":"notes.txt"}`)

	c.step("Bad arguments: b is missing. Nothing runs; the model learns what to fix.")
	c.call(ctx, alice, "add", `{"a":2}`)

	c.step("Bad arguments: the JSON is cut off. It is never silently read as {}.")
	c.call(ctx, alice, "add", `{"a":2,"b":`)

	c.step("A denied call: read_file is restricted, and bob is not alice.")
	c.call(ctx, bob, "read_file", `{"path":"notes.txt"}`)

	c.step("The same call by alice is allowed.")
	c.call(ctx, alice, "read_file", `{"path":"notes.txt"}`)

	c.step("The handler refuses a path outside its folder: a tool error.")
	c.call(ctx, alice, "read_file", `{"path":"../../etc/passwd"}`)

	c.step("A dangerous tool: the guard asks for a human's confirmation first.")
	c.call(ctx, alice, "delete_file", `{"path":"draft.txt"}`)
	c.note("The host shows the request; alice clicks \"Allow for this session\".")
	g.confirm(alice.SessionID, "delete_file")
	c.note("The model calls again, and now the tool runs.")
	c.call(ctx, alice, "delete_file", `{"path":"draft.txt"}`)

	c.step("A grouped tool outside the session's groups reads like an unknown name.")
	c.call(ctx, alice, "web_search", `{"query":"golang"}`)

	c.step("In a session that enables the group \"web\", the same call works.")
	c.call(ctx, aliceOnWeb, "web_search", `{"query":"golang"}`)

	c.step("A buggy tool panics. The registry recovers; the model reads code \"panic\".")
	c.call(ctx, alice, "flaky_tool", `{}`)
}

// conversation numbers the steps and prints the calls.
type conversation struct {
	p   *printer
	reg *toolreg.Registry
	n   int
}

// step starts a numbered case with a one-line explanation.
func (c *conversation) step(explain string) {
	c.n++
	c.p.printf("\n%2d. %s\n", c.n, explain)
}

// note prints what happens outside the registry (the human, the host).
func (c *conversation) note(text string) {
	c.p.printf("    (%s)\n", text)
}

// call runs one tool call as the model sent it: a name and the raw
// "arguments" string.
func (c *conversation) call(ctx context.Context, who toolreg.CallContext, name, args string) {
	c.p.printf("    model → %s %s   [user %s, session %s]\n", name, args, who.UserID, who.SessionID)
	result := c.reg.ExecuteJSON(ctx, name, args, who)
	c.p.printf("    tool  ← %s\n", result)
}

// ---------------------------------------------------------------------------
// What the registry holds and offers.

// showCatalog lists every registered tool with its resolved policy, and the
// groups, as an administrator would see them.
func showCatalog(p *printer, reg *toolreg.Registry) {
	p.printf("\nRegistered tools (the policy is resolved from each tool's risk):\n")
	tw := tabwriter.NewWriter(p, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tPLUGIN\tRISK\tVISIBILITY\tCONFIRM\tGROUPS")
	for _, t := range reg.All() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.PluginName,
			orDash(string(t.Risk)), t.Visibility, orDash(string(t.Confirm)), orDash(strings.Join(t.Groups, ",")))
	}
	tw.Flush()
	p.printf("Groups:\n")
	for _, g := range reg.Groups() {
		p.printf("  %s (%s, plugin %s): %s\n", g.Name, g.Label, g.PluginName, g.Description)
	}
}

// showOffer prints what the model is offered in a session with no groups
// enabled, and one definition in the wire format.
func showOffer(p *printer, reg *toolreg.Registry) {
	defs := reg.Definitions(toolreg.Access{})
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Function.Name
	}
	p.printf("\nA session with no groups enabled offers the model %d tools: %s\n", len(defs), strings.Join(names, ", "))
	p.printf("(web_search is in group \"web\", which this session does not enable.)\n")
	for _, d := range defs {
		if d.Function.Name == "add" {
			b, _ := json.MarshalIndent(d, "  ", "  ") // a Definition always marshals
			p.printf("\nThe definition of add, as sent in the request's \"tools\" array:\n  %s\n", b)
		}
	}
	p.printf("\nThe model's tool calls. \"model →\" is the call as the model sent it,\n")
	p.printf("\"tool ←\" is exactly what the registry returns to the model.\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ---------------------------------------------------------------------------
// Events.

// eventLog keeps the "end" event of every call. The registry may call a
// subscriber from many goroutines at once, hence the mutex.
type eventLog struct {
	mu     sync.Mutex
	events int
	ends   []toolreg.ExecuteEvent
}

// record is the subscriber passed to [toolreg.Registry.Subscribe].
func (l *eventLog) record(ev toolreg.ExecuteEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events++
	if ev.Phase == toolreg.PhaseEnd {
		l.ends = append(l.ends, ev)
	}
}

// show prints one line per call, as an audit log or a metrics exporter
// would see it. (Each event also carries the call's Duration.)
func (l *eventLog) show(p *printer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p.printf("\nThe event subscriber saw %d events, a start and an end for each of %d calls:\n", l.events, len(l.ends))
	tw := tabwriter.NewWriter(p, 0, 0, 2, ' ', 0)
	for _, ev := range l.ends {
		code := ev.Code
		if code == "" {
			code = "ok"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", ev.CallID, ev.ToolName, orDash(ev.PluginName), code)
	}
	tw.Flush()
}

// ---------------------------------------------------------------------------

// printer writes the transcript and keeps the first write error, so that the
// printing code stays simple and run can still report a failed write.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.w.Write(b)
	p.err = err
	return n, err
}

func (p *printer) printf(format string, args ...any) {
	fmt.Fprintf(p, format, args...)
}
