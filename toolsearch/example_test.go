package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

// exampleRegistry registers a few tools as different MCP servers name them.
func exampleRegistry() *toolreg.Registry {
	reg := toolreg.New()
	for _, t := range []toolreg.RegisteredTool{
		tool("github_create_issue", "Create a new issue in a GitHub repository.", "owner", "repo", "title", "body"),
		tool("github_list_pull_requests", "List pull requests in a GitHub repository.", "owner", "repo", "state"),
		tool("slack_post_message", "Post a new message to a Slack channel.", "channel_id", "text"),
		tool("read_file", "Read the complete contents of a file from the file system.", "path"),
		tool("calendar_create_event", "Create a new event in Google Calendar.", "summary", "start", "end"),
	} {
		if _, err := reg.Register(t, "example"); err != nil {
			panic(err)
		}
	}
	return reg
}

func Example() {
	reg := exampleRegistry()
	ix := toolsearch.New(reg)
	ctx := context.Background()
	access := toolreg.Access{} // what this caller may reach: here, the ungrouped tools

	for _, q := range []string{
		"open an issue on github",
		"listPullRequests",
		"slak mesage", // typos
		"calender evnt",
	} {
		matches := ix.Search(ctx, access, q, 1)
		fmt.Printf("%-24q → %s\n", q, matches[0].Name)
	}
	// Output:
	// "open an issue on github" → github_create_issue
	// "listPullRequests"       → github_list_pull_requests
	// "slak mesage"            → slack_post_message
	// "calender evnt"          → calendar_create_event
}

func ExampleIndex_Tool() {
	reg := exampleRegistry()
	ix := toolsearch.New(reg)
	if _, err := reg.Register(ix.Tool(), "toolsearch"); err != nil {
		panic(err)
	}
	call := toolreg.CallContext{SessionID: "session-1"}

	// The model calls search_tools like any other tool.
	res := reg.CallJSON(context.Background(), "search_tools", `{"query":"post to slack","limit":1}`, call)
	var answer struct{ Tools []toolreg.Definition }
	if err := json.Unmarshal([]byte(res.Content), &answer); err != nil {
		panic(err)
	}
	for _, d := range answer.Tools {
		fmt.Println("found:", d.Function.Name, "with", len(d.Function.Parameters.Properties), "parameters")
	}
	fmt.Println("discovered:", ix.Discovered("session-1"))
	// Output:
	// found: slack_post_message with 2 parameters
	// discovered: [slack_post_message]
}

func ExampleIndex_Offer() {
	reg := exampleRegistry()
	// Offer every tool while there are at most 3; there are 5.
	ix := toolsearch.New(reg, toolsearch.WithOfferAll(3), toolsearch.WithAlwaysOffered("read_file"))
	if _, err := reg.Register(ix.Tool(), "toolsearch"); err != nil {
		panic(err)
	}
	access := toolreg.Access{}
	show := func(turn string) {
		var names []string
		for _, d := range ix.Offer("s", access) {
			names = append(names, d.Function.Name)
		}
		fmt.Println(turn, names)
	}
	show("turn 1:")
	before := string(ix.OfferJSON("s", access))
	ix.Search(context.Background(), access, "calendar event", 1) // a search alone records nothing
	fmt.Println("unchanged:", before == string(ix.OfferJSON("s", access)))

	reg.CallJSON(context.Background(), "search_tools", `{"query":"calendar event","limit":1}`, toolreg.CallContext{SessionID: "s"})
	show("turn 2:")
	fmt.Println("unchanged:", before == string(ix.OfferJSON("s", access)))
	// Output:
	// turn 1: [read_file search_tools]
	// unchanged: true
	// turn 2: [calendar_create_event read_file search_tools]
	// unchanged: false
}
