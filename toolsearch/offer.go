package toolsearch

import (
	"encoding/json"
	"slices"

	"github.com/toolreg/toolreg"
)

// Offer returns the definitions to send to the model on this turn of
// session sessionID, sorted by name:
//
//   - every tool access reaches, when there are at most [WithOfferAll]
//     of them (30), not counting the search tool, which is then left out;
//   - otherwise the search tool, the tools named by [WithAlwaysOffered] and
//     the tools the session discovered ([Index.Discover], the search tool).
//
// Only tools that [toolreg.Registry.Definitions] with access lists are
// ever offered: register [Index.Tool] in the registry, where access reaches
// it, for the model to be able to search. Because the list is sorted and
// built from the registry's definitions, it is byte-for-byte the same on
// every turn until the session discovers a new tool or the registry
// changes, so a provider's prompt cache keeps its prefix.
//
// The result may share memory with the registry: treat it as read-only.
func (ix *Index) Offer(sessionID string, access toolreg.Access) []toolreg.Definition {
	defs, _ := ix.offer(sessionID, access)
	return defs
}

// OfferJSON returns json.Marshal(ix.Offer(sessionID, access)): the request's
// "tools" array, "[]" when empty. Do not modify it.
func (ix *Index) OfferJSON(sessionID string, access toolreg.Access) []byte {
	defs, whole := ix.offer(sessionID, access)
	if whole {
		return ix.reg.DefinitionsJSON(access)
	}
	b, err := json.Marshal(defs)
	if err != nil {
		// The registry encoded every definition at Register; a failure here
		// would be a bug, and an empty offer is the safe answer.
		ix.cfg.logger.Error("toolsearch: encoding the offered tools failed", "err", err)
		return []byte("[]")
	}
	return b
}

// offer computes Offer's list, and reports whether it is exactly the
// registry's listing of access.
func (ix *Index) offer(sessionID string, access toolreg.Access) (defs []toolreg.Definition, whole bool) {
	all := ix.reg.Definitions(access)
	_, hasSearch := find(all, ix.cfg.toolName)
	n := len(all)
	if hasSearch {
		n--
	}
	if n <= ix.cfg.offerAll {
		if !hasSearch {
			return all, true
		}
		out := make([]toolreg.Definition, 0, n)
		for _, d := range all {
			if d.Function.Name != ix.cfg.toolName {
				out = append(out, d)
			}
		}
		return out, false
	}
	want := append([]string{ix.cfg.toolName}, ix.cfg.always...)
	want = append(want, ix.Discovered(sessionID)...)
	slices.Sort(want)
	want = slices.Compact(want)
	out := make([]toolreg.Definition, 0, len(want))
	for _, name := range want {
		if d, ok := find(all, name); ok {
			out = append(out, d)
		}
	}
	return out, false
}
