package mcpserver

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// DefaultNotifyDelay is how long the server gathers registry changes before
// it updates its tool set and tells the clients.
const DefaultNotifyDelay = 50 * time.Millisecond

// Option configures a [Server]; see [New].
type Option func(*config)

type config struct {
	access         toolreg.Access
	accessFor      func(ctx context.Context, s Session) toolreg.Access
	permissionsFor func(ctx context.Context, s Session) []string
	restricted     bool
	impl           *mcp.Implementation
	serverOpts     *mcp.ServerOptions
	delay          time.Duration
	logger         *slog.Logger
}

// WithAccess serves the tools that a reaches, to every session. The
// default is the zero [toolreg.Access]: ungrouped tools only. a's slices
// are used as given; do not change them afterwards.
func WithAccess(a toolreg.Access) Option { return func(c *config) { c.access = a } }

// WithAccessFor decides per session, and at every request of it, what the
// session reaches: fn's Access is used for tools/list and tools/call alike,
// in place of [WithAccess]. Use it when sessions differ, typically on
// streamable HTTP with bearer tokens, where [Session.UserID] and
// [Session.Token] say who is calling. Over stdio one process serves one
// client, and WithAccess is enough.
//
// fn runs on every tools/list and tools/call, so it should be fast; a
// panic in it refuses every tool to that request. When something fn reads
// changes, call [Server.Refresh] so that clients list again.
func WithAccessFor(fn func(ctx context.Context, s Session) toolreg.Access) Option {
	return func(c *config) { c.accessFor = fn }
}

// WithPermissionsFor gives each call the permissions fn returns, as
// [toolreg.CallContext.Permissions], for the registry's guard. (A
// [toolreg.Permissions] layer in the Access is what hides tools from a
// session; this only informs the guard.) A panic in fn grants none.
func WithPermissionsFor(fn func(ctx context.Context, s Session) []string) Option {
	return func(c *config) { c.permissionsFor = fn }
}

// WithRestricted serves restricted tools too (those whose resolved
// visibility is [toolreg.VisibilityRestricted]). Without it they are
// neither listed nor callable over MCP, whatever the Access says: an MCP
// client usually has no user the guard could authorize.
func WithRestricted() Option { return func(c *config) { c.restricted = true } }

// WithImplementation is the name and version the server gives clients; the
// default is {Name: "toolreg", Version: the module's version}.
func WithImplementation(impl *mcp.Implementation) Option {
	return func(c *config) { c.impl = impl }
}

// WithServerOptions passes o to the SDK's mcp.NewServer (instructions, page
// size, keep-alive, ...). The tools capability is always advertised with
// listChanged, unless o sets Capabilities.Tools itself. When o has no
// Logger, the server's logger ([WithLogger]) is used.
func WithServerOptions(o *mcp.ServerOptions) Option { return func(c *config) { c.serverOpts = o } }

// WithNotifyDelay sets how long registry changes are gathered before the
// server updates its tool set and clients receive
// notifications/tools/list_changed: one update per delay at most, however
// many changes a burst makes. The default is [DefaultNotifyDelay]; zero or
// less keeps it.
func WithNotifyDelay(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.delay = d
		}
	}
}

// WithLogger logs through l: tools the SDK refuses, panics in the funcs of
// [WithAccessFor] and [WithPermissionsFor], and the SDK's own lines unless
// [WithServerOptions] sets another logger. The default discards; nil keeps
// it.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}
