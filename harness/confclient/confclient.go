// Package confclient certifies a conformance client: the program an SDK
// ships for the official MCP conformance suite, which takes the server URL
// as its last argument and does what the scenario MCP_CONFORMANCE_SCENARIO
// names (`initialize`: connect, list the tools and close; `tools_call`: the
// same with a call of the first tool). As `mcpconform adapter
// --conformance-client -- CMD…` it speaks the client adapter contract v1:
// for a check whose behaviour a scenario has (Scenarios), it runs CMD… with
// the check's server URL appended and the scenario set, and prints the
// contract's lines from what it saw the program send (through a relay that
// forwards every byte unchanged) and its exit status. Every other check, and
// every stdio check, it answers with exit 127 and the reason on stderr, so
// that check is UNIMPLEMENTED.
package confclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/target"
)

func init() { selfexec.Register("conformance-client", Main) }

// EnvScenario is the variable a conformance client reads its scenario from.
const EnvScenario = "MCP_CONFORMANCE_SCENARIO"

// Flag is the flag of `mcpconform adapter` and `mcpconform client` that
// runs a conformance client.
const Flag = "--conformance-client"

// Settle is how long the relay waits, once the program exited, for what it
// sent to be parsed.
var Settle = 2 * time.Second

// Command returns the argv of the adapter that runs the conformance client
// cmd.
func Command(cmd []string) []string {
	return selfexec.Command("adapter", append([]string{Flag, "--"}, cmd...)...)
}

// Main is `mcpconform adapter --conformance-client -- CMD…` (args after the
// flag).
func Main(args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(os.Stderr, "mcpconform adapter --conformance-client: give the conformance client's command after --, e.g. mcpconform adapter --conformance-client -- ./everything-client")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return Run(ctx, args, os.Getenv, os.Stdout, os.Stderr)
}

// Run runs the conformance client cmd for the check the contract's
// variables (getenv) describe and prints the contract's lines to stdout.
// It returns the adapter's exit status.
func Run(ctx context.Context, cmd []string, getenv func(string) string, stdout, stderr io.Writer) int {
	scenario, why := plan(getenv)
	if scenario == "" {
		fmt.Fprintf(stderr, "mcpconform conformance-client: %s\n", why)
		return target.ExitUnsupported
	}
	u, err := url.Parse(getenv(target.EnvServerURL))
	if err != nil || u.Host == "" {
		fmt.Fprintf(stderr, "mcpconform conformance-client: %s is not a URL with a host\n", target.EnvServerURL)
		return 2
	}
	t, err := startTee(u.Host)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform conformance-client: relay: %v\n", err)
		return 2
	}
	u.Host = t.Addr()
	start := time.Now()
	code, err := runProgram(ctx, cmd, u.String(), scenario, stderr)
	exited := time.Now()
	requests := t.Close(Settle)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform conformance-client: %v\n", err)
		return 2
	}
	if code != 0 && len(requests) == 0 {
		fmt.Fprintf(stderr, "mcpconform conformance-client: %q exited %d without sending a request: it cannot run scenario %q\n", cmd[0], code, scenario)
		return target.ExitUnsupported
	}
	if code != 0 && scenario == ScenarioToolsCall && !sent(requests, "tools/call") && sent(requests, "tools/list") {
		fmt.Fprintf(stderr, "mcpconform conformance-client: %q listed the tools and exited %d without calling one: its scenario %q may call a tool of the official suite's server (go-sdk's calls add_numbers) that this check's fake does not offer, so the check cannot tell a failed list from a missing tool\n", cmd[0], code, scenario)
		return target.ExitUnsupported
	}
	for _, l := range lines(requests, code, scenario, start, exited) {
		b, _ := json.Marshal(l)
		fmt.Fprintln(stdout, string(b))
	}
	return 0
}

// sent reports whether the program sent a request of method.
func sent(requests []Request, method string) bool {
	for _, q := range requests {
		if q.Method == method {
			return true
		}
	}
	return false
}

// runProgram runs cmd with url appended and the scenario set; its stdout
// and stderr go to stderr (stdout carries the contract's lines only). It
// stays in the adapter's process group, so the harness's deadline ends it
// too.
func runProgram(ctx context.Context, cmd []string, url, scenario string, stderr io.Writer) (int, error) {
	c := exec.Command(cmd[0], append(cmd[1:], url)...)
	c.Env = append(os.Environ(), EnvScenario+"="+scenario)
	c.Stdout, c.Stderr = stderr, stderr
	if err := c.Start(); err != nil {
		return 0, fmt.Errorf("conformance client %q: %w; check the path after --", cmd[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = c.Process.Kill()
		err = <-done
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, fmt.Errorf("conformance client %q: %w", cmd[0], err)
	}
	return c.ProcessState.ExitCode(), nil
}

// lines are the contract's lines for a run of the program: its requests
// say how far it got, its exit status whether the last step succeeded. A
// program that exits 0 did every step of its scenario; one that exits
// otherwise failed the last request it sent (or what followed it).
func lines(requests []Request, code int, scenario string, start, exited time.Time) []target.Line {
	out := []target.Line{{Config: map[string]json.RawMessage{target.ConfigEras: json.RawMessage(`["legacy"]`)}}}
	failed := fmt.Sprintf("the conformance client exited %d in scenario %s", code, scenario)
	ms := func(from, to time.Time) int64 { return max(to.Sub(from).Milliseconds(), 0) }
	var listed, called *Request
	var calls []Request
	seen := map[string]bool{}
	for i, q := range requests {
		switch q.Method {
		case "tools/list":
			if listed == nil {
				listed = &requests[i]
			}
		case "tools/call":
			if !seen[q.ID] { // a retry keeps its id: one call
				seen[q.ID] = true
				calls = append(calls, q)
				called = &requests[i]
			}
		}
	}
	phase := func(ok bool, from, to time.Time) *target.Phase {
		p := &target.Phase{Outcome: target.OutcomeOK, ElapsedMS: ms(from, to)}
		if !ok {
			p.Outcome, p.Error = target.OutcomeError, failed
		}
		return p
	}
	connected := func(from, to time.Time) *target.Phase {
		p := phase(true, from, to)
		p.Era = target.EraLegacy
		return p
	}
	switch {
	case listed == nil:
		out = append(out, target.Line{Connect: phase(code == 0, start, exited)})
		out[1].Connect.Era = target.EraLegacy
	case called == nil:
		out = append(out, target.Line{Connect: connected(start, listed.At)},
			target.Line{List: phase(code == 0, listed.At, exited)})
	default:
		out = append(out, target.Line{Connect: connected(start, listed.At)},
			target.Line{List: phase(true, listed.At, calls[0].At)})
		for i, q := range calls {
			end := exited
			if i+1 < len(calls) {
				end = calls[i+1].At
			}
			l := target.Line{Tool: q.Tool, Outcome: target.OutcomeOK, ElapsedMS: ms(q.At, end)}
			if code != 0 && i == len(calls)-1 {
				l.Outcome, l.Error = target.OutcomeError, failed
			}
			out = append(out, l)
		}
	}
	if code == 0 {
		out = append(out, target.Line{Close: phase(true, exited, exited)})
	}
	return out
}
