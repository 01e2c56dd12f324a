// Package mcpclient imports the tools of a Model Context Protocol server
// into a [toolreg.Registry], with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). Tools hosted by another process
// or machine then join the registry: they are offered, guarded, validated,
// logged and called like any local tool.
//
//	reg := toolreg.New()
//	c, err := mcpclient.New(ctx, reg.Scope("github"),
//		mcpclient.Command("github-mcp-server", "stdio"), // or mcpclient.HTTP("https://.../mcp")
//		mcpclient.WithPrefix("gh_"), mcpclient.WithRisk(toolreg.RiskSensitive))
//	if err != nil {
//		return err
//	}
//	defer c.Close() // removes the imported tools
//
// # Importing
//
// Every tool the server lists is registered through the given
// [toolreg.Scope], named by a prefix and the remote name, with its
// description and its input schema converted exactly into
// [toolreg.Parameters]. The caller chooses the risk, permission, groups and
// timeout ([WithRisk], [WithPermission], [WithGroups], [WithTimeout]), per
// tool if need be ([WithPrepare]). Annotations the server sends are its
// claims and never lower a risk.
//
// # Hostile servers
//
// A server's listing is input from a peer: it is bounded in the number of
// tools ([WithMaxTools]), the size of each ([WithMaxToolBytes]) and the
// nesting of each schema ([WithMaxSchemaDepth]); results are cut at
// [WithMaxResultBytes]; calls and listings time out ([WithTimeout]). A name
// that is not a valid registry name is sanitized: characters outside
// [A-Za-z0-9_-] become '_' and a hash of the exact remote name is appended,
// so the mapping is stable and distinct names stay distinct. A tool that
// cannot be imported exactly (an unsupported schema, a bound exceeded, a
// name clash, a schema the registry refuses) is skipped, never
// half-imported; [Client.Skipped] says why.
//
// # Calls
//
// An imported tool's handler calls the remote tool with the call's context
// and arguments (numbers kept exact) and returns the text of the result.
// A result the server flags isError becomes code "tool_error" with the
// server's text; a call that cannot reach the server becomes "tool_error"
// with a message naming the tool and the failure; the registry's timeout or
// the caller's cancellation cancels the remote call.
//
// # Changes
//
// The client follows the server's notifications/tools/list_changed: it
// lists again (coalescing bursts, see [WithRefreshDelay]) and applies the
// difference. When the session ends, because the server exited or
// [Client.Close] was called, the imported tools are removed.
//
// # Concurrency
//
// A Client is safe for concurrent use; imported tools may be called in
// parallel. It runs a goroutine that watches the session, and one that
// lists again after a notification; [Client.Close] waits for both.
package mcpclient
