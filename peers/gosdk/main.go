// Command gosdk-server is a small MCP server written with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), kept as a real peer for
// mcpconform to certify.
//
// Over stdio (--transport stdio) it serves one session on stdin/stdout with
// the SDK's stdio transport. Over streamable HTTP (--transport http) it
// serves the SDK's streamable HTTP handler at /mcp on a loopback address,
// prints {"url":"http://127.0.0.1:PORT/mcp"} on stdout once listening, and
// serves until SIGTERM, SIGINT or EOF on stdin.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	fs := flag.NewFlagSet("gosdk-server", flag.ContinueOnError)
	transport := fs.String("transport", "stdio", "stdio or http")
	addr := fs.String("addr", "127.0.0.1:0", "http: the loopback address to listen on (port 0 picks a free port)")
	grace := fs.Duration("shutdown-grace", 2*time.Second, "http: how long open requests and streams may take to finish at shutdown")
	if err := fs.Parse(os.Args[1:]); errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	} else if err != nil {
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gosdk-server: unexpected argument %q; it takes flags only (see -h)\n", fs.Arg(0))
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	server := newServer()

	var err error
	switch *transport {
	case "stdio":
		err = server.Run(ctx, &mcp.StdioTransport{})
	case "http":
		if err := checkLoopback(*addr); err != nil {
			fmt.Fprintf(os.Stderr, "gosdk-server: %v\n", err)
			os.Exit(2)
		}
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			// EOF on stdin is the parent's way to say "stop".
			_, _ = io.Copy(io.Discard, os.Stdin)
			cancel()
		}()
		err = serveHTTP(ctx, server, *addr, *grace, os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "gosdk-server: --transport %q: use stdio or http\n", *transport)
		os.Exit(2)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "gosdk-server: %v\n", err)
		os.Exit(1)
	}
}
