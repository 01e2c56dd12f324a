// Package wire converts between a [toolreg.Registry] and the wire formats of
// the model providers: OpenAI chat completions, the OpenAI Responses API,
// Anthropic Messages and Gemini.
//
// For each format an [Adapter] has three methods: one lists the tools to
// offer, one reads the tool calls of a response into [toolreg.ToolCall]
// values for [toolreg.Registry.ExecuteBatch] (or [toolreg.Registry.CallJSON]),
// and one writes the [toolreg.Result] values back as that provider's
// tool-result message. The types it returns are plain Go structs whose
// json.Marshal is the wire format; the provider SDKs are not imported.
//
//	w := wire.New(reg)
//	tools, err := w.AnthropicTools(access)           // request "tools"
//	calls, err := w.AnthropicCalls(rawMessage)       // the response, as JSON
//	results := reg.ExecuteBatch(ctx, calls, cc, toolreg.BatchOptions{})
//	reply := w.AnthropicResults(results)             // the next user message
//
// # Listing tools
//
// Every listing starts from [toolreg.Registry.Definitions] of the caller's
// Access, so a tool the Access does not reach is never sent, whatever other
// option says. Listings are sorted by name and marshal to the same bytes for
// the same tools, which keeps the provider's prompt cache warm.
//
// Chat completions tools are the registry's own [toolreg.Definition] values.
// Responses tools always carry strict. A strict tool's schema is sent
// without vendor keywords (keys that start with "x-", such as the registry's
// x-sensitive): strict modes refuse a request over a keyword they do not
// know, and the model has no use for them. Anthropic's input_schema is the
// registered schema, $defs included. Gemini declarations use the OpenAPI
// subset Gemini accepts: references are inlined (a recursive schema is
// refused, and inlining is bounded by [Limits]), types are upper case and
// keywords Gemini refuses are dropped; see [Adapter.GeminiTools].
//
// # Reading calls
//
// Responses come from the network and are read as hostile input: the size,
// the number of calls, each call's arguments (size and nesting) and ids are
// bounded ([Limits]); bytes that are not UTF-8, malformed JSON, a provider's
// error object, a missing or repeated call id are refused with a
// [*ParseError]; parts and blocks of other kinds are skipped. Arguments are
// passed on as JSON text, their numbers exactly as the model wrote them, for
// the registry to validate. Gemini calls without an id get a stable one.
//
// # Deferred tools
//
// With [WithDeferred] or [WithDeferredFunc], some tools are not offered up
// front but found by the model. Where the provider searches on its side
// (Anthropic's tool_search_tool_bm25 or _regex, the Responses API's hosted
// tool_search) every reachable tool is sent and the deferred ones carry
// defer_loading. Elsewhere, or with [SearchClient], the listing holds the
// tools that are not deferred, the registered search tool ([WithSearchTool])
// and the deferred tools the session has discovered, which the caller passes
// in: the session's discovered set is kept by whoever runs the search tool.
// One option, [WithSearch], switches between the two.
//
// # Concurrency
//
// An Adapter holds only its configuration: every method is safe for
// concurrent use, and none holds a lock while it calls the registry or a
// [WithDeferredFunc] predicate.
package wire
