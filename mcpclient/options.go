package mcpclient

import (
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// Defaults of the bounds; each has an option to change it.
const (
	DefaultPrefix         = "mcp_"
	DefaultTimeout        = time.Minute
	DefaultMaxTools       = 1000
	DefaultMaxToolBytes   = 64 << 10
	DefaultMaxSchemaDepth = 32
	DefaultMaxResultBytes = 1 << 20
	DefaultRefreshDelay   = 100 * time.Millisecond
)

// Option configures a [Client]; see [New].
type Option func(*config)

type config struct {
	prefix         string
	risk           toolreg.Risk
	permission     string
	groups         []string
	timeout        time.Duration
	prepare        func(remote *mcp.Tool, t *toolreg.RegisteredTool) bool
	maxTools       int
	maxToolBytes   int
	maxDepth       int
	maxResultBytes int
	refreshDelay   time.Duration
	logger         *slog.Logger
	impl           *mcp.Implementation
}

func defaults() config {
	return config{
		prefix:         DefaultPrefix,
		timeout:        DefaultTimeout,
		maxTools:       DefaultMaxTools,
		maxToolBytes:   DefaultMaxToolBytes,
		maxDepth:       DefaultMaxSchemaDepth,
		maxResultBytes: DefaultMaxResultBytes,
		refreshDelay:   DefaultRefreshDelay,
		logger:         slog.New(slog.DiscardHandler),
	}
}

// WithPrefix puts p before every remote tool name; the default is
// [DefaultPrefix] ("mcp_"). p may be empty, or up to 32 bytes of
// [A-Za-z0-9_-]; [New] refuses anything else. Choose a prefix per server:
// two clients with the same prefix in one registry may replace each other's
// tools. With an empty prefix a server can name a tool exactly like one of
// yours and replace it, unless the registry was built
// [toolreg.WithRejectDuplicates].
func WithPrefix(p string) Option { return func(c *config) { c.prefix = p } }

// WithRisk declares r on every imported tool, which sets its policy as
// [toolreg.RiskDefaults] says. The default, [toolreg.RiskUnset], leaves
// imported tools public and without confirmation. Tool annotations that the
// server sends (readOnlyHint, destructiveHint) are the server's claims and
// are never used to lower a risk; use [WithPrepare] to set a risk per tool.
func WithRisk(r toolreg.Risk) Option { return func(c *config) { c.risk = r } }

// WithPermission sets [toolreg.RegisteredTool.Permission] of every imported
// tool: what a [toolreg.Permissions] layer requires of a caller.
func WithPermission(p string) Option { return func(c *config) { c.permission = p } }

// WithGroups puts every imported tool in groups (in addition to the groups
// of the scope given to [New]).
func WithGroups(groups ...string) Option {
	return func(c *config) { c.groups = append([]string(nil), groups...) }
}

// WithTimeout bounds one call of an imported tool, and one listing of the
// server's tools. The default is [DefaultTimeout]; zero or less leaves calls
// to the registry's default timeout ([toolreg.WithDefaultTimeout]) and
// listings unbounded, so that a server that never answers holds a call
// until its context ends.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = max(d, 0) } }

// WithPrepare calls fn for every remote tool that passed the checks, with
// the tool as the server sent it (read-only) and the registration about to
// be made. fn may change t (its risk, permission, groups, timeout, even its
// name) and returns false to leave the tool out without reporting it.
// Names are checked for clashes after fn. fn runs during [New] and every
// re-listing, on the goroutine that lists, with no lock of the client held.
func WithPrepare(fn func(remote *mcp.Tool, t *toolreg.RegisteredTool) bool) Option {
	return func(c *config) { c.prepare = fn }
}

// WithMaxTools bounds how many tools one listing imports; the default is
// [DefaultMaxTools]. Tools past the bound are not imported, and the listing
// reports that it was cut. It also bounds the number of pages read. Values
// below 1 keep the default.
func WithMaxTools(n int) Option { return func(c *config) { c.maxTools = positive(n, DefaultMaxTools) } }

// WithMaxToolBytes bounds the JSON size of one remote tool's name,
// description and input schema together; larger tools are skipped and
// reported. The default is [DefaultMaxToolBytes]. Values below 1 keep the
// default.
func WithMaxToolBytes(n int) Option {
	return func(c *config) { c.maxToolBytes = positive(n, DefaultMaxToolBytes) }
}

// WithMaxSchemaDepth bounds how deeply a remote input schema may nest JSON
// objects and arrays; deeper ones are skipped and reported. The default is
// [DefaultMaxSchemaDepth]. Values below 1 keep the default.
func WithMaxSchemaDepth(n int) Option {
	return func(c *config) { c.maxDepth = positive(n, DefaultMaxSchemaDepth) }
}

// WithMaxResultBytes bounds the text an imported tool returns, result or
// error message; longer text is cut at a character boundary and ends with a
// note of the original size. The default is [DefaultMaxResultBytes]. Values
// below 1 keep the default.
func WithMaxResultBytes(n int) Option {
	return func(c *config) { c.maxResultBytes = positive(n, DefaultMaxResultBytes) }
}

// WithRefreshDelay is how long the client waits after the server's
// notifications/tools/list_changed before it lists again, so that a burst of
// notifications costs one listing; at most one listing runs at a time. The
// default is [DefaultRefreshDelay]; zero or less keeps it.
func WithRefreshDelay(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.refreshDelay = d
		}
	}
}

// WithLogger logs skipped tools and failed re-listings through l. The
// default discards. nil keeps the default.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithImplementation is how the client introduces itself to the server; the
// default is {Name: "toolreg", Version: the module's version}.
func WithImplementation(impl *mcp.Implementation) Option {
	return func(c *config) { c.impl = impl }
}

func positive(n, def int) int {
	if n < 1 {
		return def
	}
	return n
}
