// Package serve runs mcpconform's reference server (`mcpconform serve`): the
// reference MCP server of package mcpserver behind the reference streamable HTTP
// server transport, on a loopback address only (HT-05), or on stdin and
// stdout behind the reference stdio server transport.
package serve

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/harness/httpserver"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpserver"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/stdioserver"
	"github.com/mcpconform/mcpconform/harness/usage"
)

func init() { selfexec.Register("serve", Main) }

// Options configure a reference server started with Start or served by
// Main. The zero value of every field means its default.
type Options struct {
	// Addr is the loopback address to listen on; default DefaultAddr.
	Addr string
	// JSONResponse answers requests with application/json instead of SSE.
	JSONResponse bool
	// Stateless serves without sessions.
	Stateless bool
	// PageSize, ReverseTimeout, SlowBound and RequestStateTTL configure
	// the MCP server; see mcpserver.Options.
	PageSize        int
	ReverseTimeout  time.Duration
	SlowBound       time.Duration
	RequestStateTTL time.Duration
	// Era is the protocol eras served: mcpserver.EraDual (the default),
	// mcpserver.EraLegacy or mcpserver.EraModern.
	Era mcpserver.Era
	// Tasks serves the 2026-07-28 tasks extension; see mcpserver.Options.
	Tasks bool
	// Mutant selects a mutant of the server (its transport, the MCP server,
	// or the command); empty is the reference.
	Mutant mutant.Name
	// Auth serves the endpoint as a protected resource (AU rules): a
	// loopback authorization server (fakeservers/authfake) runs beside
	// it, and every request needs a bearer token it issued for this
	// server; see StartAuth.
	Auth bool
	// AuthClients are clients pre-registered with the authorization
	// server StartAuth starts (no flag: for tests of confidential
	// clients, which dynamic registration with it does not make).
	AuthClients []authfake.Client
	// StartupDelay is how long `serve` waits before it serves (reads stdin,
	// listens): a server that starts slowly, as one started by npx does,
	// for the self-test's rerun-stability runs (selftest --repeat).
	StartupDelay time.Duration
}

// DefaultAddr is where the reference server listens unless told otherwise:
// loopback, a port the system picks.
const DefaultAddr = "127.0.0.1:0"

// mcpServer makes the reference MCP server the options describe.
func (o Options) mcpServer() (*mcpserver.Server, error) {
	return mcpserver.New(mcpserver.Options{PageSize: o.PageSize, ReverseTimeout: o.ReverseTimeout, SlowBound: o.SlowBound, RequestStateTTL: o.RequestStateTTL, Era: o.era(), Tasks: o.Tasks, Mutant: o.Mutant})
}

// era is the era served: 2026-07-28 only for variant ModernOnly and the
// mutants of it, else what --era says.
func (o Options) era() mcpserver.Era {
	if ModernOnly(o.Mutant) {
		return mcpserver.EraModern
	}
	return o.Era
}

// ModernOnly reports whether the reference with m serves the 2026-07-28
// era alone whatever --era says: variant ModernOnly and the mutants of a
// server of that era alone.
func ModernOnly(m mutant.Name) bool {
	return m == mutant.ModernOnly || m == mutant.InitializeNamesNoVersions || m == mutant.ModernMintsSession
}

// Start serves the reference server over the streamable HTTP server
// transport in this process. It returns the endpoint URL and a stop function
// that ends every session and stream and waits for the server to finish.
// Mutants of the stdio transport and of the command change nothing here.
//
// With o.Auth the endpoint is protected (StartAuth); the authorization
// server stops with it.
func Start(o Options) (url string, stop func() error, err error) {
	if o.Auth {
		url, _, stop, err = StartAuth(o)
		return url, stop, err
	}
	t, err := o.transport()
	if err != nil {
		return "", nil, err
	}
	return httpserver.Listen(o.addr(), t)
}

// Handler is the reference server's streamable HTTP endpoint (o.Auth
// aside) as an http.Handler, for a caller that serves it itself, such as a
// test through package mcpconformtest; Close ends its sessions.
func Handler(o Options) (*httpserver.Server, error) { return o.transport() }

// transport is the reference MCP server behind the HTTP server transport.
func (o Options) transport() (*httpserver.Server, error) {
	server, err := o.mcpServer()
	if err != nil {
		return nil, err
	}
	cfg := httpserver.DefaultConfig(handler(server))
	cfg.JSONResponse = o.JSONResponse
	cfg.Stateless = o.Stateless || o.Mutant == mutant.StatelessServer
	cfg.LegacyOnly = o.era() == mcpserver.EraLegacy
	cfg.ModernOnly = o.era() == mcpserver.EraModern
	cfg.Mutant = o.Mutant
	return httpserver.New(cfg), nil
}

// addr is the address to listen on.
func (o Options) addr() string {
	if o.Addr == "" {
		return DefaultAddr
	}
	return o.Addr
}

// handler puts the MCP server behind the HTTP transport, which hands it its
// *httpserver.Session as an mcpserver.SessionInfo. The client's replies to
// the server's requests reach Handle as POSTed responses.
func handler(m *mcpserver.Server) httpserver.Handler {
	return httpserver.HandlerFunc(func(ctx context.Context, s *httpserver.Session, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
		return m.Handle(ctx, s, req, out)
	})
}

// Main runs `mcpconform serve`; it returns the exit status: 0 after serving
// until SIGINT, SIGTERM or the end of stdin (LC-20, LC-21); 1 when the stdio
// connection broke; 2 for a usage error or a server that cannot start.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

var help = usage.Help{
	Command: "mcpconform serve",
	Synopsis: []string{
		"[--transport http] [--addr 127.0.0.1:0] [--json-response] [--stateless] [flags]",
		"--transport stdio [flags]",
	},
	About: `
Serves the reference MCP server.

--transport http (the default) listens on a loopback address, prints
{"url":"…"} on stdout once listening, then serves until SIGINT, SIGTERM or
the end of stdin (keep stdin open to keep it running).

--transport stdio serves one MCP connection on stdin and stdout, one JSON-RPC
message per line, until the end of stdin, SIGINT or SIGTERM. Nothing but
JSON-RPC goes to stdout; errors go to stderr.

--era dual (the default) serves the initialize handshake of 2025-03-26 …
2025-11-25 and 2026-07-28 requests (server/discover, _meta) alike; legacy
serves the handshake only, modern 2026-07-28 requests only.

--auth serves the endpoint as an OAuth protected resource: a loopback
authorization server starts beside it, the Protected Resource Metadata is
served at the well-known URIs, and every request needs a bearer token of
that server issued for this server's URL (scope mcp:read; a tools/call also
mcp:tools). The first line then also names the authorization server and
auth_token_command, a command that prints its tokens: give it to
mcpconform server --auth-token-command.

--tasks serves the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks)
and the tools of the official conformance suite's tasks scenarios.`,
	Examples: []string{
		"mcpconform serve                       # prints {\"url\":\"http://127.0.0.1:PORT/mcp\"}",
		"mcpconform server -- mcpconform serve --transport stdio --era legacy",
		"mcpconform serve --auth                # also prints authorization_server and auth_token_command",
		"mcpconform serve --mutant " + string(mutant.MissingSessionAccepted) + "   # a planted bug, for mcpconform server --url",
	},
}

// run is Main with its process resources passed in: it serves until ctx ends
// or stdin reaches its end.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, transport, err := parseFlags(args, stdout)
	if code, done := usage.Exit(err, stderr, "serve"); done {
		return code
	}
	if o.Mutant == mutant.IgnoresSIGTERM {
		signal.Ignore(syscall.SIGTERM)
	}
	if o.StartupDelay > 0 {
		// The target's own slowness, not a wait of the harness.
		select {
		case <-time.After(o.StartupDelay):
		case <-ctx.Done():
			return 0
		}
	}
	if transport == "stdio" {
		return runStdio(ctx, o, stdin, stdout, stderr)
	}
	return runHTTP(ctx, o, stdin, stdout, stderr)
}

// runHTTP serves over HTTP until ctx ends or stdin reaches its end.
func runHTTP(ctx context.Context, o Options, stdin io.Reader, stdout, stderr io.Writer) int {
	var ready struct {
		URL string `json:"url"`
		// With --auth: the loopback authorization server, and the
		// command that prints its tokens for --auth-token-command.
		AuthorizationServer string `json:"authorization_server,omitempty"`
		AuthTokenCommand    string `json:"auth_token_command,omitempty"`
	}
	var stopServer func() error
	var err error
	if o.Auth {
		var as *authfake.AS
		ready.URL, as, stopServer, err = StartAuth(o)
		if err == nil {
			ready.AuthorizationServer, ready.AuthTokenCommand = as.URL(), TokenCommand(as.URL())
		}
	} else {
		ready.URL, stopServer, err = Start(o)
	}
	if err != nil {
		fmt.Fprintln(stderr, "serve:", err)
		return 2
	}
	line, _ := json.Marshal(ready)
	fmt.Fprintf(stdout, "%s\n", line)
	eof := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		close(eof)
	}()
	select {
	case <-ctx.Done():
	case <-eof:
		o.afterStdinEOF(ctx)
	}
	if err := stopServer(); err != nil {
		fmt.Fprintln(stderr, "serve: stopping:", err)
		return 2
	}
	return 0
}

// runStdio serves one connection on stdin and stdout until stdin ends or
// ctx does: 0 then, 1 when stdin or stdout broke, 2 when the server cannot
// start.
func runStdio(ctx context.Context, o Options, stdin io.Reader, stdout, stderr io.Writer) int {
	server, err := o.mcpServer()
	if err != nil {
		fmt.Fprintln(stderr, "serve:", err)
		return 2
	}
	if o.Mutant == mutant.PlantedSetsidChild {
		startOrphan(stderr)
	}
	err = stdioserver.Serve(ctx, stdioserver.Options{Handler: server, Mutant: o.Mutant}, stdin, stdout)
	switch {
	case err == nil:
		o.afterStdinEOF(ctx)
	case ctx.Err() == nil:
		fmt.Fprintln(stderr, "serve:", err)
		return 1
	}
	return 0
}

// afterStdinEOF is where the server stops once stdin has ended (LC-21): at
// once. Mutant IgnoresStdinEOF keeps running until ctx ends.
func (o Options) afterStdinEOF(ctx context.Context) {
	if o.Mutant == mutant.IgnoresStdinEOF {
		<-ctx.Done()
	}
}

// parseFlags reads the options and the transport; -h writes the help to
// stdout.
func parseFlags(args []string, stdout io.Writer) (Options, string, error) {
	var o Options
	fs := usage.NewFlagSet("serve")
	transport := fs.String("transport", "http", "the transport to serve: http or stdio")
	fs.StringVar(&o.Addr, "addr", DefaultAddr, "http: loopback address to listen on; port 0 picks one")
	m := fs.String("mutant", "", "run a mutant of the server (see mcpconform selftest)")
	fs.BoolVar(&o.JSONResponse, "json-response", false, "http: answer requests with application/json instead of SSE")
	fs.BoolVar(&o.Stateless, "stateless", false, "http: serve without sessions")
	era := fs.String("era", "dual", "the protocol eras to serve: dual, legacy (initialize only) or modern (2026-07-28 only)")
	fs.IntVar(&o.PageSize, "page-size", mcpserver.DefaultPageSize, "items per page of the list methods")
	fs.DurationVar(&o.ReverseTimeout, "reverse-timeout", mcpserver.DefaultReverseTimeout, "how long the server waits for the client's reply to its own requests")
	fs.DurationVar(&o.SlowBound, "slow-bound", mcpserver.DefaultSlowBound, "the longest the slow tool waits to be cancelled")
	fs.BoolVar(&o.Tasks, "tasks", false, "serve the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks) and its tools")
	fs.DurationVar(&o.RequestStateTTL, "request-state-ttl", mcpserver.DefaultRequestStateTTL, "how long the requestState of a 2026-07-28 InputRequiredResult is accepted")
	fs.BoolVar(&o.Auth, "auth", false, "http: serve as an OAuth protected resource beside a loopback authorization server (prints auth_token_command)")
	fs.DurationVar(&o.StartupDelay, "startup-delay", 0, "wait this long before serving, as a slow-starting server does (for tests of start-up budgets)")
	if err := help.Parse(fs, args, stdout); err != nil {
		return o, "", err
	}
	if fs.NArg() > 0 {
		return o, "", fmt.Errorf("unexpected argument %q; serve takes flags only (see --help)", fs.Arg(0))
	}
	if o.StartupDelay < 0 {
		return o, "", fmt.Errorf("--startup-delay must not be negative, got %v", o.StartupDelay)
	}
	if o.PageSize < 1 || o.ReverseTimeout <= 0 || o.SlowBound <= 0 || o.RequestStateTTL <= 0 {
		return o, "", fmt.Errorf("--page-size (%d), --reverse-timeout (%v), --slow-bound (%v) and --request-state-ttl (%v) must be positive",
			o.PageSize, o.ReverseTimeout, o.SlowBound, o.RequestStateTTL)
	}
	parsedEra, err := mcpserver.ParseEra(*era)
	if err != nil {
		return o, "", fmt.Errorf("--era: %w", err)
	}
	o.Era = parsedEra
	name, err := mutant.Parse("server", *m)
	if err != nil {
		return o, "", err
	}
	o.Mutant = name
	if mutant.OfServerAuth(name) && !o.Auth {
		return o, "", fmt.Errorf("mutant %q mutates the protected resource of --auth; add --auth", name)
	}
	switch *transport {
	case "http":
	case "stdio":
		var httpOnly []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "addr" || f.Name == "json-response" || f.Name == "stateless" || f.Name == "auth" {
				httpOnly = append(httpOnly, "--"+f.Name)
			}
		})
		if len(httpOnly) > 0 {
			return o, "", fmt.Errorf("%s apply to --transport http only; drop them for stdio", strings.Join(httpOnly, ", "))
		}
		if name != "" && !mutant.OfServerProtocol(name) {
			return o, "", fmt.Errorf("mutant %q mutates the HTTP server transport; use it with --transport http", name)
		}
	default:
		return o, "", fmt.Errorf("unknown transport %q; use --transport http or --transport stdio", *transport)
	}
	return o, *transport, nil
}
