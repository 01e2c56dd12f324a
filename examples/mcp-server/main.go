// Command mcp-server serves the quickstart's tools over the Model Context
// Protocol, so that Claude Desktop, an IDE, the MCP Inspector or any other
// MCP client can list and call them through a toolreg registry.
//
// Over standard input and output (the default), as a desktop host runs it:
//
//	go run ./examples/mcp-server
//
// Over streamable HTTP:
//
//	go run ./examples/mcp-server -http localhost:8080   # then connect to http://localhost:8080/mcp
//
// The server offers add, web_search (group "web") and flaky_tool, which
// panics on purpose. read_file and delete_file are restricted tools and are
// served only with -restricted; they work in a temporary folder holding two
// notes (or in -dir), which the server removes when it exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/mcpserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server:", err)
		os.Exit(1)
	}
}

// run serves until the client disconnects (stdio) or ctx is done. Standard
// output belongs to the protocol over stdio, so everything else goes to
// stderr.
func run(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	flags := flag.NewFlagSet("mcp-server", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("http", "", "serve streamable HTTP at `address` (for example localhost:8080) instead of stdio")
	groups := flags.String("groups", "web", "comma-separated tool `groups` to serve; \"*\" serves all, \"\" only ungrouped tools")
	restricted := flags.Bool("restricted", false, "also serve the restricted tools read_file and delete_file")
	dir := flags.String("dir", "", "`folder` of the file tools (default: a temporary folder with two notes, removed at exit)")
	verbose := flags.Bool("v", false, "log calls and refusals to standard error")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", flags.Args())
	}

	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	folder, err := openFolder(*dir)
	if err != nil {
		return err
	}
	defer folder.Close()

	reg := toolreg.New(toolreg.WithLogger(logger))
	if err := registerBasics(reg.Scope("basics"), folder); err != nil {
		return err
	}
	if err := registerWeb(reg.Scope("web")); err != nil {
		return err
	}

	opts := []mcpserver.Option{
		mcpserver.WithAccess(toolreg.Access{Groups: splitList(*groups)}),
		mcpserver.WithImplementation(&mcp.Implementation{Name: "toolreg-example", Version: "1.0.0"}),
		mcpserver.WithLogger(logger),
	}
	if *restricted {
		opts = append(opts, mcpserver.WithRestricted())
	}
	srv, err := mcpserver.New(reg, opts...)
	if err != nil {
		return err
	}
	defer srv.Close()

	if *addr == "" {
		err := srv.Run(ctx, &mcp.IOTransport{Reader: stdin, Writer: stdout})
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	return serveHTTP(ctx, *addr, srv, stderr)
}

// serveHTTP serves srv at addr under /mcp until ctx is done.
func serveHTTP(ctx context.Context, addr string, srv *mcpserver.Server, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(nil))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "serving MCP over streamable HTTP at http://%s/mcp\n", ln.Addr())

	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		srv.Close() // ends the sessions, and with them their event streams
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(shutdown); err != nil {
			hs.Close()
		}
		stopped <- nil
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return <-stopped
}

// splitList splits a comma-separated flag value; "" is an empty list.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
