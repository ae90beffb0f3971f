// Package adapter is the reference client speaking the client adapter
// contract v1 (`mcpconform adapter`): it connects to the server the
// MCPCONFORM_ variables name, lists the tools, calls each with {}, prints one
// JSON line per call, and closes the client the normal way.
package adapter

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/stdio"
	"github.com/mcpconform/mcpconform/harness/target"
)

func init() { selfexec.Register("adapter", Main) }

// Settings are the reference adapter's command-line settings: the client's
// limits (seed defaults unless given) and the mutant to run.
type Settings struct {
	Stdio  stdio.Config
	Mutant mutant.Name
}

// Flags returns the argv for `mcpconform adapter` with these settings.
func (s Settings) Flags() []string {
	c := s.Stdio
	args := []string{
		"--max-stdout-text-lines", fmt.Sprint(c.MaxStdoutTextLines),
		"--max-stdout-text-bytes", fmt.Sprint(c.MaxStdoutTextBytes),
		"--max-stderr-bytes", fmt.Sprint(c.MaxStderrBytes),
		"--cancel-grace", c.CancelGrace.String(),
		"--shutdown-grace", c.ShutdownGrace.String(),
		"--startup-timeout", c.StartupTimeout.String(),
	}
	if s.Mutant != "" {
		args = append(args, "--mutant", string(s.Mutant))
	}
	return args
}

func parseFlags(args []string, stderr io.Writer) (Settings, error) {
	s := Settings{Stdio: stdio.DefaultConfig()}
	c := &s.Stdio
	fs := flag.NewFlagSet("adapter", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.MaxStdoutTextLines, "max-stdout-text-lines", c.MaxStdoutTextLines, "text lines the client skips on stdout per session (0: none)")
	fs.Int64Var(&c.MaxStdoutTextBytes, "max-stdout-text-bytes", c.MaxStdoutTextBytes, "text bytes the client skips on stdout per session, newlines included (0: none)")
	fs.IntVar(&c.MaxStderrBytes, "max-stderr-bytes", c.MaxStderrBytes, "stderr tail kept")
	fs.DurationVar(&c.CancelGrace, "cancel-grace", c.CancelGrace, "wait after notifications/cancelled before terminating the server")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", c.ShutdownGrace, "wait after closing stdin, and after SIGTERM")
	fs.DurationVar(&c.StartupTimeout, "startup-timeout", c.StartupTimeout, "launch until notifications/initialized")
	m := fs.String("mutant", "", "run a mutant of the reference client (see mcpconform selftest)")
	if err := fs.Parse(args); err != nil {
		return s, err
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
	s, err := parseFlags(args, os.Stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(os.Stderr, err)
		}
		return 2
	}
	inv, err := readEnvironment()
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		return 2
	}
	if inv.Transport != "stdio" {
		fmt.Fprintf(os.Stderr, "adapter: transport %q is not supported by this adapter\n", inv.Transport)
		return target.ExitUnsupported
	}
	cfg := s.Stdio
	cfg.Command = inv.ServerCommand
	cfg.Mutant = s.Mutant
	cfg.Report = os.Stderr
	if err := applyLimits(&cfg, inv.Limits); err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		return 2
	}
	out := &printer{w: os.Stdout}
	out.line(target.Line{Config: declare(cfg)})
	run(inv, cfg, out)
	return 0
}

func run(inv target.Invocation, cfg stdio.Config, out *printer) {
	start := time.Now()
	client, err := stdio.Start(cfg)
	if err != nil {
		out.line(target.Line{Connect: phase(start, err)})
		return
	}
	opts := mcp.ClientOptions{StartupTimeout: cfg.StartupTimeout, CallTimeout: inv.CallTimeout, Mutant: cfg.Mutant}
	session, err := mcp.Connect(context.Background(), client, opts)
	out.line(target.Line{Connect: phase(start, err)})
	if err != nil {
		_ = client.Close()
		return
	}
	start = time.Now()
	tools, err := session.ListTools(context.Background())
	out.line(target.Line{List: phase(start, err)})
	if err == nil {
		callAll(session, tools, inv.Parallel, out)
	}
	start = time.Now()
	err = session.Close()
	out.line(target.Line{Close: phase(start, err)})
}

func callAll(session *mcp.ClientSession, tools []mcp.Tool, parallel bool, out *printer) {
	var wg sync.WaitGroup
	for _, t := range tools {
		call := func() {
			start := time.Now()
			_, err := session.CallTool(context.Background(), t.Name, map[string]any{})
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

// declare is the config line: the limits this client enforces.
func declare(c stdio.Config) map[string]json.RawMessage {
	vals := map[string]int64{
		target.LimitStdoutTextLines: int64(c.MaxStdoutTextLines),
		target.LimitStdoutTextBytes: c.MaxStdoutTextBytes,
		target.LimitStderrBytes:     int64(c.MaxStderrBytes),
		target.LimitCancelGraceMS:   c.CancelGrace.Milliseconds(),
		target.LimitShutdownGraceMS: c.ShutdownGrace.Milliseconds(),
		target.LimitStartupMS:       c.StartupTimeout.Milliseconds(),
	}
	out := make(map[string]json.RawMessage, len(vals))
	for k, v := range vals {
		out[k] = json.RawMessage(fmt.Sprint(v))
	}
	return out
}

// printer writes contract lines whole, one at a time.
type printer struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *printer) line(l target.Line) {
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.w.Write(append(b, '\n'))
}
