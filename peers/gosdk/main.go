// Command gosdk-server is a small MCP server written with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), kept as a real peer for
// mcpconform to certify.
//
// Over stdio (--transport stdio) it serves one session on stdin/stdout with
// the SDK's stdio transport. Over streamable HTTP (--transport http) it
// serves the SDK's streamable HTTP handler at /mcp on a loopback address,
// prints {"url":"http://127.0.0.1:PORT/mcp"} on stdout once listening, and
// serves until SIGTERM, SIGINT or EOF on stdin (package peerhost).
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/mcpconform/mcpconform/peers/peerhost"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() { peerhost.Main(peer()) }

// peer is the server over its SDK's two transports (its test certifies
// them through package mcpconformtest).
func peer() peerhost.Peer {
	server := newServer()
	return peerhost.Peer{
		Name:  "gosdk-server",
		Stdio: func(ctx context.Context) error { return server.Run(ctx, &mcp.StdioTransport{}) },
		HTTP: func(*http.Server) (http.Handler, func(context.Context) error) {
			opts := &mcp.StreamableHTTPOptions{
				Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
				// Event ids and Last-Event-ID resumption, so that the checks
				// of both have something to certify.
				EventStore: mcp.NewMemoryEventStore(nil),
			}
			handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
			// The SDK validates Host (DNS rebinding) itself but leaves Origin
			// to a wrapping middleware, as its
			// StreamableHTTPOptions.CrossOriginProtection documentation advises.
			return http.NewCrossOriginProtection().Handler(handler), nil
		},
	}
}
