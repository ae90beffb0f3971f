// Package peerhost runs one of mcpconform's peer servers: the command line
// the peers share (--transport stdio|http, --addr, --shutdown-grace), the
// loopback HTTP listener that announces {"url":"http://127.0.0.1:PORT/mcp"}
// on stdout, and the end on SIGTERM, SIGINT or EOF on stdin. Each peer is
// its own module; this one has no dependencies, so none of them leaks into
// another.
package peerhost

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

// endpointPath is where a peer serves MCP over streamable HTTP.
const endpointPath = "/mcp"

// readHeaderTimeout bounds how long a client may take to send its headers.
const readHeaderTimeout = 10 * time.Second

// Peer is what a peer server brings: its SDK's two transports.
type Peer struct {
	// Name names the command in messages.
	Name string
	// Stdio serves one session on stdin and stdout until ctx ends or stdin
	// does.
	Stdio func(ctx context.Context) error
	// HTTP returns the streamable HTTP handler served at endpointPath by
	// srv, and what ends its sessions and srv at shutdown (nil means
	// srv.Shutdown).
	HTTP func(srv *http.Server) (http.Handler, func(context.Context) error)
}

// Main parses the command line and serves until the end; it exits the
// process with 0, 1 on a serving error, or 2 on a usage error.
func Main(p Peer) {
	fs := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	transport := fs.String("transport", "stdio", "stdio or http")
	addr := fs.String("addr", "127.0.0.1:0", "http: the loopback address to listen on (port 0 picks a free port)")
	grace := fs.Duration("shutdown-grace", 2*time.Second, "http: how long open requests and streams may take to finish at shutdown")
	if err := fs.Parse(os.Args[1:]); errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	} else if err != nil {
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "%s: unexpected argument %q; it takes flags only (see -h)\n", p.Name, fs.Arg(0))
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var err error
	switch *transport {
	case "stdio":
		err = p.Stdio(ctx)
	case "http":
		if err := checkLoopback(*addr); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", p.Name, err)
			os.Exit(2)
		}
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			// EOF on stdin is the parent's way to say "stop".
			_, _ = io.Copy(io.Discard, os.Stdin)
			cancel()
		}()
		err = serveHTTP(ctx, p, *addr, *grace, os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "%s: --transport %q: use stdio or http\n", p.Name, *transport)
		os.Exit(2)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", p.Name, err)
		os.Exit(1)
	}
}

// checkLoopback accepts an address whose host is a loopback IP: a peer is a
// local server and never listens on other interfaces.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w; use 127.0.0.1:PORT", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--addr %q: the peer listens on a loopback IP only; use 127.0.0.1:PORT", addr)
	}
	return nil
}

// serveHTTP serves the peer's handler on the loopback address addr, writes
// the endpoint URL to out as one JSON line once listening, and serves until
// ctx is done; open requests and streams then get grace to finish.
func serveHTTP(ctx context.Context, p Peer, addr string, grace time.Duration, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	mux := http.NewServeMux()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout}
	handler, shutdown := p.HTTP(srv)
	if shutdown == nil {
		shutdown = srv.Shutdown
	}
	mux.Handle(endpointPath, handler)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	line, err := json.Marshal(struct {
		URL string `json:"url"`
	}{"http://" + ln.Addr().String() + endpointPath})
	if err == nil {
		_, err = fmt.Fprintf(out, "%s\n", line)
	}
	if err != nil {
		srv.Close()
		return fmt.Errorf("announce the URL: %w", err)
	}

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := shutdown(shutdownCtx); errors.Is(err, context.DeadlineExceeded) {
		// Long-lived SSE streams never go idle: end them.
		return srv.Close()
	} else if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// ModuleVersion is the version of module path this build was made with, as
// the build recorded it, or "unknown".
func ModuleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == path {
				return dep.Version
			}
		}
	}
	return "unknown"
}
