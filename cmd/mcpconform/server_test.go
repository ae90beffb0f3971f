package main

import (
	"encoding/json"
	"fmt"
	"github.com/mcpconform/mcpconform/certify"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/suites/run"
)

// runServer runs `mcpconform server ARGS…` in a child process and returns
// its exit status, its JSON index and its output.
func runServer(t testing.TB, args ...string) (int, report.Index, string) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "r.json")
	code, out := runChild("server", append([]string{"--json", js, "--no-color"}, args...)...)
	var ix report.Index
	if code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	readJSON(t, js, &ix)
	return code, ix, string(out)
}

// runChild runs `mcpconform COMMAND ARGS…` in a child process (one
// RunSpecs per process) and returns its exit status and its output.
func runChild(command string, args ...string) (int, []byte) {
	argv := selfexec.Command(command, args...)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	return exitCode(err), out
}

// exitCode is a finished command's exit status (-1 when it did not run).
var exitCode = certify.ExitCode

// TestServerErasAreNotApplicable certifies a modern-only and a legacy-only
// reference server: the checks of the era each does not serve are N/A, the
// others pass, and the run passes.
func TestServerErasAreNotApplicable(t *testing.T) {
	checks := []string{"server.discover.result", "server.version.unsupported", "server.lifecycle.initialize-result",
		"server.ping.after-initialize", "server.stdio.exits-on-stdin-eof"}
	for era, want := range map[string]map[string]check.Outcome{
		"modern": {"server.discover.result": check.Pass, "server.version.unsupported": check.Pass,
			"server.lifecycle.initialize-result": check.NotApplicable, "server.ping.after-initialize": check.NotApplicable,
			"server.stdio.exits-on-stdin-eof": check.Pass},
		"legacy": {"server.discover.result": check.NotApplicable, "server.version.unsupported": check.NotApplicable,
			"server.lifecycle.initialize-result": check.Pass, "server.ping.after-initialize": check.Pass,
			"server.stdio.exits-on-stdin-eof": check.Pass},
	} {
		t.Run(era, func(t *testing.T) {
			args := append([]string{"--only", strings.Join(checks, ","), "--"},
				selfexec.Command("serve", "--transport", "stdio", "--era", era, "--slow-bound", "1.5s", "--reverse-timeout", "1s")...)
			code, ix, out := runServer(t, args...)
			if code != 0 {
				t.Fatalf("exit %d, want 0\n%s", code, out)
			}
			for _, c := range ix.Checks {
				if w, ok := want[c.ID]; ok && c.Outcome != w {
					t.Errorf("%s: %s (%s), want %s", c.ID, c.Outcome, c.Message, w)
				}
				if c.Outcome == check.NotApplicable && !strings.Contains(c.Message, "era") {
					t.Errorf("%s: N/A without saying why: %q", c.ID, c.Message)
				}
			}
			if n := ix.Summary.NotApplicable; n != 2 {
				t.Errorf("summary counts %d N/A, want 2", n)
			}
		})
	}
}

// TestReverseTimeoutAtTheBound certifies the reference over stdio and HTTP
// with its reverse timeout as long as --timeout, the longest the check
// allows: server.reverse.times-out passes over both, its bound leaving
// --patience past the server's timeout instead of judging a race.
func TestReverseTimeoutAtTheBound(t *testing.T) {
	const timeout = 2 * time.Second
	url, stop, err := serve.Start(serve.Options{SlowBound: timeout, ReverseTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	const id = "server.reverse.times-out"
	args := append([]string{"--only", id, "--timeout", timeout.String(), "--url", url, "--"},
		selfexec.Command("serve", "--transport", "stdio", "--reverse-timeout", timeout.String())...)
	code, ix, out := runServer(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	for _, c := range ix.Checks {
		if c.ID == id && (c.Outcome != check.Pass || len(c.Transports) != 2) {
			t.Errorf("%s: %s over %v, want PASS over stdio and http\n%s", id, c.Outcome, c.Transports, c.Message)
		}
	}
}

// BenchmarkServerRun times a full `mcpconform server` run against the
// reference over each transport alone: checks/s, and the slowest checks in
// the log (go test -bench ServerRun -benchtime 1x -v ./cmd/mcpconform).
func BenchmarkServerRun(b *testing.B) {
	url, stop, err := serve.Start(run.ReferenceServer(""))
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	for _, tc := range []struct {
		transport string
		args      []string
	}{
		{"stdio", append([]string{"--"}, run.ReferenceServerCommand("")...)},
		{"http", []string{"--url", url}},
	} {
		b.Run(tc.transport, func(b *testing.B) {
			var ix report.Index
			var ran int
			start := time.Now()
			for range b.N {
				var code int
				code, ix, _ = runServer(b, tc.args...)
				if code != 0 {
					b.Fatalf("the reference fails over %s", tc.transport)
				}
				ran = ix.Summary.Pass + ix.Summary.Info
			}
			elapsed := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(float64(ran), "checks/op")
			b.ReportMetric(float64(ran)/elapsed.Seconds(), "checks/s")
			sort.Slice(ix.Checks, func(i, j int) bool { return ix.Checks[i].DurationMS > ix.Checks[j].DurationMS })
			var slow []string
			for _, c := range ix.Checks[:min(10, len(ix.Checks))] {
				slow = append(slow, fmt.Sprintf("%s %dms", c.ID, c.DurationMS))
			}
			b.Logf("%s: %d checks in %s; slowest: %s", tc.transport, ran, elapsed.Round(time.Millisecond), strings.Join(slow, ", "))
		})
	}
}

// TestServerStderrIsNoFailure certifies a stdio server that writes 1 MiB of
// stderr before it reads stdin: stderr is the server's to use (ST-06), so
// the checks pass, and none of its bytes reaches the report.
func TestServerStderrIsNoFailure(t *testing.T) {
	const marker = "mcpconform-stderr-marker"
	checks := []string{"server.stdio.stdout-only-jsonrpc", "server.stdio.exits-on-stdin-eof", "server.lifecycle.initialize-result", "server.ping.after-initialize"}
	args := append([]string{"--only", strings.Join(checks, ","), "--"},
		selfexec.Command("fakeserver", "--case", "stderr-flood", "--bytes", "1048576", "--when", "before", "--marker", marker)...)
	code, ix, out := runServer(t, args...)
	if code != 0 || ix.Summary.Pass != len(checks) {
		t.Fatalf("exit %d, %d pass, want 0 and %d\n%s", code, ix.Summary.Pass, len(checks), out)
	}
	// The marker is in the fake's command line, which the report names as its
	// target; nowhere else may it appear.
	ix.Target = nil
	raw, err := json.Marshal(ix)
	if err != nil {
		t.Fatal(err)
	}
	_, console, _ := strings.Cut(out, "\n") // the first line names the command
	if strings.Contains(string(raw), marker) || strings.Contains(console, marker) {
		t.Errorf("the server's stderr reached the report or the console:\n%s", console)
	}
}

// TestNoDescendantOutlivesTheRun: a server whose child starts a session of
// its own (setsid) and one that also clears its environment leave nothing
// behind once the run is over.
func TestNoDescendantOutlivesTheRun(t *testing.T) {
	serveCmd := strings.Join(selfexec.Command("serve", "--transport", "stdio"), " ")
	script := "setsid " + sleepFor(1041) + " </dev/null >/dev/null 2>&1 & setsid env -i " + sleepFor(1042) + " </dev/null >/dev/null 2>&1 & exec " + serveCmd
	code, out := runChild("server", "--no-color", "--only", "server.ping.after-initialize", "--", "bash", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	if left := processesRunning(sleepFor(1041), sleepFor(1042)); len(left) > 0 {
		t.Errorf("left running after the run: %v", left)
	}
}

// sleepFor is the command line of a sleep of n seconds and a fraction that
// names this test process, so that a scan for leftovers finds this run's
// processes alone, never those of another run on the same machine.
func sleepFor(n int) string { return fmt.Sprintf("sleep %d.%07d", n, os.Getpid()) }

// processesRunning lists the live processes whose command line holds one
// of the patterns, killing them so that a failure leaves nothing either.
func processesRunning(patterns ...string) []string {
	found := processesAlive(patterns...)
	for _, p := range found {
		if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return found
}

// TestSignalEndsTheRunWithItsReports: SIGINT while the target is in
// flight kills it with its tree, writes the JSON report whole and marked
// interrupted, and exits 130.
func TestRunTimeoutEndsTheRunWithItsReports(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	code, out := runChild("server", "--no-color", "--run-timeout", "1s", "--json", path, "--", "sh", "-c", "exec "+sleepFor(1048))
	if code != 2 || !strings.Contains(string(out), "INTERRUPTED by run-timeout") {
		t.Errorf("exit %d, want 2 and the summary saying why\n%s", code, out)
	}
	if took := time.Since(start); took > 1*time.Second+run.ShutdownGrace {
		t.Errorf("the run took %s, over its budget and the shutdown grace", took)
	}
	var ix report.Index
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &ix)
	}
	if err != nil || !ix.Interrupted || ix.InterruptedBy != "run-timeout" {
		t.Errorf("report: interrupted %v by %q (%v)", ix.Interrupted, ix.InterruptedBy, err)
	}
	if left := processesRunning(sleepFor(1048)); len(left) > 0 {
		t.Errorf("left running after the run: %v", left)
	}
}

func TestSignalEndsTheRunWithItsReports(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	argv := selfexec.Command("server", "--no-color", "--json", path, "--", "sh", "-c", "exec "+sleepFor(1044))
	cmd := exec.Command(argv[0], argv[1:]...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(processesAlive(sleepFor(1044))) == 0 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the target never started:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCode(err); code != 130 {
			t.Errorf("exit %d, want 130\n%s", code, out.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("still running 10s after SIGINT:\n%s", out.String())
	}
	if left := processesRunning(sleepFor(1044)); len(left) > 0 {
		t.Errorf("left running after the run: %v", left)
	}
	var ix report.Index
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &ix)
	}
	if err != nil || !ix.Interrupted {
		t.Errorf("report %s: interrupted %v (%v)", path, ix.Interrupted, err)
	}
}

// processesAlive lists the live processes whose command line holds one of
// the patterns.
func processesAlive(patterns ...string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		line := strings.ReplaceAll(string(b), "\x00", " ")
		for _, p := range patterns {
			if strings.Contains(line, p) && !strings.Contains(line, "bash -c") && !strings.Contains(line, " server ") {
				found = append(found, e.Name()+" "+line)
			}
		}
	}
	return found
}

// TestEveryToolChecksCancelSlowCalls certifies the reference over HTTP with
// the fixtures' slow role on its progress tool and a tool budget below its
// slow tool's bound: the checks that call every tool cancel the slow role's
// call once it opened and the slow tool's past the budget, say so in their
// messages, and never wait for the slow tool. With a budget shorter than
// the retry delay of test_reconnection's dropped stream, the resumption is
// not judged.
func TestEveryToolChecksCancelSlowCalls(t *testing.T) {
	const slowBound = 20 * time.Second
	url, stop, err := serve.Start(serve.Options{SlowBound: slowBound, ReverseTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	fixtures := filepath.Join(t.TempDir(), "fixtures.yaml")
	if err := os.WriteFile(fixtures, []byte("slow: {tool: progress}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checks := []string{"http.server.get.no-responses", "http.server.streams.no-duplicates", "http.server.event-ids.unique",
		"http.server.sse.priming-event", "http.server.sse.retry-before-close"}
	for _, tc := range []struct {
		budget string
		want   map[string]check.Outcome // by check, else PASS
	}{
		{"1.5s", nil},
		{"100ms", map[string]check.Outcome{"http.server.sse.retry-before-close": check.Unimplemented}},
	} {
		t.Run(tc.budget, func(t *testing.T) {
			code, ix, out := runServer(t, "--url", url, "--fixtures", fixtures, "--tool-budget", tc.budget, "--only", strings.Join(checks, ","))
			if code != 0 {
				t.Fatalf("exit %d, want 0\n%s", code, out)
			}
			for _, c := range ix.Checks {
				if !slices.Contains(checks, c.ID) {
					continue
				}
				want, ok := tc.want[c.ID]
				if !ok {
					want = check.Pass
				}
				if c.Outcome != want {
					t.Errorf("%s: %s, want %s\n%s", c.ID, c.Outcome, want, c.Message)
				}
				if want != check.Pass {
					continue
				}
				for _, say := range []string{"within the tool budget of " + tc.budget, "slow", "the slow tool progress was cancelled once its call opened"} {
					if !strings.Contains(c.Message, say) {
						t.Errorf("%s: the message does not say %q: %q", c.ID, say, c.Message)
					}
				}
				if c.DurationMS >= slowBound.Milliseconds()/2 {
					t.Errorf("%s took %d ms: it waited for the slow tool", c.ID, c.DurationMS)
				}
			}
		})
	}
}
