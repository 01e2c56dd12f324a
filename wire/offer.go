package wire

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolreg/toolreg"
)

// listed is one tool as the registry lists it, with its schema as JSON: the
// registry encodes each tool once, so reading the encoded listing costs far
// less than encoding the schemas again.
type listed struct {
	Function struct {
		Name        string          `json:"name"`
		Strict      bool            `json:"strict"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// listing returns what acc reaches, as the registry encodes it.
func (a *Adapter) listing(acc toolreg.Access) ([]listed, error) {
	if a.reg == nil {
		return nil, nil
	}
	var out []listed
	if err := json.Unmarshal(a.reg.DefinitionsJSON(acc), &out); err != nil {
		return nil, fmt.Errorf("wire: reading the registry's definitions: %w", err)
	}
	return out, nil
}

// plan is the outcome of offer: which of the listed tools to send, in
// order, and whether to add the provider's search tool.
type plan struct {
	order    []int  // indexes into the listing
	deferred []bool // parallel to order; set only when server is
	server   bool   // send the provider's search tool, and mark deferred tools
}

// offer decides what to send out of names, the tools the Access reaches in
// name order (a tool the Access does not reach is not among them, so it is
// never sent, deferred or not). serverSearch says whether the format has a
// provider-side tool search.
//
// Without deferred tools, everything is sent as listed. With provider-side
// search, everything is sent and the deferred tools are marked. Otherwise
// the tools that are not deferred (the search tool among them) come first,
// in name order, then the deferred tools named in discovered, in name
// order: discovering a tool never changes the bytes before it.
func (a *Adapter) offer(names []string, serverSearch bool, discovered []string) (plan, error) {
	var p plan
	if !a.cfg.deferEnabled {
		p.order = make([]int, len(names))
		for i := range names {
			p.order[i] = i
		}
		return p, nil
	}
	var errs []error
	deferred := make([]bool, len(names))
	searchAt, hidden := -1, 0
	for i, name := range names {
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
		p.server = true
		for i := range names {
			if i == searchAt {
				continue // the provider searches; the client-side tool would compete with it
			}
			p.order = append(p.order, i)
			p.deferred = append(p.deferred, deferred[i])
		}
		return p, errors.Join(errs...)
	}

	known := make(map[string]bool, len(discovered))
	for _, n := range discovered {
		known[n] = true
	}
	var found []int
	for i, name := range names {
		switch {
		case !deferred[i]:
			p.order = append(p.order, i)
		case known[name]:
			found = append(found, i)
			hidden--
		}
	}
	p.order = append(p.order, found...)
	if hidden > 0 && searchAt < 0 {
		errs = append(errs, fmt.Errorf("wire: %d deferred tools cannot be found: %w: %q is not registered or not reached by this Access",
			hidden, ErrNoSearchTool, a.cfg.searchTool))
	}
	return p, errors.Join(errs...)
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

// offerListed lists acc and applies offer to it.
func (a *Adapter) offerListed(acc toolreg.Access, serverSearch bool, discovered []string) ([]listed, plan, error) {
	tools, err := a.listing(acc)
	if err != nil {
		return nil, plan{}, err
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Function.Name
	}
	p, err := a.offer(names, serverSearch, discovered)
	return tools, p, err
}
