package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// Errors that a [Skipped] wraps, besides the registry's own
// ([toolreg.ErrInvalidSchema], ...).
var (
	// ErrUnsupportedSchema: the input schema is not a JSON object schema that
	// [toolreg.Parameters] can carry exactly.
	ErrUnsupportedSchema = errors.New("mcpclient: unsupported input schema")
	// ErrTooLarge: the tool, its schema's nesting or the listing is over a
	// bound (see [WithMaxToolBytes], [WithMaxSchemaDepth], [WithMaxTools]).
	ErrTooLarge = errors.New("mcpclient: over a limit")
	// ErrNameClash: another remote tool already has this registry name, or
	// the server listed the same name twice.
	ErrNameClash = errors.New("mcpclient: name clash")
	// ErrNoName: the server listed a tool with an empty name.
	ErrNoName = errors.New("mcpclient: tool has no name")
)

// Client imports the tools of one MCP server into a registry, through a
// [toolreg.Scope], and keeps them in step with the server until
// [Client.Close]. Create it with [New]. Its methods are safe for concurrent
// use.
type Client struct {
	cfg     config
	scope   *toolreg.Scope
	session *mcp.ClientSession

	ctx    context.Context // canceled by Close: ends re-listings
	cancel context.CancelFunc
	wg     sync.WaitGroup // the re-listing and the session watcher

	syncMu sync.Mutex // serializes listings; guards tools
	tools  map[string]*imported

	mu         sync.Mutex // guards the fields below
	ready      bool       // the first listing is done
	refreshing bool       // a re-listing goroutine runs
	dirty      bool       // list again once it is done
	closed     bool
	view       []Tool
	skipped    []Skipped
	ended      chan struct{} // closed when the session ends
	endErr     error
}

// imported is one registration made by the client.
type imported struct {
	remote      string
	fingerprint string
	undo        func()
}

// Tool is an imported tool: its registry name and its name on the server.
type Tool struct {
	Name   string
	Remote string
}

// Skipped is a remote tool that the last listing did not import, and why.
type Skipped struct {
	Remote string // the name the server sent ("" for a listing cut at WithMaxTools)
	Name   string // the registry name it was given, "" when it had none
	Err    error  // wraps ErrUnsupportedSchema, ErrTooLarge, ErrNameClash, ErrNoName or a registry error
}

// New connects to the MCP server behind t, lists its tools and registers
// them through scope, then follows the server's
// notifications/tools/list_changed until [Client.Close]. t is any go-sdk
// transport: [Command] runs a server as a subprocess, [HTTP] reaches a
// streamable HTTP endpoint, and mcp.NewInMemoryTransports connects to a
// server in the same process.
//
// Each remote tool becomes a [toolreg.RegisteredTool] named by the prefix
// (see [WithPrefix]) and the remote name (sanitized when it is not a valid
// registry name, as the package documentation says), with the remote description, the input schema
// converted exactly, and the risk, permission, groups and timeout the
// options give. A tool whose schema cannot be carried exactly, is over a
// bound, clashes with another's name or is refused by the registry is
// skipped, never half-imported: [Client.Skipped] lists it with the reason.
//
// The handler of an imported tool calls the remote tool with the call's
// context and arguments and returns the text of the result. A result the
// server flags isError, and any failure to reach the server, become the
// handler's error, so the model reads code "tool_error" with the server's
// text or a message that names the tool and the failure.
//
// ctx bounds the connection and the first listing only (the listing is
// also bounded by [WithTimeout]). New fails, and
// leaves nothing registered, when scope or t is nil, the prefix is
// invalid, the connection fails or the first listing fails.
func New(ctx context.Context, scope *toolreg.Scope, t mcp.Transport, opts ...Option) (*Client, error) {
	if scope == nil {
		return nil, errors.New("mcpclient: nil scope")
	}
	if t == nil {
		return nil, errors.New("mcpclient: nil transport")
	}
	cfg := defaults()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if len(cfg.prefix) > maxPrefixLen || (cfg.prefix != "" && !validName(cfg.prefix)) {
		return nil, fmt.Errorf("mcpclient: prefix %q must be at most %d bytes of [A-Za-z0-9_-]", cfg.prefix, maxPrefixLen)
	}
	impl := cfg.impl
	if impl == nil {
		impl = &mcp.Implementation{Name: "toolreg", Version: moduleVersion()}
	}
	c := &Client{cfg: cfg, scope: scope, tools: map[string]*imported{}, ended: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	client := mcp.NewClient(impl, &mcp.ClientOptions{
		Logger:       cfg.logger,
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			c.kick()
		},
	})
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		c.cancel()
		return nil, fmt.Errorf("mcpclient: connect: %w", err)
	}
	c.session = session
	lctx, cancel := c.listContext(ctx)
	err = c.sync(lctx)
	cancel()
	if err != nil {
		c.cancel()
		session.Close()
		c.removeAll()
		return nil, err
	}
	c.wg.Add(1)
	go c.watch()
	c.mu.Lock()
	c.ready = true
	again := c.dirty
	c.mu.Unlock()
	if again {
		c.kick()
	}
	return c, nil
}

// Session returns the MCP session, for the server's prompts and resources.
// Closing it ends the import: the imported tools are removed, as when the
// server exits. Call [Client.Close] all the same, to wait for the client's
// goroutines.
func (c *Client) Session() *mcp.ClientSession { return c.session }

// Tools returns the tools imported by the last listing, sorted by registry
// name.
func (c *Client) Tools() []Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.view)
}

// Skipped returns the remote tools the last listing did not import, in the
// order of their remote names.
func (c *Client) Skipped() []Skipped {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.skipped)
}

// Refresh lists the server's tools now and applies the difference, as a
// notifications/tools/list_changed would; use it with servers that do not
// send one. It returns the listing's error; tools already imported stay
// when listing fails.
func (c *Client) Refresh(ctx context.Context) error {
	return c.sync(ctx)
}

// Wait blocks until the session with the server ends (the server exited or
// closed the connection, or [Client.Close] was called) and returns why. The
// imported tools are removed when the session ends.
func (c *Client) Wait() error {
	<-c.ended
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endErr
}

// Close removes every imported tool from the registry, ends the session
// (a subprocess server is asked to exit, then terminated) and waits for the
// client's goroutines. Calls of imported tools still running fail with
// code "tool_error". Close is idempotent and returns the session's close
// error. Do not call it from a [toolreg.Registry.OnChange] hook.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	err := c.session.Close()
	c.wg.Wait()
	c.removeAll()
	return err
}

// watch removes the imported tools when the session ends on its own.
func (c *Client) watch() {
	defer c.wg.Done()
	err := c.session.Wait()
	c.mu.Lock()
	c.endErr = err
	closed := c.closed
	c.mu.Unlock()
	close(c.ended)
	if !closed {
		c.cfg.logger.Warn("mcpclient: session ended; its tools are removed", "err", err)
	}
	c.removeAll()
}

// kick schedules a re-listing, coalescing with one that is pending.
func (c *Client) kick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if !c.ready || c.refreshing {
		c.dirty = true
		return
	}
	c.refreshing = true
	c.wg.Add(1)
	go c.refreshLoop()
}

func (c *Client) refreshLoop() {
	defer c.wg.Done()
	timer := time.NewTimer(c.cfg.refreshDelay)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-c.ctx.Done():
			c.stopRefreshing()
			return
		}
		c.mu.Lock()
		c.dirty = false
		c.mu.Unlock()
		ctx, cancel := c.listContext(c.ctx)
		if err := c.sync(ctx); err != nil && c.ctx.Err() == nil {
			c.cfg.logger.Warn("mcpclient: listing the server's tools failed", "err", err)
		}
		cancel()
		c.mu.Lock()
		if !c.dirty || c.closed {
			c.refreshing = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		timer.Reset(c.cfg.refreshDelay)
	}
}

// listContext bounds one listing by the timeout, if any.
func (c *Client) listContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.cfg.timeout > 0 {
		return context.WithTimeout(ctx, c.cfg.timeout)
	}
	return context.WithCancel(ctx)
}

func (c *Client) stopRefreshing() {
	c.mu.Lock()
	c.refreshing = false
	c.mu.Unlock()
}

// hasEnded reports whether the session has ended; watch then removes the
// tools, and nothing may be registered again.
func (c *Client) hasEnded() bool {
	select {
	case <-c.ended:
		return true
	default:
		return false
	}
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// list reads the server's tools, at most maxTools of them in at most
// maxTools pages. cut reports that the server had more.
func (c *Client) list(ctx context.Context) (tools []*mcp.Tool, cut bool, err error) {
	params := &mcp.ListToolsParams{}
	for pages := 0; ; pages++ {
		if pages == c.cfg.maxTools {
			return tools, true, nil
		}
		res, err := c.session.ListTools(ctx, params)
		if err != nil {
			return tools, false, fmt.Errorf("mcpclient: list tools: %w", err)
		}
		tools = append(tools, res.Tools...)
		if len(tools) > c.cfg.maxTools {
			return tools[:c.cfg.maxTools], true, nil
		}
		if res.NextCursor == "" || res.NextCursor == params.Cursor {
			return tools, false, nil
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}

// candidate is one remote tool ready to register.
type candidate struct {
	remote      string
	fingerprint string
	tool        toolreg.RegisteredTool
}

// sync lists the server's tools and makes the registry hold exactly the
// importable ones.
func (c *Client) sync(ctx context.Context) error {
	remote, cut, err := c.list(ctx)
	if err != nil {
		return err
	}
	want, skipped := c.plan(remote)
	if cut {
		skipped = append(skipped, Skipped{Err: fmt.Errorf("%w: the server lists more than %d tools; the rest are not imported", ErrTooLarge, c.cfg.maxTools)})
	}

	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	if c.isClosed() || c.hasEnded() {
		return nil // a listing that raced with the end registers nothing
	}
	byName := make(map[string]*candidate, len(want))
	for i := range want {
		byName[want[i].tool.Definition.Function.Name] = &want[i]
	}
	for name, cur := range c.tools {
		if w := byName[name]; w == nil || w.fingerprint != cur.fingerprint {
			cur.undo()
			delete(c.tools, name)
		}
	}
	for i := range want {
		w := &want[i]
		name := w.tool.Definition.Function.Name
		if _, ok := c.tools[name]; ok {
			continue
		}
		undo, err := c.scope.Register(w.tool)
		if err != nil {
			skipped = append(skipped, Skipped{Remote: w.remote, Name: name, Err: err})
			continue
		}
		c.tools[name] = &imported{remote: w.remote, fingerprint: w.fingerprint, undo: undo}
	}
	for _, s := range skipped {
		c.cfg.logger.Warn("mcpclient: tool not imported", "remote", s.Remote, "name", s.Name, "err", s.Err)
	}
	view := make([]Tool, 0, len(c.tools))
	for name, t := range c.tools {
		view = append(view, Tool{Name: name, Remote: t.remote})
	}
	slices.SortFunc(view, func(a, b Tool) int { return cmp.Compare(a.Name, b.Name) })
	c.mu.Lock()
	c.view, c.skipped = view, skipped
	c.mu.Unlock()
	return nil
}

// removeAll unregisters every imported tool.
func (c *Client) removeAll() {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	for name, t := range c.tools {
		t.undo()
		delete(c.tools, name)
	}
	c.mu.Lock()
	c.view = nil
	c.mu.Unlock()
}

// wireTool is what of a remote tool the import depends on, for its size
// and its fingerprint.
type wireTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	InputSchema any    `json:"inputSchema"`
}

// plan converts the listed tools, in the order of their remote names, and
// reports those it cannot import.
func (c *Client) plan(remote []*mcp.Tool) ([]candidate, []Skipped) {
	remote = slices.Clone(remote)
	slices.SortStableFunc(remote, func(a, b *mcp.Tool) int { return cmp.Compare(a.Name, b.Name) })
	var want []candidate
	var skipped []Skipped
	taken := map[string]string{} // registry name -> remote name
	seen := map[string]bool{}
	for _, rt := range remote {
		cand, err := c.convert(rt)
		if err == nil && seen[rt.Name] {
			err = fmt.Errorf("%w: the server lists %q more than once", ErrNameClash, rt.Name)
		}
		seen[rt.Name] = true
		if err != nil {
			skipped = append(skipped, Skipped{Remote: rt.Name, Name: cand.tool.Definition.Function.Name, Err: err})
			continue
		}
		if cand.remote == "" {
			continue // left out by WithPrepare
		}
		name := cand.tool.Definition.Function.Name
		if other, ok := taken[name]; ok {
			skipped = append(skipped, Skipped{Remote: rt.Name, Name: name,
				Err: fmt.Errorf("%w: %q is already the name of remote tool %q", ErrNameClash, name, other)})
			continue
		}
		taken[name] = rt.Name
		want = append(want, cand)
	}
	return want, skipped
}

// convert builds the registration of one remote tool. A candidate with an
// empty remote and no error was left out by WithPrepare.
func (c *Client) convert(rt *mcp.Tool) (candidate, error) {
	var cand candidate
	name, ok := localName(c.cfg.prefix, rt.Name)
	if !ok {
		return cand, ErrNoName
	}
	cand.tool.Definition.Function.Name = name
	wire, err := json.Marshal(wireTool{Name: rt.Name, Description: rt.Description, InputSchema: rt.InputSchema})
	if err != nil {
		return cand, fmt.Errorf("%w: the tool cannot be encoded as JSON: %v", ErrUnsupportedSchema, err)
	}
	if len(wire) > c.cfg.maxToolBytes {
		return cand, fmt.Errorf("%w: the tool is %d bytes of JSON, over the bound of %d", ErrTooLarge, len(wire), c.cfg.maxToolBytes)
	}
	var w struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	_ = json.Unmarshal(wire, &w) // wire was just marshaled from the same struct
	params, err := parameters(w.InputSchema, c.cfg.maxDepth)
	if err != nil {
		return cand, err
	}
	cand.tool = toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        name,
			Description: rt.Description,
			Parameters:  params,
		}},
		Handler:    c.forward(rt.Name),
		Risk:       c.cfg.risk,
		Permission: c.cfg.permission,
		Groups:     slices.Clone(c.cfg.groups),
		Timeout:    c.cfg.timeout,
		// Numbers reach the server exactly as the model wrote them: an
		// int64 id beyond 2^53 survives the trip.
		UseNumber: true,
	}
	if c.cfg.prepare != nil && !c.cfg.prepare(rt, &cand.tool) {
		return candidate{}, nil
	}
	cand.remote = rt.Name
	cand.fingerprint = fingerprint(wire, cand.tool)
	return cand, nil
}

// fingerprint identifies a registration: the remote tool as sent and what
// the options and WithPrepare made of it. A tool whose fingerprint changes
// is registered again.
func fingerprint(wire []byte, t toolreg.RegisteredTool) string {
	policy, _ := json.Marshal(struct {
		Name                string
		Visibility, Confirm string
		Risk                string
		Groups              []string
		Timeout             time.Duration
		Permission          string
		Description         string
		Parameters          toolreg.Parameters
	}{t.Definition.Function.Name, string(t.Visibility), string(t.Confirm), string(t.Risk), t.Groups, t.Timeout,
		t.Permission, t.Definition.Function.Description, t.Definition.Function.Parameters})
	return string(wire) + "\x00" + string(policy)
}

// moduleVersion is the version of this module in the running binary, as
// the client's implementation version.
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
