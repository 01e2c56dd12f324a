package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolreg/toolreg"
)

// agent runs a tool-calling conversation: it sends the messages and the
// registry's tools to the model, runs the tool calls of each reply through
// the registry, and sends their results back, until the model answers in
// text or maxTurns replies were tool calls.
type agent struct {
	client   openai.Client
	model    string
	reg      *toolreg.Registry
	caller   toolreg.CallContext // who the model acts for; its Access decides the tools
	maxTurns int                 // model replies with tool calls before giving up
	parallel int                 // tool calls of one reply run at most this many at a time
	log      io.Writer           // one line per tool call
}

// errTooManyTurns ends a conversation in which the model keeps calling tools.
var errTooManyTurns = errors.New("the model kept calling tools")

// run answers prompt. The system message sets the assistant's role.
func (a *agent) run(ctx context.Context, system, prompt string) (string, error) {
	messages := []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage(system),
		openai.UserMessage(prompt),
	}
	for range a.maxTurns {
		// The tools are read at every turn: the registry may have changed,
		// and an unchanged one gives the same bytes, which keeps the
		// provider's prompt cache warm.
		tools, err := openAITools(a.reg.Definitions(a.caller.Access))
		if err != nil {
			return "", err
		}
		params := openai.ChatCompletionNewParams{
			Model:    a.model,
			Messages: messages,
			Tools:    tools,
		}
		if len(tools) > 0 {
			params.ParallelToolCalls = openai.Bool(true)
		}
		reply, err := a.client.Chat.Completions.New(ctx, params)
		if apiErr := (*openai.Error)(nil); errors.As(err, &apiErr) && apiErr.Message != "" {
			// The SDK's message leaves out what the endpoint said.
			return "", fmt.Errorf("chat completion: %w: %s", err, apiErr.Message)
		}
		if err != nil {
			return "", fmt.Errorf("chat completion: %w", err)
		}
		if len(reply.Choices) == 0 {
			return "", errors.New("chat completion: the reply has no choices")
		}
		msg := reply.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			if msg.Refusal != "" {
				return "", fmt.Errorf("the model refused: %s", msg.Refusal)
			}
			return msg.Content, nil
		}
		messages = append(messages, msg.ToParam())
		for _, r := range a.runCalls(ctx, msg.ToolCalls) {
			messages = append(messages, openai.ToolMessage(r.Content, r.CallID))
		}
	}
	return "", fmt.Errorf("%w %d times; stopping", errTooManyTurns, a.maxTurns)
}

// runCalls runs one reply's tool calls through the registry, in parallel,
// and returns one result per call, in the model's order, each with its
// call's id.
func (a *agent) runCalls(ctx context.Context, toolCalls []openai.ChatCompletionMessageToolCallUnion) []toolreg.Result {
	results := make([]toolreg.Result, len(toolCalls))
	calls := make([]toolreg.ToolCall, 0, len(toolCalls))
	at := make([]int, 0, len(toolCalls)) // where each of calls goes in results
	for i, tc := range toolCalls {
		if tc.Type != "function" { // a custom tool: the registry holds functions only
			results[i] = toolreg.Result{CallID: tc.ID, Code: toolreg.CodeNotFound,
				Content: fmt.Sprintf(`{"error":"tool calls of type %q are not supported","code":"not_found"}`, tc.Type)}
			continue
		}
		calls = append(calls, toolreg.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		at = append(at, i)
	}
	for j, r := range a.reg.ExecuteBatch(ctx, calls, a.caller, toolreg.BatchOptions{Parallelism: a.parallel}) {
		results[at[j]] = r
	}
	for _, r := range results {
		status := "ok"
		if r.IsError() {
			status = r.Code
		}
		fmt.Fprintf(a.log, "tool %s [%s] %s: %s\n", r.Tool, r.CallID, status, r.Content)
	}
	return results
}

// openAITools converts the registry's definitions to the SDK's tool params.
func openAITools(defs []toolreg.Definition) ([]openai.ChatCompletionToolUnionParam, error) {
	tools := make([]openai.ChatCompletionToolUnionParam, 0, len(defs))
	for _, d := range defs {
		b, err := json.Marshal(d.Function.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", d.Function.Name, err)
		}
		var params shared.FunctionParameters
		if err := json.Unmarshal(b, &params); err != nil {
			return nil, fmt.Errorf("tool %q: %w", d.Function.Name, err)
		}
		fn := shared.FunctionDefinitionParam{
			Name:        d.Function.Name,
			Description: openai.String(d.Function.Description),
			Parameters:  params,
		}
		if d.Function.Strict {
			fn.Strict = openai.Bool(true)
		}
		tools = append(tools, openai.ChatCompletionFunctionTool(fn))
	}
	return tools, nil
}
