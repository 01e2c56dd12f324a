// Command search shows tool search end to end, with no network and no
// model: 420 tools from real MCP servers and agent products are registered,
// too many to offer on every turn, so the model is offered search_tools,
// finds what it needs and calls it. A scripted "model" makes the calls a
// real one might make, and the transcript shows what it is offered on each
// turn and what it reads back.
//
// Run it from the repository root:
//
//	go run ./examples/search
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

func main() {
	catalog := flag.String("catalog", "toolsearch/testdata/catalog.json", "the tool catalog (JSON array of definitions)")
	flag.Parse()
	if err := run(os.Stdout, *catalog); err != nil {
		fmt.Fprintln(os.Stderr, "search:", err)
		os.Exit(1)
	}
}

// step is one thing the scripted model does: search for tools, or call one
// it found.
type step struct {
	say   string // what the user asked, shown before the step
	tool  string
	args  string
	chain bool // call the first tool the previous search returned, with args
}

// run registers the catalog, plays the conversation and writes the
// transcript to w.
func run(w io.Writer, catalogPath string) error {
	b, err := os.ReadFile(catalogPath)
	if err != nil {
		return err
	}
	var defs []toolreg.Definition
	if err := json.Unmarshal(b, &defs); err != nil {
		return fmt.Errorf("%s: %w", catalogPath, err)
	}

	reg := toolreg.New()
	for _, d := range defs {
		t := toolreg.RegisteredTool{Definition: d, Handler: demoHandler(d.Function.Name)}
		// Payment tools form a group this user's plan does not include.
		if strings.HasPrefix(d.Function.Name, "stripe_") || strings.HasPrefix(d.Function.Name, "paypal_") {
			t.Groups = []string{"payments"}
		}
		if _, err := reg.Register(t, "catalog"); err != nil {
			return err
		}
	}
	ix := toolsearch.New(reg, toolsearch.WithAlwaysOffered("get_current_time"))
	if _, err := reg.Register(ix.Tool(), "toolsearch"); err != nil {
		return err
	}

	access := toolreg.Access{} // ungrouped tools only: no payments
	call := toolreg.CallContext{SessionID: "session-1", Access: access}
	all := reg.DefinitionsJSON(access)
	fmt.Fprintf(w, "registry: %d catalog tools and search_tools; this session may reach %d of them, not the payments group (%d bytes of definitions)\n",
		len(defs), len(reg.Definitions(access)), len(all))

	ctx := context.Background()
	var lastFound []string
	prevOffer := ""
	turn := 0
	offer := func() {
		turn++
		tools := ix.OfferJSON(call.SessionID, access)
		var names []string
		for _, d := range ix.Offer(call.SessionID, access) {
			names = append(names, d.Function.Name)
		}
		same := ""
		if string(tools) == prevOffer {
			same = ", byte-identical to the last turn"
		}
		fmt.Fprintf(w, "turn %d offers %d tools (%d bytes%s): %s\n", turn, len(names), len(tools), same, strings.Join(names, ", "))
		prevOffer = string(tools)
	}

	script := []step{
		{say: "file a bug in acme/web: the login button does nothing", tool: "search_tools", args: `{"query":"create github issue","limit":3}`},
		{chain: true, args: `{"owner":"acme","repo":"web","title":"Login button does nothing"}`},
		{say: "and tell the team on slack", tool: "search_tools", args: `{"query":"slak mesage","limit":2}`},
		{chain: true, args: `{"channel_id":"C024BE91L","text":"Filed acme/web#1: login button does nothing"}`},
		{say: "post the same in the release channel", tool: "slack_post_message", args: `{"channel_id":"C0RELEASE","text":"Filed acme/web#1"}`},
		{say: "refund the customer who reported it", tool: "search_tools", args: `{"query":"refund a payment","limit":3}`},
		{say: "what time is it in Tokyo?", tool: "get_current_time", args: `{"timezone":"Asia/Tokyo"}`},
		{say: "load the calendar tool by name", tool: "search_tools", args: `{"query":"select:calendar_create_event"}`},
	}
	for _, s := range script {
		if s.say != "" {
			fmt.Fprintf(w, "\nuser: %s\n", s.say)
		}
		offer()
		name := s.tool
		if s.chain {
			if len(lastFound) == 0 {
				return fmt.Errorf("the script calls a found tool, but the search found none")
			}
			name = lastFound[0]
		}
		res := reg.CallJSON(ctx, name, s.args, call)
		fmt.Fprintf(w, "model → %s %s\n", name, s.args)
		if name == "search_tools" {
			lastFound = foundNames(res.Content)
			if len(lastFound) == 0 {
				fmt.Fprintf(w, "tool  ← %s\n", res.Content)
				continue
			}
			fmt.Fprintf(w, "tool  ← %d definitions: %s\n", len(lastFound), strings.Join(lastFound, ", "))
			continue
		}
		fmt.Fprintf(w, "tool  ← %s\n", res.Content)
	}
	fmt.Fprintln(w)
	offer()
	fmt.Fprintf(w, "discovered in session-1: %s\n", strings.Join(ix.Discovered(call.SessionID), ", "))
	return nil
}

// foundNames reads the names out of a search_tools result.
func foundNames(content string) []string {
	var res struct {
		Tools []toolreg.Definition `json:"tools"`
	}
	if err := json.Unmarshal([]byte(content), &res); err != nil {
		return nil
	}
	names := make([]string, len(res.Tools))
	for i, d := range res.Tools {
		names[i] = d.Function.Name
	}
	return names
}

// demoHandler stands in for a real integration: it answers with the tool's
// name and the arguments it received.
func demoHandler(name string) toolreg.Handler {
	return func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		b, err := json.Marshal(map[string]any{"ok": true, "tool": name, "args": args})
		return string(b), err
	}
}
