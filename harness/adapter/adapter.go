// Package adapter is the reference client speaking the client adapter
// contract v1 (`mcpconform adapter`): it connects to the server the
// MCPCONFORM_ variables name, in the era MCPCONFORM_ERA asks for (by
// default it probes with server/discover and falls back to initialize),
// lists the tools, calls each with the arguments of MCPCONFORM_FIXTURES or
// a valid instance of its inputSchema, prints one JSON line per call, and
// closes the client the normal way.
package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/confclient"
	"github.com/mcpconform/mcpconform/harness/httpclient"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/stdio"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/usage"
)

func init() { selfexec.Register("adapter", Main) }

// Config is the reference adapter's command-line settings: the client's
// limits and the mutant to run. Zero values are literal, as in its two
// transports' configs; start from their defaults (stdio.DefaultConfig,
// httpclient.DefaultConfig), as run.ReferenceConfig does.
type Config struct {
	Stdio  stdio.Config
	HTTP   httpclient.Config
	Mutant mutant.Name
}

// Flags returns the argv for `mcpconform adapter` with these settings.
func (s Config) Flags() []string {
	c := s.Stdio
	args := []string{
		"--max-stdout-text-lines", fmt.Sprint(c.MaxStdoutTextLines),
		"--max-stdout-text-bytes", fmt.Sprint(c.MaxStdoutTextBytes),
		"--max-stderr-bytes", fmt.Sprint(c.MaxStderrBytes),
		"--cancel-grace", c.CancelGrace.String(),
		"--shutdown-grace", c.ShutdownGrace.String(),
		"--startup-timeout", c.StartupTimeout.String(),
		"--max-concurrent-requests", fmt.Sprint(s.HTTP.MaxConcurrentRequests),
		"--max-sse-event-size", fmt.Sprint(s.HTTP.MaxSSEEventSize),
		"--session-recovery-timeout", s.HTTP.SessionRecoveryTimeout.String(),
		"--control-request-timeout", s.HTTP.ControlRequestTimeout.String(),
		fmt.Sprintf("--allow-stateless=%v", s.HTTP.AllowStateless),
	}
	if s.Mutant != "" {
		args = append(args, "--mutant", string(s.Mutant))
	}
	return args
}

var help = usage.Help{
	Command:  "mcpconform adapter",
	Synopsis: []string{"[--mutant M] [limits]"},
	About: `
The reference client, speaking the client adapter contract: it connects to
the server that MCPCONFORM_TRANSPORT and MCPCONFORM_SERVER_COMMAND or
MCPCONFORM_SERVER_URL name, in the era MCPCONFORM_ERA names (legacy,
modern, or unset: it probes with server/discover and falls back to
initialize), lists the tools, calls each with the arguments the fixtures
file MCPCONFORM_FIXTURES gives it or else a valid instance of its
inputSchema, prints one JSON line per step and closes the client the
normal way. mcpconform client runs it when no adapter is given; the flags
set the client's limits, which its config line declares.`,
	Examples: []string{
		"mcpconform client -- mcpconform adapter --max-stdout-text-lines 0",
		"mcpconform client -- mcpconform adapter --mutant " + string(mutant.NoProcessGroup) + "   # a planted bug",
	},
}

// parseFlags reads the settings; -h writes the help to stdout.
func parseFlags(args []string, stdout io.Writer) (Config, error) {
	s := Config{Stdio: stdio.DefaultConfig(), HTTP: httpclient.DefaultConfig("")}
	c, h := &s.Stdio, &s.HTTP
	fs := usage.NewFlagSet("adapter")
	fs.IntVar(&c.MaxStdoutTextLines, "max-stdout-text-lines", c.MaxStdoutTextLines, "text lines the client skips on stdout per session (0: none)")
	fs.Int64Var(&c.MaxStdoutTextBytes, "max-stdout-text-bytes", c.MaxStdoutTextBytes, "text bytes the client skips on stdout per session, newlines included (0: none)")
	fs.IntVar(&c.MaxStderrBytes, "max-stderr-bytes", c.MaxStderrBytes, "stderr tail kept")
	fs.DurationVar(&c.CancelGrace, "cancel-grace", c.CancelGrace, "wait after notifications/cancelled before terminating the server")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", c.ShutdownGrace, "wait after closing stdin, and after SIGTERM")
	fs.DurationVar(&c.StartupTimeout, "startup-timeout", c.StartupTimeout, "launch until notifications/initialized")
	fs.IntVar(&h.MaxConcurrentRequests, "max-concurrent-requests", h.MaxConcurrentRequests, "ordinary POSTs in progress at once (0: one)")
	fs.IntVar(&h.MaxSSEEventSize, "max-sse-event-size", h.MaxSSEEventSize, "largest SSE event accepted, raw bytes")
	fs.DurationVar(&h.SessionRecoveryTimeout, "session-recovery-timeout", h.SessionRecoveryTimeout, "wait for old POSTs, and for the new handshake, when a session expires")
	fs.DurationVar(&h.ControlRequestTimeout, "control-request-timeout", h.ControlRequestTimeout, "longest run of a cancellation or reply POST")
	fs.BoolVar(&h.AllowStateless, "allow-stateless", h.AllowStateless, "accept a server that issues no session id")
	m := fs.String("mutant", "", "run a mutant of the reference client (see mcpconform selftest)")
	if err := help.Parse(fs, args, stdout); err != nil {
		return s, fmt.Errorf("adapter: %w", err)
	}
	if fs.NArg() > 0 {
		return s, fmt.Errorf("adapter: unexpected argument %q; the server comes from %s", fs.Arg(0), target.EnvServerCommand)
	}
	name, err := mutant.Parse("client", *m)
	if err != nil {
		return s, fmt.Errorf("adapter: %w", err)
	}
	s.Mutant = name
	return s, nil
}

// Main runs the reference adapter; it returns the exit status.
func Main(args []string) int {
	if len(args) > 0 && args[0] == confclient.Flag {
		return confclient.Main(args[1:])
	}
	s, err := parseFlags(args, os.Stdout)
	if code, done := usage.Exit(err, os.Stderr, ""); done {
		return code
	}
	inv, err := readEnvironment()
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		return 2
	}
	cfg := s.Stdio
	cfg.Command = inv.ServerCommand
	cfg.Mutant = s.Mutant
	cfg.Report = os.Stderr
	h := s.HTTP
	h.URL, h.Mutant, h.AuthHeader, h.CustomHeaders = inv.ServerURL, s.Mutant, inv.AuthToken, inv.Headers
	if s.Mutant == mutant.StatelessRefused {
		h.AllowStateless = false
	}
	if err := applyLimits(&cfg, &h, inv.Limits); err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		return 2
	}
	fx, err := loadFixtures(inv.Fixtures)
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		return 2
	}
	out := &printer{w: os.Stdout, redact: func(s string) string { return s }}
	if inv.Transport == "http" && inv.AuthToken == "" {
		// Without a static token the client authorizes itself on a 401
		// (OAuth 2.1); every secret it meets is masked in its output.
		az, err := newAuthorizer(inv.ServerURL, s.Mutant, os.Stderr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "adapter:", err)
			return 2
		}
		h.Authorizer, out.redact = az, az.Redact
	}
	opts := mcpclient.Options{StartupTimeout: cfg.StartupTimeout, CallTimeout: inv.CallTimeout, Era: mcpclient.Era(inv.Era), Answers: inv.Answers, Mutant: s.Mutant,
		Warn: func(format string, args ...any) {
			fmt.Fprintln(os.Stderr, out.redact("adapter: "+fmt.Sprintf(format, args...)))
		}}
	switch inv.Transport {
	case "stdio":
		out.line(target.Line{Config: declare(cfg, nil, s.Mutant)})
		run(inv, fx, opts, out, func() (mcpclient.Transport, error) {
			c, err := stdio.Start(cfg)
			if err != nil {
				return nil, err
			}
			return c, nil
		})
	case "http":
		out.line(target.Line{Config: declare(cfg, &h, s.Mutant)})
		run(inv, fx, opts, out, func() (mcpclient.Transport, error) {
			c, err := httpclient.Dial(h)
			if err != nil {
				return nil, err
			}
			return c, nil
		})
	default:
		fmt.Fprintf(os.Stderr, "adapter: transport %q is not supported by this adapter\n", inv.Transport)
		return target.ExitUnsupported
	}
	return 0
}

// run connects over the transport start returns, lists the tools, calls
// each, and closes, printing a contract line for every step.
func run(inv target.Invocation, fx fixtures, opts mcpclient.Options, out *printer, dial func() (mcpclient.Transport, error)) {
	began := time.Now()
	client, err := dial()
	if err != nil {
		out.line(target.Line{Connect: phase(began, err)})
		return
	}
	session, err := mcpclient.Connect(context.Background(), client, opts)
	connected := phase(began, err)
	if err == nil {
		connected.Era = string(session.Era())
	}
	out.line(target.Line{Connect: connected})
	if err != nil {
		_ = client.Close()
		return
	}
	if sub := listen(session, out); sub != nil {
		defer sub.Close()
	}
	start := time.Now()
	tools, err := session.ListTools(context.Background())
	out.line(target.Line{List: phase(start, err)})
	if err == nil {
		callAll(session, tools, fx, inv.Parallel, out)
		browse(session, opts.Mutant, os.Stderr)
	}
	start = time.Now()
	err = session.Close()
	out.line(target.Line{Close: phase(start, err)})
}

// listen opens, in the 2026-07-28 era with a server that declares
// tools.listChanged, a subscriptions/listen stream for toolsListChanged and
// prints its outcome (the acknowledgement compared with what was asked,
// SB-04); nil when it opens none.
func listen(session *mcpclient.Session, out *printer) *mcpclient.Subscription {
	var caps struct {
		Tools struct {
			ListChanged bool `json:"listChanged"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(session.ServerCapabilities(), &caps) // unreadable: nothing to listen for
	if session.Era() != mcpclient.EraModern || !caps.Tools.ListChanged {
		return nil
	}
	start := time.Now()
	sub, err := session.Listen(context.Background(), map[string]any{"toolsListChanged": true})
	out.line(target.Line{Listen: phase(start, err)})
	return sub
}

// callAll calls each listed tool, one after the other or all at once, with
// the arguments fx gives it or made from its inputSchema.
func callAll(session *mcpclient.Session, tools []mcp.Tool, fx fixtures, parallel bool, out *printer) {
	var wg sync.WaitGroup
	for _, t := range tools {
		call := func() {
			start := time.Now()
			args, err := fx.arguments(t, tools)
			if err == nil {
				_, err = session.CallTool(context.Background(), t.Name, args)
			}
			p := phase(start, err)
			out.line(target.Line{Tool: t.Name, Outcome: p.Outcome, Error: p.Error, ElapsedMS: p.ElapsedMS})
		}
		if parallel {
			wg.Go(call)
		} else {
			call()
		}
	}
	wg.Wait()
}

func phase(start time.Time, err error) *target.Phase {
	p := &target.Phase{Outcome: target.OutcomeOK, ElapsedMS: time.Since(start).Milliseconds()}
	if err != nil {
		p.Outcome, p.Error = target.OutcomeError, err.Error()
	}
	return p
}

// ConfigLine is the config line the adapter prints over HTTP with these
// settings: the limits its client declares, the stdio ones and the HTTP ones.
func (s Config) ConfigLine() map[string]json.RawMessage { return declare(s.Stdio, &s.HTTP, s.Mutant) }

// declare is the config line: the limits this client enforces, with the
// HTTP ones when h is given. A permitted variant without a limit declares
// none (it does not echo an override of it either).
func declare(c stdio.Config, h *httpclient.Config, m mutant.Name) map[string]json.RawMessage {
	vals := map[string]int64{
		target.LimitStdoutTextLines: int64(c.MaxStdoutTextLines),
		target.LimitStdoutTextBytes: c.MaxStdoutTextBytes,
		target.LimitStderrBytes:     int64(c.MaxStderrBytes),
		target.LimitCancelGraceMS:   c.CancelGrace.Milliseconds(),
		target.LimitShutdownGraceMS: c.ShutdownGrace.Milliseconds(),
		target.LimitStartupMS:       c.StartupTimeout.Milliseconds(),
	}
	if h != nil {
		vals[target.LimitMaxConcurrent] = int64(h.MaxConcurrentRequests)
		vals[target.LimitMaxSSEEventSize] = int64(h.MaxSSEEventSize)
		vals[target.LimitSessionRecoveryMS] = h.SessionRecoveryTimeout.Milliseconds()
		vals[target.LimitControlRequestMS] = h.ControlRequestTimeout.Milliseconds()
		vals[target.LimitAllowStateless] = boolInt(h.AllowStateless)
		vals[target.LimitReinitOnExpired] = boolInt(h.ReinitOnExpiredSession)
	}
	switch m {
	case mutant.NoCancelTeardown:
		delete(vals, target.LimitCancelGraceMS)
	case mutant.NoConcurrencyCap:
		delete(vals, target.LimitMaxConcurrent)
	case mutant.NoSSECap:
		delete(vals, target.LimitMaxSSEEventSize)
	}
	out := make(map[string]json.RawMessage, len(vals)+1)
	for k, v := range vals {
		out[k] = json.RawMessage(fmt.Sprint(v))
	}
	out[target.ConfigEras] = json.RawMessage(`["` + target.EraLegacy + `","` + target.EraModern + `"]`)
	if m == mutant.DiscoverFallback {
		// It speaks the legacy era only: the checks of the modern era
		// are N/A to it, not failed.
		out[target.ConfigEras] = json.RawMessage(`["` + target.EraLegacy + `"]`)
	}
	return out
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// printer writes contract lines whole, one at a time.
type printer struct {
	mu     sync.Mutex
	w      io.Writer
	redact func(string) string // masks the secrets of the OAuth flow
}

func (p *printer) line(l target.Line) {
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = io.WriteString(p.w, p.redact(string(b))+"\n")
}
