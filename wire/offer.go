package wire

import (
	"errors"
	"fmt"

	"github.com/toolreg/toolreg"
)

// offered is what one listing sends: the definitions in order and, when
// the provider searches on its side, which of them are deferred.
type offered struct {
	defs     []toolreg.Definition
	deferred []bool // parallel to defs; nil unless server is set
	server   bool   // send the provider's search tool
}

// offer decides what to send to acc. Every definition comes from
// Definitions(acc), so a tool the Access does not reach is never sent,
// deferred or not. serverSearch says whether the format has a provider-side
// tool search.
//
// Without deferred tools this is Definitions(acc) as is. With provider-side
// search, every tool is sent and the deferred ones are marked. Otherwise the
// tools that are not deferred (the search tool among them) come first, in
// name order, then the deferred tools named in discovered, in name order:
// discovering a tool never changes the bytes before it.
func (a *Adapter) offer(acc toolreg.Access, serverSearch bool, discovered []string) (offered, error) {
	if a.reg == nil {
		return offered{}, nil
	}
	defs := a.reg.Definitions(acc)
	if !a.cfg.deferEnabled {
		return offered{defs: defs}, nil
	}
	var errs []error
	deferred := make([]bool, len(defs))
	searchAt, hidden := -1, 0
	for i, d := range defs {
		name := d.Function.Name
		if name == a.cfg.searchTool {
			searchAt = i
			continue
		}
		var err error
		deferred[i], err = a.isDeferred(name)
		if err != nil {
			errs = append(errs, err)
		}
		if deferred[i] {
			hidden++
		}
	}

	if serverSearch && a.cfg.search != SearchClient && hidden > 0 {
		out := offered{server: true}
		for i, d := range defs {
			if i == searchAt {
				continue // the provider searches; the client-side tool would compete with it
			}
			out.defs = append(out.defs, d)
			out.deferred = append(out.deferred, deferred[i])
		}
		return out, errors.Join(errs...)
	}

	known := make(map[string]bool, len(discovered))
	for _, n := range discovered {
		known[n] = true
	}
	var base, found []toolreg.Definition
	for i, d := range defs {
		switch {
		case !deferred[i]:
			base = append(base, d)
		case known[d.Function.Name]:
			found = append(found, d)
			hidden--
		}
	}
	if hidden > 0 && searchAt < 0 {
		errs = append(errs, fmt.Errorf("wire: %d deferred tools cannot be found: %w: %q is not registered or not reached by this Access",
			hidden, ErrNoSearchTool, a.cfg.searchTool))
	}
	return offered{defs: append(base, found...)}, errors.Join(errs...)
}

// isDeferred applies WithDeferred and WithDeferredFunc to one tool.
func (a *Adapter) isDeferred(name string) (deferred bool, err error) {
	if a.cfg.deferNames[name] {
		return true, nil
	}
	if a.cfg.deferFunc == nil {
		return false, nil
	}
	info, ok := a.reg.Lookup(name)
	if !ok {
		return false, nil
	}
	defer func() {
		if v := recover(); v != nil {
			deferred, err = false, fmt.Errorf("wire: deferred predicate panicked for tool %q: %v", name, v)
		}
	}()
	return a.cfg.deferFunc(info), nil
}
