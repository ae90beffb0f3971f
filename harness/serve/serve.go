// Package serve runs mcpconform's reference server (`mcpconform serve`): the
// reference MCP server of package mcp behind the reference streamable HTTP
// server transport, on a loopback address only (HT-05).
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/streamable"
)

func init() { selfexec.Register("serve", Main) }

// Options configure a reference server started with Start.
type Options struct {
	// Addr is the loopback address to listen on; default DefaultAddr.
	Addr string
	// JSONResponse answers requests with application/json instead of SSE.
	JSONResponse bool
	// Stateless serves without sessions.
	Stateless bool
	// Mutant selects a mutant of the server transport; empty is the reference.
	Mutant mutant.Name
}

// DefaultAddr is where the reference server listens unless told otherwise:
// loopback, a port the system picks.
const DefaultAddr = "127.0.0.1:0"

// Start serves the minimal reference server over the streamable HTTP server
// transport in this process. It returns the endpoint URL and a stop function
// that ends every session and stream and waits for the server to finish.
func Start(o Options) (url string, stop func() error, err error) {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	cfg := streamable.DefaultServerConfig(minimalHandler(mcp.NewMinimalServer()))
	cfg.JSONResponse = o.JSONResponse
	cfg.Stateless = o.Stateless
	cfg.Mutant = o.Mutant
	return streamable.Listen(o.Addr, streamable.NewServer(cfg))
}

// minimalHandler puts the minimal server behind the transport, which hands it
// its *streamable.ServerSession as an mcp.SessionInfo.
func minimalHandler(m *mcp.MinimalServer) streamable.Handler {
	return streamable.HandlerFunc(func(ctx context.Context, s *streamable.ServerSession, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
		return m.Handle(ctx, s, req, out)
	})
}

// Main runs `mcpconform serve`; it returns the exit status: 0 after serving
// until SIGINT, SIGTERM or the end of stdin; 2 for a usage error or a server
// that cannot start.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

const usage = `Usage: mcpconform serve [--transport http] [--addr 127.0.0.1:0] [--mutant NAME] [--json-response] [--stateless]

Serves the reference MCP server on a loopback address. Prints {"url":"…"} on
stdout once listening, then serves until SIGINT, SIGTERM or the end of stdin
(keep stdin open to keep it running).
`

// run is Main with its process resources passed in: it serves until ctx ends
// or stdin reaches its end.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "serve:", err)
		return 2
	}
	url, stopServer, err := Start(o)
	if err != nil {
		fmt.Fprintln(stderr, "serve:", err)
		return 2
	}
	line, _ := json.Marshal(struct {
		URL string `json:"url"`
	}{url})
	fmt.Fprintf(stdout, "%s\n", line)
	eof := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		close(eof)
	}()
	select {
	case <-ctx.Done():
	case <-eof:
	}
	if err := stopServer(); err != nil {
		fmt.Fprintln(stderr, "serve: stopping:", err)
		return 2
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	transport := fs.String("transport", "http", "the transport to serve: http (stdio comes with the reference server)")
	fs.StringVar(&o.Addr, "addr", DefaultAddr, "loopback address to listen on; port 0 picks one")
	m := fs.String("mutant", "", "run a mutant of the server transport (see mcpconform selftest)")
	fs.BoolVar(&o.JSONResponse, "json-response", false, "answer requests with application/json instead of SSE")
	fs.BoolVar(&o.Stateless, "stateless", false, "serve without sessions")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q; serve takes flags only (see --help)", fs.Arg(0))
	}
	switch *transport {
	case "http":
	case "stdio":
		return o, errors.New("stdio serving comes with the reference server; use --transport http")
	default:
		return o, fmt.Errorf("unknown transport %q; use --transport http", *transport)
	}
	name, err := mutant.Parse("server", *m)
	if err != nil {
		return o, err
	}
	o.Mutant = name
	return o, nil
}
