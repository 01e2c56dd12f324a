package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// startStdio runs the server in process on pipes, as a host runs the
// binary on its stdin and stdout, and connects the SDK's client to it. The
// returned func disconnects and returns run's error.
func startStdio(t *testing.T, args ...string) (*mcp.ClientSession, func() error) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(t.Context(), args, inR, outW, io.Discard) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err)
	return cs, func() error {
		cs.Close()
		select {
		case err := <-done:
			left, _ := os.ReadDir(tmp)
			assert.Empty(t, left, "the temporary folder is removed at exit")
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not stop when the client disconnected")
			return nil
		}
	}
}

func names(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// call returns the text of a tool result and its error flag.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func code(t *testing.T, text string) string {
	t.Helper()
	var f struct{ Code string }
	require.NoError(t, json.Unmarshal([]byte(text), &f), text)
	return f.Code
}

func TestStdioServesTheQuickstartTools(t *testing.T) {
	cs, stop := startStdio(t)
	assert.Equal(t, []string{"add", "flaky_tool", "web_search"}, names(t, cs))

	text, isErr := call(t, cs, "add", map[string]any{"a": 2, "b": 3})
	assert.Equal(t, "5", text)
	assert.False(t, isErr)

	text, isErr = call(t, cs, "add", map[string]any{"a": 2})
	assert.True(t, isErr)
	assert.Equal(t, "invalid_arguments", code(t, text))

	text, isErr = call(t, cs, "flaky_tool", nil)
	assert.True(t, isErr)
	assert.Equal(t, "panic", code(t, text))

	text, _ = call(t, cs, "web_search", map[string]any{"query": "golang"})
	assert.Contains(t, text, `"query":"golang"`)

	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "notes.txt"}})
	var we *jsonrpc.Error
	require.True(t, errors.As(err, &we), "a restricted tool is not served: %v", err)
	assert.Equal(t, `unknown tool "read_file"`, we.Message)

	require.NoError(t, stop())
}

func TestRestrictedToolsWhenAsked(t *testing.T) {
	cs, stop := startStdio(t, "-restricted", "-groups", "")
	assert.Equal(t, []string{"add", "delete_file", "flaky_tool", "read_file"}, names(t, cs))
	text, isErr := call(t, cs, "read_file", map[string]any{"path": "notes.txt"})
	assert.Equal(t, "Buy milk. Water the plants.", text)
	assert.False(t, isErr)
	text, isErr = call(t, cs, "read_file", map[string]any{"path": "../../etc/passwd"})
	assert.True(t, isErr)
	assert.Equal(t, "tool_error", code(t, text))
	text, _ = call(t, cs, "delete_file", map[string]any{"path": "draft.txt"})
	assert.Equal(t, "deleted draft.txt", text)
	require.NoError(t, stop())
}

func TestStreamableHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-http", "127.0.0.1:0"}, io.NopCloser(strings.NewReader("")), nopWriteCloser{io.Discard}, errW)
		errW.Close()
	}()
	line, err := bufio.NewReader(errR).ReadString('\n')
	require.NoError(t, err)
	go io.Copy(io.Discard, errR)
	url := strings.TrimSpace(line[strings.Index(line, "http://"):])
	assert.True(t, strings.HasSuffix(url, "/mcp"), url)

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"add", "flaky_tool", "web_search"}, names(t, cs))
	text, _ := call(t, cs, "add", map[string]any{"a": 1.5, "b": 2})
	assert.Equal(t, "3.5", text)
	cs.Close()

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the HTTP server did not stop")
	}
}

// TestTheBinary builds the command and runs it as a subprocess, as Claude
// Desktop or the MCP Inspector do.
func TestTheBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcp-server")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: exec.Command(bin)}, nil)
	require.NoError(t, err)
	assert.Equal(t, "toolreg-example", cs.InitializeResult().ServerInfo.Name)
	assert.Equal(t, []string{"add", "flaky_tool", "web_search"}, names(t, cs))
	text, _ := call(t, cs, "add", map[string]any{"a": 2, "b": 3})
	assert.Equal(t, "5", text)
	require.NoError(t, cs.Close())
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-dir", "/nonexistent/folder"}, {"-http", "not an address"}} {
		err := run(t.Context(), args, io.NopCloser(strings.NewReader("")), nopWriteCloser{io.Discard}, io.Discard)
		assert.Error(t, err, "%q", args)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
