package wire

import (
	"encoding/json"

	"github.com/toolreg/toolreg"
)

// ChatTools returns the "tools" array of an OpenAI chat completions request
// for acc. A [toolreg.Definition] already is that array's element, so
// json.Marshal of the result is the wire format, sorted and byte-stable.
//
// discovered names the deferred tools this session has found through the
// search tool; it matters only when tools are deferred ([WithDeferred]).
// Chat completions has no provider-side tool search, so deferred tools are
// offered only once discovered. The slice is returned even when the error is
// not nil; the error then says what could not be offered.
//
// A strict tool is sent without the vendor keywords of its schema (keys
// that start with "x-", such as x-sensitive), which strict mode refuses;
// other tools are sent as registered. The slice is the caller's, but the
// schemas in it are the registry's: treat them as read-only.
func (a *Adapter) ChatTools(acc toolreg.Access, discovered ...string) ([]toolreg.Definition, error) {
	if a.reg == nil {
		return nil, nil
	}
	defs := a.reg.Definitions(acc)
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Function.Name
	}
	p, err := a.offer(names, false, discovered)
	out := make([]toolreg.Definition, len(p.order))
	for i, j := range p.order {
		out[i] = strictDefinition(defs[j])
	}
	return out, err
}

// chatCall is a tool call of a chat completions message.
type chatCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
	Custom struct {
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"custom"`
}

// ChatCalls reads the tool calls of an OpenAI chat completions response: the
// whole response (its first choice is read) or the assistant message alone
// (choices[0].message, as JSON). The calls come in the message's order, for
// [toolreg.Registry.ExecuteBatch].
//
// Every call needs an id, unique in the response. The arguments string is
// passed on as the model wrote it, for the registry to parse; an object in
// its place (some compatible servers send one) is accepted too. A response
// without tool calls yields none and no error.
//
// A response that is too large, not UTF-8, not JSON, shaped otherwise, the
// provider's error object, or that holds too many calls, too large or too
// deep arguments, or a missing or repeated id, is refused with a
// [*ParseError]. Each call is either fully read or the whole response is
// refused.
func (a *Adapter) ChatCalls(raw []byte) ([]toolreg.ToolCall, error) {
	r, data, err := a.read(formatChat, raw)
	if err != nil {
		return nil, err
	}
	top, _, err := r.objectOrArray(data)
	if err != nil {
		return nil, err
	}
	if top == nil {
		return nil, r.fail(-1, "", malformed("expected a chat completion or a message object, got an array"))
	}
	if err := r.providerError(top, "choices"); err != nil {
		return nil, err
	}
	message := data
	_, isMessage := top["role"]
	_, hasCalls := top["tool_calls"]
	choices, ok := top["choices"]
	if !ok && !isMessage && !hasCalls {
		return nil, r.fail(-1, "", malformed(`expected a chat completion (with "choices") or an assistant message (with "role")`))
	}
	if ok {
		var cs []struct {
			Message json.RawMessage `json:"message"`
		}
		if err := r.decode(choices, &cs, "choices"); err != nil {
			return nil, err
		}
		if len(cs) == 0 || isNull(cs[0].Message) {
			return nil, nil
		}
		message = cs[0].Message
	}
	var m struct {
		ToolCalls []chatCall `json:"tool_calls"`
	}
	if err := r.decode(message, &m, "message"); err != nil {
		return nil, err
	}
	for _, c := range m.ToolCalls {
		name, args := c.Function.Name, c.Function.Arguments
		if c.Type == "custom" {
			name, args = c.Custom.Name, c.Custom.Input
		}
		if err := r.add(c.ID, name, args, true); err != nil {
			return nil, err
		}
	}
	return r.calls, nil
}

// ChatToolMessage is a chat completions message answering one tool call:
// {"role":"tool","tool_call_id":...,"content":...}. Chat completions has no
// error flag: an error result's content is the registry's error JSON,
// which tells the model what went wrong.
type ChatToolMessage struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}

// ChatResults returns one tool message per result, in order, to append to
// the conversation after the assistant message that held the calls.
func (a *Adapter) ChatResults(results []toolreg.Result) []ChatToolMessage {
	out := make([]ChatToolMessage, len(results))
	for i, res := range results {
		out[i] = ChatToolMessage{Role: "tool", ToolCallID: res.CallID, Content: res.Content}
	}
	return out
}
