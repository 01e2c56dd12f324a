package wire

import (
	"encoding/json"

	"github.com/toolreg/toolreg"
)

// Anthropic's tool-search server tools.
const (
	anthropicBM25Type  = "tool_search_tool_bm25_20251119"
	anthropicBM25Name  = "tool_search_tool_bm25"
	anthropicRegexType = "tool_search_tool_regex_20251119"
	anthropicRegexName = "tool_search_tool_regex"
)

// AnthropicTool is one element of the "tools" array of an Anthropic Messages
// request: a tool of the registry (Type empty, with InputSchema) or the
// tool-search server tool that finds deferred tools.
type AnthropicTool struct {
	Type         string          `json:"type,omitempty"` // "" for a registry tool, else the server tool's type
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	Strict       bool            `json:"strict,omitempty"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

// AnthropicTools returns the "tools" array of an Anthropic Messages request
// for acc, sorted by name and byte-stable under json.Marshal. Each tool's
// input_schema is its parameters schema as registered ($defs and $ref
// included, which Anthropic accepts), without vendor keywords for a strict
// tool (see [Adapter.ChatTools]).
//
// With deferred tools ([WithDeferred]) and the default [Search], every tool
// is sent, the deferred ones with defer_loading, and the server tool
// tool_search_tool_bm25 (or tool_search_tool_regex with [SearchRegex])
// comes first; with [SearchClient], deferred tools are sent once discovered
// (see [Adapter.ChatTools]). The slice is returned even when the error is
// not nil; the error then says what could not be offered.
func (a *Adapter) AnthropicTools(acc toolreg.Access, discovered ...string) ([]AnthropicTool, error) {
	tools, p, err := a.offerListed(acc, true, discovered)
	out := make([]AnthropicTool, 0, len(p.order)+1)
	if p.server {
		if a.cfg.search == SearchRegex {
			out = append(out, AnthropicTool{Type: anthropicRegexType, Name: anthropicRegexName})
		} else {
			out = append(out, AnthropicTool{Type: anthropicBM25Type, Name: anthropicBM25Name})
		}
	}
	for i, j := range p.order {
		f := tools[j].Function
		out = append(out, AnthropicTool{
			Name:         f.Name,
			Description:  f.Description,
			InputSchema:  strictParameters(f.Parameters, f.Strict),
			Strict:       f.Strict,
			DeferLoading: p.server && p.deferred[i],
		})
	}
	return out, err
}

// AnthropicCalls reads the tool_use blocks of an Anthropic Messages
// response: the message object (its "content" is read) or the content blocks
// alone, as a JSON array. Blocks of other types (text, thinking, server
// tool use and its results, types added later) are skipped. The input
// object is passed on as compact JSON text, its numbers exactly as sent.
// Checks and errors are those of [Adapter.ChatCalls].
func (a *Adapter) AnthropicCalls(raw []byte) ([]toolreg.ToolCall, error) {
	r, data, err := a.read(formatAnthropic, raw)
	if err != nil {
		return nil, err
	}
	top, blocks, err := r.objectOrArray(data)
	if err != nil {
		return nil, err
	}
	if top != nil {
		if err := r.providerError(top, "content"); err != nil {
			return nil, err
		}
		content, ok := top["content"]
		if !ok {
			return nil, r.fail(-1, "", malformed(`expected a message with "content", or its content blocks`))
		}
		blocks = content
	}
	if isNull(blocks) {
		return nil, nil
	}
	var list []struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	if err := r.decode(blocks, &list, "content"); err != nil {
		return nil, err
	}
	for _, b := range list {
		if b.Type != "tool_use" {
			continue
		}
		if err := r.add(b.ID, b.Name, b.Input, true); err != nil {
			return nil, err
		}
	}
	return r.calls, nil
}

// AnthropicMessage is the user message that answers a turn's tool calls:
// one tool_result block per call, which Anthropic wants together and first.
type AnthropicMessage struct {
	Role    string                `json:"role"` // "user"
	Content []AnthropicToolResult `json:"content"`
}

// AnthropicToolResult is a tool_result content block. IsError is set for
// every result with an error code, so the model knows the call failed.
type AnthropicToolResult struct {
	Type      string          `json:"type"` // "tool_result"
	ToolUseID string          `json:"tool_use_id"`
	Content   []AnthropicText `json:"content,omitempty"` // one text block; none for an empty result
	IsError   bool            `json:"is_error,omitempty"`
}

// AnthropicText is a text content block.
type AnthropicText struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

// AnthropicResults returns the user message holding one tool_result per
// result, in order. An empty result has no content block, since Anthropic
// refuses empty text blocks.
func (a *Adapter) AnthropicResults(results []toolreg.Result) AnthropicMessage {
	msg := AnthropicMessage{Role: "user", Content: make([]AnthropicToolResult, len(results))}
	for i, res := range results {
		tr := AnthropicToolResult{Type: "tool_result", ToolUseID: res.CallID, IsError: res.IsError()}
		if res.Content != "" {
			tr.Content = []AnthropicText{{Type: "text", Text: res.Content}}
		}
		msg.Content[i] = tr
	}
	return msg
}
