// Command mcpgo-server is a small MCP server written with
// github.com/mark3labs/mcp-go, kept as a real peer for mcpconform to certify.
//
// Over stdio (--transport stdio) it serves one session on stdin/stdout with
// the SDK's StdioServer. Over streamable HTTP (--transport http) it serves the
// SDK's StreamableHTTPServer at /mcp on a loopback address, prints
// {"url":"http://127.0.0.1:PORT/mcp"} on stdout once listening, and serves
// until SIGTERM, SIGINT or EOF on stdin (package peerhost).
package main

import (
	"context"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpconform/mcpconform/peers/peerhost"
)

func main() { peerhost.Main(peer()) }

// peer is the server over its SDK's two transports (its test certifies
// them through package mcpconformtest).
func peer() peerhost.Peer {
	mcpServer := newServer()
	return peerhost.Peer{
		Name: "mcpgo-server",
		Stdio: func(ctx context.Context) error {
			// Listen rather than ServeStdio: the signal context ends it, and
			// so does EOF on stdin.
			stdio := server.NewStdioServer(mcpServer)
			stdio.SetErrorLogger(log.New(os.Stderr, "mcpgo-server: ", log.LstdFlags))
			return stdio.Listen(ctx, os.Stdin, os.Stdout)
		},
		HTTP: func(srv *http.Server) (http.Handler, func(context.Context) error) {
			transport := server.NewStreamableHTTPServer(mcpServer,
				// The SDK's Shutdown closes the sessions' streams, then srv.
				server.WithStreamableHTTPServer(srv),
				// Session ids the server tracks: an unknown or ended one gets
				// 404. The default manager checks only their format.
				server.WithStateful(true),
				// Event ids and Last-Event-ID resumption, so that the checks
				// of both have something to certify.
				server.WithEventStore(server.NewInMemoryEventStore()),
				server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))),
			)
			return transport, transport.Shutdown
		},
	}
}
