package wire

import (
	"github.com/toolreg/toolreg"
)

// Adapter converts between a [toolreg.Registry] and the wire formats of the
// model providers. Create it with [New]; it holds no state besides its
// configuration and is safe for concurrent use.
//
// For each format it has three methods: one listing the tools to offer
// (from [toolreg.Registry.Definitions] only, so an Access decides what is
// ever sent), one reading the tool calls of a response, and one writing the
// results back as that provider's tool-result message.
type Adapter struct {
	reg *toolreg.Registry
	cfg config
}

type config struct {
	limits        Limits
	deferNames    map[string]bool
	deferFunc     func(toolreg.ToolInfo) bool
	search        Search
	searchTool    string
	deferEnabled  bool
	geminiRawJSON bool
}

// Option configures an [Adapter].
type Option func(*config)

// Limits bounds what an [Adapter] accepts from a provider and produces. A
// zero or negative field means its default.
type Limits struct {
	// ResponseBytes bounds the raw response (or message) given to a Calls
	// method. Default 16 MiB.
	ResponseBytes int
	// Calls bounds the tool calls of one response. Default 128.
	Calls int
	// ArgumentBytes bounds the arguments of one call, as JSON text.
	// Default 1 MiB.
	ArgumentBytes int
	// Depth bounds the nesting of one call's arguments (objects and arrays).
	// Default 64.
	Depth int
	// IDBytes bounds a call id. Default 256.
	IDBytes int
	// SchemaDepth bounds the nesting of a schema converted for Gemini, after
	// $ref is inlined. Default 32.
	SchemaDepth int
	// SchemaNodes bounds the number of schema nodes of one tool converted
	// for Gemini, after $ref is inlined (a reference used twice counts
	// twice). Default 4096.
	SchemaNodes int
}

// Default bounds; see [Limits].
const (
	DefaultResponseBytes = 16 << 20
	DefaultCalls         = 128
	DefaultArgumentBytes = 1 << 20
	DefaultDepth         = 64
	DefaultIDBytes       = 256
	DefaultSchemaDepth   = 32
	DefaultSchemaNodes   = 4096
)

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.ResponseBytes, DefaultResponseBytes)
	def(&l.Calls, DefaultCalls)
	def(&l.ArgumentBytes, DefaultArgumentBytes)
	def(&l.Depth, DefaultDepth)
	def(&l.IDBytes, DefaultIDBytes)
	def(&l.SchemaDepth, DefaultSchemaDepth)
	def(&l.SchemaNodes, DefaultSchemaNodes)
	return l
}

// WithLimits sets the bounds of the Adapter. Zero fields keep their
// defaults.
func WithLimits(l Limits) Option {
	return func(c *config) { c.limits = l.withDefaults() }
}

// Search says how deferred tools are found by the model.
type Search string

const (
	// SearchBM25 (the default) uses the provider's own tool search where it
	// has one: on Anthropic, deferred tools carry defer_loading and the
	// tool_search_tool_bm25 server tool is offered; on the OpenAI Responses
	// API, deferred tools carry defer_loading and the hosted tool_search
	// tool is offered. Other formats use client-side search as with
	// [SearchClient].
	SearchBM25 Search = "bm25"
	// SearchRegex is [SearchBM25] with Anthropic's regex variant
	// (tool_search_tool_regex). The Responses API has one kind of hosted
	// search and uses it for both.
	SearchRegex Search = "regex"
	// SearchClient never relies on the provider: every format offers the
	// tools that are not deferred, the search tool (see [WithSearchTool])
	// and the deferred tools the session has discovered.
	SearchClient Search = "client"
)

// DefaultSearchTool is the name of the client-side search tool.
const DefaultSearchTool = "search_tools"

// WithDeferred marks the named tools deferred: they are not offered up
// front but found by the model through tool search (see [Search]). It may be
// given several times, and together with [WithDeferredFunc]: a tool is
// deferred when any of them says so. The search tool itself is never
// deferred.
func WithDeferred(names ...string) Option {
	return func(c *config) {
		if c.deferNames == nil {
			c.deferNames = map[string]bool{}
		}
		for _, n := range names {
			c.deferNames[n] = true
		}
		c.deferEnabled = true
	}
}

// WithDeferredFunc marks deferred every tool for which f returns true (for
// example, every tool of a group, or of a plugin). f is called while a
// listing is built, without any lock held; a panic in f counts as "not
// deferred" and is reported in the listing's error. A nil f is ignored.
func WithDeferredFunc(f func(toolreg.ToolInfo) bool) Option {
	return func(c *config) {
		if f == nil {
			return
		}
		if prev := c.deferFunc; prev != nil {
			c.deferFunc = func(t toolreg.ToolInfo) bool { return prev(t) || f(t) }
		} else {
			c.deferFunc = f
		}
		c.deferEnabled = true
	}
}

// WithSearch chooses how deferred tools are searched; see [Search]. An
// unknown value means [SearchBM25]. It has no effect unless some tools are
// deferred.
func WithSearch(s Search) Option {
	return func(c *config) { c.search = s }
}

// WithSearchTool names the registered tool that searches deferred tools on
// the client side and records what a session discovered (default
// [DefaultSearchTool]). It is offered, never deferred, whenever client-side
// search is in use, and left out when the provider searches on its side.
func WithSearchTool(name string) Option {
	return func(c *config) {
		if name != "" {
			c.searchTool = name
		}
	}
}

// WithGeminiJSONSchema makes [Adapter.GeminiTools] send each tool's schema
// unchanged as parametersJsonSchema (JSON Schema, which recent Gemini models
// accept with $ref and $defs), instead of converting it to the OpenAPI
// subset of the parameters field.
func WithGeminiJSONSchema() Option {
	return func(c *config) { c.geminiRawJSON = true }
}

// New returns an Adapter for reg configured by opts. It starts no goroutine.
// A nil reg yields an Adapter that offers no tools.
func New(reg *toolreg.Registry, opts ...Option) *Adapter {
	cfg := config{limits: Limits{}.withDefaults(), search: SearchBM25, searchTool: DefaultSearchTool}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	switch cfg.search {
	case SearchBM25, SearchRegex, SearchClient:
	default:
		cfg.search = SearchBM25
	}
	return &Adapter{reg: reg, cfg: cfg}
}
