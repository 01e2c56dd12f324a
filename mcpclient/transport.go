package mcpclient

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes bounds one message read from an [HTTPTransport].
const DefaultMaxMessageBytes = 16 << 20

// Command returns a transport that runs name with args as a subprocess and
// speaks MCP over its standard input and output, as a desktop MCP host
// does. The subprocess's standard error is discarded; build an
// mcp.CommandTransport yourself to keep it or to set its environment. The
// SDK bounds one message from the subprocess to mcp.DefaultMaxLineLength
// (16 MiB).
func Command(name string, args ...string) *mcp.CommandTransport {
	return &mcp.CommandTransport{Command: exec.Command(name, args...)}
}

// HTTP returns a transport to the streamable HTTP endpoint url, with the
// default client and bounds.
func HTTP(url string) *HTTPTransport { return &HTTPTransport{URL: url} }

// HTTPTransport is a streamable HTTP transport that bounds what it reads:
// every JSON response body and every server-sent event to MaxMessageBytes.
// (The SDK's own transport bounds events but reads JSON bodies whole.)
type HTTPTransport struct {
	URL    string
	Client *http.Client // nil: http.DefaultClient
	// MaxMessageBytes bounds one message; 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int
}

// Connect implements mcp.Transport.
func (t *HTTPTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	limit := t.MaxMessageBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	base := t.Client
	if base == nil {
		base = http.DefaultClient
	}
	hc := *base
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc.Transport = limitedTransport{base: rt, limit: int64(limit)}
	st := &mcp.StreamableClientTransport{Endpoint: t.URL, HTTPClient: &hc, MaxEventSize: limit}
	return st.Connect(ctx)
}

// limitedTransport bounds the body of every response that is not an event
// stream.
type limitedTransport struct {
	base  http.RoundTripper
	limit int64
}

func (l limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body = &limitedBody{r: resp.Body, left: l.limit}
	}
	return resp, nil
}

// errBodyTooLarge ends the read of a response over the bound.
var errBodyTooLarge = errors.New("mcpclient: response body over the message bound")

type limitedBody struct {
	r    io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Tell a body that ends exactly at the bound from a longer one.
		var one [1]byte
		if n, _ := b.r.Read(one[:]); n > 0 {
			return 0, errBodyTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.r.Close() }
