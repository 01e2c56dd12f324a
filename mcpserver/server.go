package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// Platform is the [toolreg.CallContext.Platform] of every call that comes
// over MCP.
const Platform = "mcp"

// Server serves the tools of a [toolreg.Registry] over MCP. Create it with
// [New]. Its methods are safe for concurrent use.
type Server struct {
	reg      *toolreg.Registry
	cfg      config
	sdk      *mcp.Server
	hide     toolreg.Layer  // refuses restricted tools; nil with WithRestricted
	superset toolreg.Access // every tool any session could reach

	unsubscribe func()
	closing     context.Context // done once Close has begun
	stop        context.CancelFunc

	syncMu  sync.Mutex // serializes syncs; guards exposed
	exposed map[string]*exposedTool

	mu       sync.Mutex // guards the fields below
	timer    *time.Timer
	closed   bool
	inflight sync.WaitGroup // syncs started by the timer

	sessions sessionIDs
}

// exposedTool is a tool in the SDK server's set.
type exposedTool struct {
	tool        *mcp.Tool
	fingerprint string
}

// New returns a server that exposes reg's tools over MCP. It reads the
// registry now, and from then on follows every change of it
// ([toolreg.Registry.OnChange]) until [Server.Close]: after a burst of changes the tool set is updated and
// every session receives notifications/tools/list_changed (see
// [WithNotifyDelay]).
//
// tools/list answers exactly reg.Definitions(access), sorted by name, with
// each tool's input schema as registered, where access is the session's
// ([WithAccess], [WithAccessFor]) plus, unless [WithRestricted], a layer that
// refuses restricted tools. tools/call runs [toolreg.Registry.CallJSON] with
// the same access, so a tool the listing does not offer is refused exactly
// as an unknown name is: JSON-RPC error -32602 "unknown tool". Any other
// result is returned as one text block, with isError set when the result
// has a code (see [toolreg.Result.IsError]).
//
// The [toolreg.CallContext] of a call has Platform "mcp", the session's id
// ([Session.ID]), the user id of the bearer token when the transport has one
// ([Session.UserID]) and the permissions of [WithPermissionsFor]. The
// request's JSON-RPC id is not given to handlers by the SDK; CallID is left
// for the registry to make.
//
// New fails when reg is nil, or when [WithServerOptions] holds options the
// SDK refuses. It starts no goroutine.
func New(reg *toolreg.Registry, opts ...Option) (*Server, error) {
	if reg == nil {
		return nil, errors.New("mcpserver: nil registry")
	}
	cfg := config{delay: DefaultNotifyDelay, logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	s := &Server{reg: reg, cfg: cfg, exposed: map[string]*exposedTool{}}
	if !cfg.restricted {
		s.hide = toolreg.HideRestricted("mcp") // cacheable, unlike a LayerFunc
	}
	s.superset = s.withHide(toolreg.Access{Groups: []string{toolreg.AllGroups}})
	var err error
	if s.sdk, err = newSDKServer(cfg); err != nil {
		return nil, err
	}
	s.closing, s.stop = context.WithCancel(context.Background())
	s.sdk.AddReceivingMiddleware(s.filterList, s.endListens)
	s.sync(false)
	s.unsubscribe = reg.OnChange(s.changed)
	return s, nil
}

// newSDKServer builds the SDK server, turning its panics on bad options
// into an error.
func newSDKServer(cfg config) (srv *mcp.Server, err error) {
	var so mcp.ServerOptions
	if cfg.serverOpts != nil {
		so = *cfg.serverOpts
	}
	if so.Logger == nil {
		so.Logger = cfg.logger
	}
	caps := &mcp.ServerCapabilities{}
	if so.Capabilities != nil {
		c := *so.Capabilities
		caps = &c
	}
	if caps.Tools == nil {
		caps.Tools = &mcp.ToolCapabilities{ListChanged: true}
	}
	so.Capabilities = caps
	impl := cfg.impl
	if impl == nil {
		impl = &mcp.Implementation{Name: "toolreg", Version: moduleVersion()}
	}
	defer func() {
		if v := recover(); v != nil {
			srv, err = nil, fmt.Errorf("mcpserver: %v", v)
		}
	}()
	return mcp.NewServer(impl, &so), nil
}

// MCP returns the SDK server, to add prompts, resources or middleware, or to
// serve it on a transport of your choice. Do not add or remove tools on it:
// the server keeps its tool set equal to the registry's.
func (s *Server) MCP() *mcp.Server { return s.sdk }

// Run serves one session over t until the client disconnects or ctx is
// done, as [mcp.Server.Run] does.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.sdk.Run(ctx, t) }

// ServeStdio serves one session over the process's standard input and
// output, as a desktop MCP host expects, until the host closes it or ctx is
// done.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.sdk.Run(ctx, &mcp.StdioTransport{})
}

// HTTPHandler returns an http.Handler that serves the streamable HTTP
// transport, one MCP session per client, with opts passed to the SDK (nil:
// its defaults, stateful sessions and a bounded request body). Put it
// behind auth.RequireBearerToken to give sessions a user ([Session.UserID]).
func (s *Server) HTTPHandler(opts *mcp.StreamableHTTPOptions) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.sdk }, opts)
}

// Refresh brings the tool set up to date with the registry now and sends
// every session notifications/tools/list_changed, even when the registry
// did not change. Registry changes are followed without it; call it when
// something outside the registry that decides what a session sees has
// changed (what a [WithAccessFor] func or a [toolreg.LayerFunc] reads).
func (s *Server) Refresh() { s.sync(true) }

// Close stops following the registry and closes every open session. The
// SDK server keeps its last tool set, and calls made on it still go
// through the registry. Close is idempotent.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.mu.Unlock()
	s.unsubscribe()
	s.inflight.Wait()
	s.stop()
	for ss := range s.sdk.Sessions() {
		ss.Close()
	}
}

// withHide returns a with the restricted-tools layer appended, without
// touching a's own slice.
func (s *Server) withHide(a toolreg.Access) toolreg.Access {
	if s.hide != nil {
		a.Layers = append(slices.Clip(a.Layers), s.hide)
	}
	return a
}

// callContext derives the CallContext of one request.
func (s *Server) callContext(ctx context.Context, req mcp.Request) toolreg.CallContext {
	sess := s.session(req)
	return toolreg.CallContext{
		SessionID:   sess.ID,
		UserID:      sess.UserID,
		Platform:    Platform,
		Access:      s.access(ctx, sess),
		Permissions: s.permissions(ctx, sess),
	}
}

// refuseAll is the Access of a request whose WithAccessFor func panicked.
var refuseAll = toolreg.Access{Layers: []toolreg.Layer{toolreg.AllowList("mcp", []string{})}}

// access is what sess reaches, with restricted tools hidden unless asked.
func (s *Server) access(ctx context.Context, sess Session) (a toolreg.Access) {
	if s.cfg.accessFor == nil {
		return s.withHide(s.cfg.access)
	}
	defer func() {
		if v := recover(); v != nil {
			s.cfg.logger.Error("mcpserver: recovered panic in the WithAccessFor func", "session", sess.ID,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			a = refuseAll
		}
	}()
	return s.withHide(s.cfg.accessFor(ctx, sess))
}

func (s *Server) permissions(ctx context.Context, sess Session) (p []string) {
	if s.cfg.permissionsFor == nil {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			s.cfg.logger.Error("mcpserver: recovered panic in the WithPermissionsFor func", "session", sess.ID,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			p = nil
		}
	}()
	return s.cfg.permissionsFor(ctx, sess)
}

// call is the handler of every tool: it runs the call through the registry.
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	args := string(req.Params.Arguments)
	if strings.TrimSpace(args) == "null" {
		args = "" // an explicit null is an absent object, as most encoders mean it
	}
	res := s.reg.CallJSON(ctx, name, args, s.callContext(ctx, req))
	if res.Code == toolreg.CodeNotFound {
		return nil, unknownTool(name)
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: res.Content}},
		IsError: res.IsError(),
	}, nil
}

// unknownTool is the SDK's own answer to a tools/call of a name it does not
// have, so that a hidden tool cannot be told from an unknown one.
func unknownTool(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}

// filterList narrows every tools/list answer to what the session reaches.
func (s *Server) filterList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		lr, ok := res.(*mcp.ListToolsResult)
		if !ok || lr == nil {
			return res, err
		}
		defs := s.reg.Definitions(s.access(ctx, s.session(req)))
		offered := make(map[string]struct{}, len(defs))
		for _, d := range defs {
			offered[d.Function.Name] = struct{}{}
		}
		out := *lr
		out.Tools = slices.DeleteFunc(slices.Clone(lr.Tools), func(t *mcp.Tool) bool {
			_, ok := offered[t.Name]
			return !ok
		})
		if out.Tools == nil {
			out.Tools = []*mcp.Tool{} // "tools": [] on the wire, never null
		}
		if s.cfg.accessFor != nil {
			out.CacheScope = "private" // the list is this user's
		}
		return &out, nil
	}
}

// endListens ends every subscriptions/listen request when Close begins.
// Such a request waits until the client cancels it; the SDK's session Close
// cancels the ones it knows of, but one that arrives while Close runs
// would hold Close forever.
func (s *Server) endListens(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "subscriptions/listen" {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.closing, cancel)()
		return next(ctx, method, req)
	}
}

// moduleVersion is the version of this module in the running binary.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == "github.com/toolreg/toolreg" && bi.Main.Version != "" {
			return bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/toolreg/toolreg" {
				return d.Version
			}
		}
	}
	return "(devel)"
}
