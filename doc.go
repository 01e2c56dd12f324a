// Package toolreg is the registry of tools that an LLM agent may call.
//
// Host plugins register tools (an OpenAI function-calling definition, a
// handler, a capability policy and groups); the agent loop asks the registry
// which definitions to offer the model and runs the model's tool calls through
// it; an authority component plugs in as its execution guard. Execute never
// panics and always returns a string the model can read: the handler's result,
// or {"error":"…","code":"…"}.
//
//	reg := toolreg.New()
//	reg.Register(toolreg.RegisteredTool{
//		Definition: toolreg.Definition{Function: toolreg.Function{
//			Name:        "add",
//			Description: "Add two numbers.",
//			Parameters: toolreg.Parameters{
//				Properties: map[string]any{"a": map[string]any{"type": "number"}, "b": map[string]any{"type": "number"}},
//				Required:   []string{"a", "b"},
//			},
//		}},
//		Handler: func(ctx context.Context, args map[string]any, call toolreg.CallContext) (string, error) {
//			a, okA := args["a"].(float64) // a model may send "1": check, never assert blindly
//			b, okB := args["b"].(float64)
//			if !okA || !okB {
//				return "", errors.New("a and b must be numbers")
//			}
//			return strconv.FormatFloat(a+b, 'g', -1, 64), nil
//		},
//	}, "math")
//	tools := reg.DefinitionsJSON(toolreg.Access{})                                       // the request's "tools"
//	out := reg.ExecuteJSON(ctx, "add", `{"a":1,"b":2}`, toolreg.CallContext{SessionID: "s1"}) // "3"
//
// # Registering
//
// [Registry.Register] checks a tool completely before it changes anything:
// the name must match ^[a-zA-Z0-9_-]{1,64}$, the handler must be set, policy
// values must be known, required keys must be declared properties, and a
// Strict tool must follow the OpenAI strict-mode rules. Every problem is
// reported at once in a [*RegisterError] wrapping [ErrInvalidName],
// [ErrInvalidSchema], [ErrInvalidPolicy], [ErrMissingHandler] or
// [ErrDuplicate]. Register returns a func that removes exactly that
// registration; [Registry.UnregisterByPlugin] removes a plugin's tools and
// groups, and a [Scope] does the bookkeeping for a plugin.
// [Registry.Reserve] declares a tool that has no executor yet.
//
// # Policy and guards
//
// A tool declares a [Visibility] (who may run it), a [Confirm] (whether a
// human must confirm) and a [Risk], which is sugar for both:
// safe is public, sensitive restricted, dangerous restricted with
// confirmation once per session. Explicit fields win; see [ResolvePolicy].
// The registry enforces none of it by itself: it passes the resolved policy
// to the [ExecutionGuard] installed with [Registry.SetExecutionGuard], which
// allows, denies, or asks for confirmation by wrapping
// [ErrConfirmationRequired]. Without a guard every call is allowed, unless
// the registry was built [WithFailClosed]. [ChainGuards] composes guards.
//
// # Groups and access
//
// What a caller may reach is one [Access] value: the enabled groups and the
// availability layers. Listing ([Registry.Definitions]) and execution
// ([CallContext.Access]) take the same value, so a call to a tool the
// session would not be offered reads exactly like a call to an unknown name.
// A tool with no groups is always reached; a grouped tool when one of its
// groups is enabled. Every [Layer] must then admit it: [AllowList],
// [DenyList], [LayerFunc] or a layer of your own. [Registry.Explain] says
// why a tool is not offered. [GroupInfo] describes groups for people.
//
// # Events
//
// [Registry.Subscribe] receives a "start" and an "end" [ExecuteEvent] for
// every call, refusals and unknown names included. Their arguments are a
// deep copy in which values marked "x-sensitive": true in the schema read
// "[redacted]", wherever the mark sits; no log line carries argument values.
// [Registry.OnChange] and [Registry.Version] report changes of the tool set.
//
// # Limits
//
// Everything the registry takes from a model, a caller or a schema is
// bounded, so no input makes it slow, large or crash:
//
//   - arguments: at most [MaxArgumentDepth] levels and [MaxArgumentValues]
//     values (a value that contains itself is refused), and at most
//     [DefaultMaxArgumentBytes] of raw JSON ([WithMaxArgumentBytes]); NaN,
//     infinities and values with no JSON form are refused;
//   - numbers: [Registry.ExecuteJSON] decodes float64, and refuses an integer
//     that float64 would round, telling the model to pass it as a string,
//     unless the tool asked for json.Number ([RegisteredTool.UseNumber],
//     [WithUseNumber]);
//   - schemas: depth, size and encoded bytes per [SchemaLimits]
//     ([WithSchemaLimits]), and no $ref cycle that never descends;
//   - messages: every message the registry writes, a tool's error text
//     included, is at most [MaxMessageBytes] and quotes only a short prefix
//     of any value; every result fits [WithMaxResultBytes] after JSON
//     encoding;
//   - abandoned handlers: at most [DefaultMaxAbandoned] calls per tool may
//     still run after their timeout ([WithMaxAbandoned]); beyond that, new
//     calls fail at once with code "timeout". [Registry.Stats] counts them.
//
// # Concurrency
//
// Every method is safe for concurrent use. Lookups read an immutable
// snapshot without locking; registration takes one mutex. No lock is held
// while handlers, guards, layers or listeners run, so a guard may block for
// minutes while a human decides without stalling the registry. A handler
// runs on a goroutine of its own unless its tool is [RegisteredTool.Inline]:
// a handler that ignores its context, hangs, panics or calls runtime.Goexit
// cannot hold or end the caller. Panics anywhere in user code are recovered
// and logged.
package toolreg
