// Package mcpserver serves the tools of a [toolreg.Registry] over the Model
// Context Protocol, with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): to Claude Desktop, an IDE, the
// MCP Inspector or another agent.
//
//	reg := toolreg.New()
//	// ... register tools ...
//	srv, err := mcpserver.New(reg, mcpserver.WithAccess(toolreg.Access{Groups: []string{"web"}}))
//	if err != nil {
//		return err
//	}
//	defer srv.Close()
//	return srv.ServeStdio(ctx) // or: http.ListenAndServe(addr, srv.HTTPHandler(nil))
//
// # Listing and calling
//
// One [toolreg.Access] decides both tools/list and tools/call: a session is
// listed exactly reg.Definitions(access), each tool with its registered input
// schema, and a call runs through [toolreg.Registry.CallJSON] with the same
// access. A tool the listing does not offer (outside the enabled groups,
// refused by a layer, reserved, restricted) is answered exactly like a name
// that does not exist: JSON-RPC error -32602 `unknown tool "name"`. Every other
// answer, a refusal of the guard or invalid arguments included, is a tool
// result with the registry's text and isError set from the result's code,
// so the model reads what went wrong and can correct itself.
//
// Restricted tools are neither listed nor callable unless the server is
// built [WithRestricted]: an MCP client usually has no user for a guard to
// authorize.
//
// # Sessions
//
// The [toolreg.CallContext] of a call has Platform "mcp", the session's id
// and, on streamable HTTP behind auth.RequireBearerToken, the token's user.
// By default every session reaches the same Access ([WithAccess]). When
// sessions differ (one user may search the web, another may not), give
// [WithAccessFor] a func of the [Session]; it is asked at every tools/list
// and tools/call of the session, so the two cannot disagree. Over stdio a
// process serves one client, and WithAccess is enough.
//
// # Changes
//
// The server follows the registry: after a burst of registrations or
// removals it updates the SDK server's tool set once (see
// [WithNotifyDelay]) and every session receives
// notifications/tools/list_changed. [Server.Refresh] does it at once, and
// notifies even when the registry did not change, for access that depends
// on state outside the registry.
//
// # Transports
//
// [Server.ServeStdio] serves a desktop host that runs the program;
// [Server.HTTPHandler] serves streamable HTTP; [Server.Run] takes any SDK
// transport; [Server.MCP] gives the SDK server itself, for prompts,
// resources and middleware.
//
// # Concurrency
//
// A Server is safe for concurrent use. Calls of one session may run in
// parallel, as the SDK runs them; the registry holds no lock while a
// handler runs. [New] starts no goroutine; following the registry uses a
// timer, and [Server.Close] stops it and closes every session.
package mcpserver
