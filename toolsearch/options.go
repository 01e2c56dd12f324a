package toolsearch

import (
	"log/slog"
	"math"
)

// Option configures an [Index]; pass options to [New].
type Option func(*config)

type config struct {
	logger       *slog.Logger
	embedder     Embedder
	toolName     string
	defaultLimit int
	maxLimit     int
	offerAll     int
	always       []string
	maxSessions  int
	maxFound     int
	maxQuery     int
	embedBatch   int
	rank         rankConfig
}

// DefaultToolName is the name of the search tool unless [WithToolName] sets
// another.
const DefaultToolName = "search_tools"

// Defaults of the options, as documented on each.
const (
	defaultLimit        = 5
	defaultMaxLimit     = 20
	defaultOfferAll     = 30
	defaultMaxSessions  = 4096
	defaultMaxFound     = 64
	defaultMaxQuery     = 1024
	defaultEmbedBatch   = 64
	defaultSpareVectors = 1024
)

func newConfig(opts []Option) config {
	cfg := config{
		logger:       slog.New(slog.DiscardHandler),
		toolName:     DefaultToolName,
		defaultLimit: defaultLimit,
		maxLimit:     defaultMaxLimit,
		offerAll:     defaultOfferAll,
		maxSessions:  defaultMaxSessions,
		maxFound:     defaultMaxFound,
		maxQuery:     defaultMaxQuery,
		embedBatch:   defaultEmbedBatch,
		rank: rankConfig{
			synonyms: newSynonymTable(defaultSynonyms),
			typos:    true,
		},
	}
	setWeights(&cfg.rank, defaultFieldWeights)
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	cfg.defaultLimit = min(cfg.defaultLimit, cfg.maxLimit)
	return cfg
}

// WithLogger sets the logger of failed embeddings and recovered panics. The
// default discards. A nil l is ignored.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithEmbedder makes the ranking hybrid: the lexical ranking is fused with
// a ranking by the cosine similarity of e's vectors (reciprocal rank
// fusion). See [Embedder]. nil keeps the ranking lexical, the default.
func WithEmbedder(e Embedder) Option {
	return func(c *config) { c.embedder = e }
}

// WithToolName sets the name of the search tool that [Index.Tool] returns
// and [Index.Offer] offers; the default is [DefaultToolName],
// "search_tools". An empty name is ignored.
func WithToolName(name string) Option {
	return func(c *config) {
		if name != "" {
			c.toolName = name
		}
	}
}

// WithLimits sets how many tools the search tool returns when the model
// asks for no number (default 5) and the most it returns whatever the model
// asks for (default 20). Values below 1 are ignored; a default above max is
// lowered to max.
func WithLimits(defaultN, maxN int) Option {
	return func(c *config) {
		if maxN >= 1 {
			c.maxLimit = maxN
		}
		if defaultN >= 1 {
			c.defaultLimit = defaultN
		}
	}
}

// WithOfferAll sets the size of a catalog that [Index.Offer] offers whole:
// when the caller's Access reaches at most n tools (the search tool not
// counted), all of them are offered and the search tool is not. The default
// is 30. A negative n is ignored; 0 always offers the search tool.
func WithOfferAll(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.offerAll = n
		}
	}
}

// WithAlwaysOffered names tools that [Index.Offer] offers on every turn
// besides the search tool and the discovered ones (a host's core tools),
// when the caller's Access reaches them. Repeated calls add to the list.
func WithAlwaysOffered(names ...string) Option {
	return func(c *config) { c.always = append(c.always, names...) }
}

// WithMaxSessions bounds the number of sessions whose discovered tools are
// remembered; past it, the session used least recently is forgotten. The
// default is 4096. Values below 1 are ignored.
func WithMaxSessions(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxSessions = n
		}
	}
}

// WithMaxDiscovered bounds the number of tools remembered as discovered per
// session; past it, the tool discovered least recently is forgotten. The
// default is 64. Values below 1 are ignored.
func WithMaxDiscovered(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxFound = n
		}
	}
}

// WithMaxQueryBytes bounds the part of a query that is read; the rest is
// ignored. The default is 1024 bytes. Values below 1 are ignored. Whatever
// the bound, at most 32 distinct terms of a query count.
func WithMaxQueryBytes(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxQuery = n
		}
	}
}

// WithEmbedBatch bounds the number of texts passed to one
// [Embedder.Embed] call. The default is 64. Values below 1 are ignored.
func WithEmbedBatch(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.embedBatch = n
		}
	}
}

// WithFieldWeights sets how much each part of a definition counts. The
// default weights are name 3, description 1, parameter names 0.5 and
// parameter descriptions 0.4.
func WithFieldWeights(w FieldWeights) Option {
	return func(c *config) { setWeights(&c.rank, w) }
}

func setWeights(rc *rankConfig, w FieldWeights) {
	for f, v := range [numFields]float64{w.Name, w.Description, w.ParameterNames, w.ParameterDescriptions} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		rc.weights[f] = v
	}
}

// WithSynonyms replaces the synonym groups ([DefaultSynonyms]). A query term
// that is a one-word member of a group also matches the other members, at
// half the weight of an exact match. nil or empty turns synonyms off.
func WithSynonyms(groups [][]string) Option {
	return func(c *config) { c.rank.synonyms = newSynonymTable(groups) }
}

// WithTypoTolerance turns the matching of misspelled query terms on (the
// default) or off. A query term of four runes or more that is not in any
// definition matches terms one edit away (an insertion, deletion,
// substitution or swap of adjacent letters), or two in words of eight runes
// or more, at a lower weight.
func WithTypoTolerance(on bool) Option {
	return func(c *config) { c.rank.typos = on }
}
