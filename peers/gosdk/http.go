package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// endpointPath is where the peer serves MCP over streamable HTTP.
const endpointPath = "/mcp"

// readHeaderTimeout bounds how long a client may take to send its headers.
const readHeaderTimeout = 10 * time.Second

// checkLoopback accepts an address whose host is a loopback IP: the peer is
// a local server and never listens on other interfaces.
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

// serveHTTP serves server over streamable HTTP on the loopback address addr,
// writes the endpoint URL to out as one JSON line once listening, and serves
// until ctx is done; open requests and streams then get grace to finish.
func serveHTTP(ctx context.Context, server *mcp.Server, addr string, grace time.Duration, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}

	opts := &mcp.StreamableHTTPOptions{
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		// Event ids and Last-Event-ID resumption, so that the checks of
		// both have something to certify.
		EventStore: mcp.NewMemoryEventStore(nil),
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
	mux := http.NewServeMux()
	// The SDK validates Host (DNS rebinding) itself but leaves Origin to a
	// wrapping middleware, as its StreamableHTTPOptions.CrossOriginProtection
	// documentation advises.
	mux.Handle(endpointPath, http.NewCrossOriginProtection().Handler(handler))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout}

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
	if err := srv.Shutdown(shutdownCtx); errors.Is(err, context.DeadlineExceeded) {
		// Long-lived SSE streams never go idle: end them.
		return srv.Close()
	} else if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
