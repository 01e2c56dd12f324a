// Package toolsearch lets a model find tools in a catalog too large to offer
// whole. An [Index] ranks the tools of a [toolreg.Registry] against a query
// within what the caller's [toolreg.Access] reaches; [Index.Tool] is a ready
// search_tools tool that returns the matches' full definitions and records
// them as discovered for the session; [Index.Offer] decides what to send the
// model on each turn.
//
//	ix := toolsearch.New(reg)
//	if _, err := reg.Register(ix.Tool(), "toolsearch"); err != nil { ... }
//	// each turn:
//	tools := ix.OfferJSON(sessionID, access) // search_tools + discovered tools, sorted
//	// the model calls search_tools like any tool:
//	res := reg.CallJSON(ctx, "search_tools", `{"query":"create github issue"}`,
//		toolreg.CallContext{SessionID: sessionID, Access: access})
//
// # Ranking
//
// A tool is read as four fields: its name, its description, its parameter
// names and its parameter descriptions. Text is split into words at spaces,
// punctuation, "_", "-", case changes ("listPullRequests") and between
// letters and digits ("ec2"); words are lower-cased and reduced to a stem
// ("issues", "issue"), and common English words are dropped. The ranking is
// BM25F: each field has a weight ([WithFieldWeights]; the name counts most)
// and a length normalization, and a tool whose whole name the query covers
// ranks higher. A query word also matches its synonyms ([DefaultSynonyms],
// [WithSynonyms]), words one or two typos away ([WithTypoTolerance]) and
// longer words it begins ("repo", "repository"), each at a lower weight
// than an exact match.
//
// With an [Embedder] ([WithEmbedder]) the ranking is hybrid: tools are also
// ranked by the cosine similarity of their vectors to the query's, and the
// two rankings are fused by reciprocal rank. Vectors are computed once per
// definition (a tool is embedded again only when its definition changes)
// and never while a lock is held. The library ships no model.
//
// # Access
//
// Every search is limited to the tools [toolreg.Registry.Definitions] lists
// for the caller's Access, read at the time of the search, so search never
// reveals a tool the caller could not call; the search tool reads
// [toolreg.CallContext.Access]. The index itself holds every tool the
// registry can run.
//
// # Keeping up with the registry
//
// The index compares the registry's [toolreg.Registry.Version] at each
// search. When it changed, [toolreg.Registry.ChangedSince] names the tools
// that changed, and only those whose content (by hash) differs are indexed
// again, in time proportional to the change. When the registry no longer
// remembers every change since the index's version, the index reads every
// tool once and still re-indexes only those whose content changed.
// [Index.Refresh] does it at once, [Index.Embed] computes missing vectors at
// once.
//
// # Sessions and the prompt cache
//
// The search tool records what it returns as discovered in the caller's
// session. [Index.Offer] offers every tool while the Access reaches at most
// [WithOfferAll] tools; past that, it offers the search tool, the
// [WithAlwaysOffered] tools and the session's discovered tools, sorted by
// name. The offered list, and its JSON, stay byte-identical between turns
// until a new tool is discovered, so a provider's prompt cache keeps its
// prefix.
//
// # Bounds
//
// Queries are read up to [WithMaxQueryBytes] (1024 bytes) and 32 distinct
// terms; a search returns at most the maximum of [WithLimits] (20); a
// session remembers at most [WithMaxDiscovered] tools (64) and at most
// [WithMaxSessions] sessions (4096) are remembered, the least recently used
// forgotten first; each indexed field is read up to 8 KiB and each embedded
// text up to 2 KiB; vectors of removed tools are kept for at most 1024
// definitions.
//
// # Concurrency
//
// Every method of [Index] is safe for concurrent use. Searches share a read
// lock; re-indexing takes the write lock; the embedder, and the layers of
// an Access, are called with no lock of the index held.
package toolsearch
