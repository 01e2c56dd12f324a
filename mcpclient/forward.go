package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// forward returns the handler of an imported tool: it calls the remote tool
// remote with the call's context and arguments.
func (c *Client) forward(remote string) toolreg.Handler {
	return func(ctx context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: remote, Arguments: args})
		if err != nil {
			if ctx.Err() != nil {
				// The registry reports its own timeout or the caller's
				// cancellation from the context.
				return "", ctx.Err()
			}
			return "", fmt.Errorf("remote tool %q could not be called: %s", remote, c.cut(failure(err)))
		}
		text := c.cut(resultText(res))
		if res.IsError {
			if text == "" {
				text = fmt.Sprintf("remote tool %q failed and gave no message", remote)
			}
			return "", errors.New(text)
		}
		return text, nil
	}
}

// failure describes why a call did not reach the tool: a closed connection
// says so plainly, anything else is the SDK's message.
func failure(err error) string {
	if errors.Is(err, mcp.ErrConnectionClosed) {
		return "the connection to the MCP server is closed"
	}
	return err.Error()
}

// resultText renders a tool result as the text a model reads: text blocks
// as they are, an embedded text resource as its text, and a line that names
// the kind, type and size of every other block; blocks are separated by a
// newline. A result with no content but structured content is that
// content's JSON.
func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		if res.StructuredContent != nil {
			if b, err := json.Marshal(res.StructuredContent); err == nil {
				return string(b)
			}
		}
		return ""
	}
	parts := make([]string, 0, len(res.Content))
	for _, block := range res.Content {
		switch b := block.(type) {
		case *mcp.TextContent:
			parts = append(parts, b.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", b.MIMEType, len(b.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", b.MIMEType, len(b.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s]", b.URI))
		case *mcp.EmbeddedResource:
			switch r := b.Resource; {
			case r == nil:
				parts = append(parts, "[embedded resource]")
			case r.Text != "":
				parts = append(parts, r.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", block))
		}
	}
	return strings.Join(parts, "\n")
}

// cut bounds s to the configured size, at a character boundary, noting the
// original size.
func (c *Client) cut(s string) string {
	n := c.cfg.maxResultBytes
	if len(s) <= n {
		return s
	}
	note := fmt.Sprintf("\n[cut: the remote tool returned %d bytes]", len(s))
	n = max(n-len(note), 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + note
}
