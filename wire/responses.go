package wire

import (
	"encoding/json"

	"github.com/toolreg/toolreg"
)

// ResponsesTool is one element of the "tools" array of an OpenAI Responses
// API request: a function tool, or the hosted tool search
// ({"type":"tool_search"}) that finds deferred functions.
type ResponsesTool struct {
	Type        string          `json:"type"` // "function" or "tool_search"
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// Strict is always written for a function: the Responses API takes a
	// missing strict as true, which most schemas do not satisfy.
	Strict       *bool `json:"strict,omitempty"`
	DeferLoading bool  `json:"defer_loading,omitempty"`
}

// ResponsesTools returns the "tools" array of a Responses API request for
// acc, sorted by name and byte-stable under json.Marshal.
//
// With deferred tools ([WithDeferred]) and the default [Search], every tool
// is sent, the deferred ones with defer_loading, and the hosted tool_search
// comes first; with [SearchClient], deferred tools are sent once discovered
// (see [Adapter.ChatTools]). The slice is returned even when the error is
// not nil; the error then says what could not be offered.
func (a *Adapter) ResponsesTools(acc toolreg.Access, discovered ...string) ([]ResponsesTool, error) {
	tools, p, err := a.offerListed(acc, true, discovered)
	out := make([]ResponsesTool, 0, len(p.order)+1)
	if p.server {
		out = append(out, ResponsesTool{Type: "tool_search"})
	}
	for i, j := range p.order {
		f := tools[j].Function
		strict := f.Strict
		out = append(out, ResponsesTool{
			Type:         "function",
			Name:         f.Name,
			Description:  f.Description,
			Parameters:   strictParameters(f.Parameters, strict),
			Strict:       &strict,
			DeferLoading: p.server && p.deferred[i],
		})
	}
	return out, err
}

// ResponsesCalls reads the function calls of an OpenAI Responses API
// response: the whole response object (its "output" is read) or the output
// items alone, as a JSON array. Items of other types (messages, reasoning,
// hosted tool calls) are skipped. Each call's id is its call_id. Checks and
// errors are those of [Adapter.ChatCalls].
func (a *Adapter) ResponsesCalls(raw []byte) ([]toolreg.ToolCall, error) {
	r, data, err := a.read(formatResponses, raw)
	if err != nil {
		return nil, err
	}
	top, items, err := r.objectOrArray(data)
	if err != nil {
		return nil, err
	}
	if top != nil {
		if err := r.providerError(top, "output"); err != nil {
			return nil, err
		}
		out, ok := top["output"]
		if !ok {
			return nil, r.fail(-1, "", malformed(`expected a response with "output", or its output items`))
		}
		items = out
	}
	var list []struct {
		Type      string          `json:"type"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if isNull(items) {
		return nil, nil
	}
	if err := r.decode(items, &list, "output"); err != nil {
		return nil, err
	}
	for _, it := range list {
		if it.Type != "function_call" {
			continue
		}
		if err := r.add(it.CallID, it.Name, it.Arguments, true); err != nil {
			return nil, err
		}
	}
	return r.calls, nil
}

// ResponsesCallOutput is a Responses API input item answering one function
// call: {"type":"function_call_output","call_id":...,"output":...}. The
// Responses API has no error flag: an error result's output is the
// registry's error JSON.
type ResponsesCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// ResponsesResults returns one function_call_output item per result, in
// order, for the next request's input.
func (a *Adapter) ResponsesResults(results []toolreg.Result) []ResponsesCallOutput {
	out := make([]ResponsesCallOutput, len(results))
	for i, res := range results {
		out[i] = ResponsesCallOutput{Type: "function_call_output", CallID: res.CallID, Output: res.Content}
	}
	return out
}
