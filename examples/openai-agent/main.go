// Command openai-agent is a complete tool-calling loop with the official
// OpenAI Go SDK (github.com/openai/openai-go/v3) and a toolreg registry.
//
// It registers two typed tools, asks the model a question, runs every tool
// call of each reply through the registry (in parallel when the model makes
// several), sends the results back with their tool_call_ids, and prints the
// model's answer. It works with any endpoint that speaks the OpenAI chat
// completions API: OpenAI itself, or a local server (Ollama, vLLM,
// llama.cpp, ...).
//
// The example is a module of its own (openai-go needs Go 1.26; toolreg
// itself does not), so run it from its directory:
//
//	cd examples/openai-agent
//	export OPENAI_API_KEY=sk-...                        # any value for a local server that needs none
//	export OPENAI_BASE_URL=http://localhost:11434/v1    # optional; default https://api.openai.com/v1
//	go run . -model gpt-4.1-mini
//	go run . -model llama3.1 -prompt "Is it snowing in Oslo?"
//
// or from the repository root with go -C examples/openai-agent run .
//
// Without OPENAI_API_KEY it says what to set and exits with status 2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolreg/toolreg"
)

const (
	defaultPrompt = "What is the weather in Oslo, in fahrenheit? And what is the status of order 9007199254740993? " +
		"Then tell me about Atlantis too."
	systemPrompt = "You are a concise shop assistant. Use the tools for facts; never guess them. " +
		"When a tool fails, say so briefly."
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, nil, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the program: it parses args, reads OPENAI_API_KEY and
// OPENAI_BASE_URL through getenv, talks to the model over httpClient (the
// SDK's default when nil), writes the answer to stdout and the tool calls and
// problems to stderr, and returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, httpClient *http.Client, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("openai-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "gpt-4.1-mini", "the model to ask")
	prompt := fs.String("prompt", defaultPrompt, "the question")
	maxTurns := fs.Int("max-turns", 8, "model replies with tool calls before giving up")
	timeout := fs.Duration("timeout", 2*time.Minute, "bound on the whole conversation")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	key := getenv("OPENAI_API_KEY")
	if key == "" {
		fmt.Fprint(stderr, `openai-agent: OPENAI_API_KEY is not set.

Set it to your OpenAI API key, or to any value when OPENAI_BASE_URL points to
a local OpenAI-compatible server that needs no key. In examples/openai-agent:

	OPENAI_API_KEY=sk-... go run . -model gpt-4.1-mini
	OPENAI_API_KEY=none OPENAI_BASE_URL=http://localhost:11434/v1 go run . -model llama3.1

To see the loop without a model, run its test there: go test .
`)
		return 2
	}
	if *maxTurns < 1 {
		fmt.Fprintln(stderr, "openai-agent: -max-turns must be at least 1")
		return 2
	}

	opts := []option.RequestOption{option.WithAPIKey(key)}
	if base := getenv("OPENAI_BASE_URL"); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	if httpClient != nil {
		opts = append(opts, option.WithHTTPClient(httpClient))
	}

	// Bound each call and what it may add to the conversation.
	reg := toolreg.New(toolreg.WithDefaultTimeout(30*time.Second), toolreg.WithMaxResultBytes(16<<10))
	if err := registerTools(reg); err != nil {
		fmt.Fprintln(stderr, "openai-agent:", err)
		return 1
	}
	a := &agent{
		client:   openai.NewClient(opts...),
		model:    *model,
		reg:      reg,
		caller:   toolreg.CallContext{SessionID: "openai-agent", Platform: "cli"},
		maxTurns: *maxTurns,
		parallel: 4,
		log:      stderr,
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	answer, err := a.run(ctx, systemPrompt, *prompt)
	if err != nil {
		fmt.Fprintln(stderr, "openai-agent:", err)
		if errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintln(stderr, "openai-agent: raise -timeout for a slow model")
		}
		return 1
	}
	fmt.Fprintln(stdout, answer)
	return 0
}
