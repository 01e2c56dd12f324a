// Command catalog shows how an agent product decides what a session may use
// from several sources at once, with one declarative, checked model: the
// customer's plan (capability groups), the packs the user switched on, the
// permissions a scenario declares, and the scenario's own tool list.
//
// About thirty built-in tools in eight capability groups are registered with
// demo handlers. Three sessions (a free plan, a paid plan, and a scenario
// that declares only read permissions) are each given one toolreg.Access.
// The program prints what each session is offered, runs a few calls, shows
// the refusals and what Explain says about them, and checks the catalog's
// integrity. It needs no network and no key:
//
//	go run ./examples/catalog
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/toolreg/toolreg"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "catalog:", err)
		os.Exit(1)
	}
}

// capabilityGroups is the product's plan catalog: every built-in tool in
// exactly one capability group.
var capabilityGroups = map[string][]string{
	"files":       {"read_file", "write_file", "list_dir", "search_files"},
	"code":        {"find_symbol", "find_references", "rename_symbol"},
	"terminal":    {"run_command", "run_tests"},
	"web":         {"web_search", "web_fetch", "browser_open"},
	"multimodal":  {"describe_image", "transcribe_audio", "generate_image", "create_doc", "edit_sheet", "make_slides"},
	"memory":      {"remember", "recall", "forget"},
	"tasks":       {"create_task", "list_tasks", "complete_task"},
	"interaction": {"ask_user", "notify_user", "show_choices"},
}

// reservedTools are planned data tools: described, not yet runnable.
var reservedTools = []string{"sql_query", "data_transform", "chart_generate"}

// permissionOf is what each tool requires; the interaction tools need none.
var permissionOf = map[string]string{
	"read_file": "fs:read", "list_dir": "fs:read", "search_files": "fs:read", "write_file": "fs:write",
	"find_symbol": "code:read", "find_references": "code:read", "rename_symbol": "code:write",
	"run_command": "shell:exec", "run_tests": "shell:exec",
	"web_search": "net:read", "web_fetch": "net:read", "browser_open": "net:browse",
	"describe_image": "media:read", "transcribe_audio": "media:read", "generate_image": "media:write",
	"create_doc": "office:write", "edit_sheet": "office:write", "make_slides": "office:write",
	"remember": "memory:write", "recall": "memory:read", "forget": "memory:write",
	"create_task": "tasks:write", "list_tasks": "tasks:read", "complete_task": "tasks:write",
}

var packs = []toolreg.Pack{
	{ID: "code", Name: "Coding", Category: "development",
		Tools: []string{"read_file", "write_file", "list_dir", "search_files", "find_symbol", "find_references", "rename_symbol", "run_command", "run_tests"}},
	{ID: "data", Name: "Data analysis", Category: "development", Requires: []string{"code"}, ReservedTools: reservedTools},
	{ID: "web", Name: "Web", Category: "research", Tools: []string{"web_search", "web_fetch"}, OptionalTools: []string{"browser_open"}},
	{ID: "media", Name: "Media", Category: "creative", Tools: []string{"describe_image", "transcribe_audio", "generate_image"}},
	{ID: "office", Name: "Office", Category: "productivity", Tools: []string{"create_doc", "edit_sheet", "make_slides"}},
}

// systemTools are always enabled, whatever the packs: every session needs
// them to talk to its user, remember and keep track of work.
var systemTools = []string{"ask_user", "notify_user", "show_choices", "remember", "recall", "forget", "create_task", "list_tasks", "complete_task"}

// product is the catalog the product declares beside the registry: the
// permission rules, the free and the paid plan, and a scenario's tools.
func product() toolreg.Catalog {
	return toolreg.Catalog{
		Permissions: &toolreg.Permissions{Required: maps.Clone(permissionOf), Allow: []string{"ask_user", "notify_user", "show_choices"}},
		Entitlements: []toolreg.Entitlements{
			{Name: "plan", Catalog: maps.Clone(capabilityGroups), Allowed: []string{"files", "code", "memory", "tasks", "interaction"}, AlwaysAllowed: systemTools, Reveal: true},
			{Name: "plan", Catalog: maps.Clone(capabilityGroups)},
		},
		Whitelists: map[string][]string{"review-scenario": {"read_file", "list_dir", "search_files", "find_symbol", "find_references", "recall", "ask_user", "sql_query"}},
	}
}

// register fills the registry: the built-in tools with demo handlers, the
// reserved data tools, and the packs.
func register(reg *toolreg.Registry) error {
	s := reg.Scope("builtin")
	for _, g := range sortedKeys(capabilityGroups) {
		for _, name := range capabilityGroups[g] {
			tool := toolreg.RegisteredTool{
				Definition: toolreg.Definition{Function: toolreg.Function{
					Name:        name,
					Description: "Demo " + strings.ReplaceAll(name, "_", " ") + " (" + g + ").",
					Parameters:  toolreg.Parameters{Properties: map[string]any{"input": map[string]any{"type": "string"}}},
				}},
				Handler:    demoHandler(name),
				Permission: permissionOf[name],
				Inline:     true, // the demo handlers return at once
			}
			if _, err := s.Register(tool); err != nil {
				return err
			}
		}
	}
	for _, name := range reservedTools {
		if _, err := s.Reserve(toolreg.Definition{Function: toolreg.Function{Name: name, Description: "Planned data tool."}}); err != nil {
			return err
		}
	}
	for _, p := range packs {
		if _, err := s.RegisterPack(p); err != nil {
			return err
		}
	}
	return nil
}

// demoHandler is a demo handler: it says it ran, and with what.
func demoHandler(name string) toolreg.Handler {
	return func(_ context.Context, args map[string]any, call toolreg.CallContext) (string, error) {
		return fmt.Sprintf("demo %s ran for %s with %v", name, call.SessionID, args["input"]), nil
	}
}

// session is one user's situation, turned into one Access.
type session struct {
	id      string
	plan    toolreg.Entitlements
	packs   []string
	granted []string
	extra   []toolreg.Layer // a scenario's own list
}

// access builds the one value that decides what the session is offered and
// may run: plan, packs (plus the system tools), permissions, scenario.
func (s session) access(reg *toolreg.Registry, c toolreg.Catalog) (toolreg.Access, error) {
	plan, err := s.plan.Layer()
	if err != nil {
		return toolreg.Access{}, err
	}
	res := reg.ResolvePacks(s.packs, true)
	res.Tools = append(res.Tools, systemTools...)
	perms, err := c.Permissions.Layer(s.granted...)
	if err != nil {
		return toolreg.Access{}, err
	}
	return toolreg.Access{Layers: append([]toolreg.Layer{plan, res.Layer("packs"), perms}, s.extra...)}, nil
}

func sessions(c toolreg.Catalog) []session {
	all := []string{"fs:read", "fs:write", "code:read", "code:write", "shell:exec", "net:read", "net:browse",
		"media:read", "media:write", "office:write", "memory:read", "memory:write", "tasks:read", "tasks:write"}
	return []session{
		{id: "free-user", plan: c.Entitlements[0], packs: []string{"code", "web"}, granted: all},
		{id: "paid-user", plan: c.Entitlements[1], packs: []string{"data", "web", "media", "office"}, granted: all},
		{id: "review-scenario", plan: c.Entitlements[1], packs: []string{"code"},
			granted: []string{"fs:read", "code:read", "memory:read"},
			extra:   []toolreg.Layer{toolreg.AllowList("scenario", c.Whitelists["review-scenario"])}},
	}
}

func run(w io.Writer) error {
	reg := toolreg.New()
	if err := register(reg); err != nil {
		return err
	}
	c := product()
	fmt.Fprintf(w, "%d tools registered (%d reserved), %d packs.\n", len(reg.All()), len(reservedTools), len(reg.Packs()))
	fmt.Fprintln(w, "\nIntegrity of the product's catalog:", orOK(reg.CheckIntegrity(c)))

	calls := []string{"read_file", "write_file", "web_search", "browser_open", "generate_image", "sql_query", "ask_user", "made_up_tool"}
	for _, s := range sessions(c) {
		a, err := s.access(reg, c)
		if err != nil {
			return err
		}
		var offered []string
		for _, d := range reg.Definitions(a) {
			offered = append(offered, d.Function.Name)
		}
		fmt.Fprintf(w, "\n== %s: offered %d tools\n   %s\n", s.id, len(offered), strings.Join(offered, ", "))
		for _, name := range calls {
			res := reg.CallJSON(context.Background(), name, `{"input":"x"}`, toolreg.CallContext{SessionID: s.id, Access: a})
			fmt.Fprintf(w, "   call %-15s -> %s\n", name, res.Content)
		}
		for _, name := range []string{"write_file", "generate_image", "sql_query"} {
			fmt.Fprintf(w, "   why not %-14s %s\n", name+"?", explain(reg.Explain(name, a)))
		}
	}

	broken := product()
	broken.Whitelists["review-scenario"] = append(broken.Whitelists["review-scenario"], "read_files")
	broken.Permissions.Required["run_script"] = "shell:exec"
	broken.Entitlements[0].Catalog["web"] = append(broken.Entitlements[0].Catalog["web"], "read_file")
	fmt.Fprintln(w, "\nIntegrity after three mistakes in the catalog:")
	for _, line := range strings.Split(orOK(reg.CheckIntegrity(broken)), "\n") {
		fmt.Fprintln(w, "  ", line)
	}
	return nil
}

func explain(ex toolreg.Explanation) string {
	if ex.Offered {
		return "offered"
	}
	var why []string
	for _, r := range ex.Refusals {
		why = append(why, r.Layer+": "+r.Reason)
	}
	return strings.Join(why, "; ")
}

func orOK(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func sortedKeys(m map[string][]string) []string {
	return slices.Sorted(maps.Keys(m))
}
