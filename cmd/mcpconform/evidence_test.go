package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestServerFailuresCarryTheirTranscript certifies an HTTP server that
// serves requests without a session id (a WARN) and a stdio server that
// writes a banner on stdout (a FAIL) and a secret on stderr: every FAIL and
// WARN of the report carries the wire transcript it was judged on, and no
// transcript holds the stderr bytes or a credential.
func TestServerFailuresCarryTheirTranscript(t *testing.T) {
	const marker = "mcpconform-stderr-secret-7f3a"
	url, stop, err := serve.Start(run.ReferenceServer(mutant.MissingSessionAccepted))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	checks := []string{"http.server.session.missing-id-400", "http.server.batch.rejected", "server.stdio.stdout-only-jsonrpc",
		"server.lifecycle.initialize-result"}
	stdio := append([]string{"sh", "-c", `echo ` + marker + ` >&2; exec "$@"`, "sh"}, run.ReferenceServerCommand(mutant.StdoutBanner)...)
	code, ix, out := runServer(t, append([]string{"--url", url, "--only", strings.Join(checks, ","), "--"}, stdio...)...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	outcomes := map[check.Outcome]int{}
	for _, c := range ix.Checks {
		outcomes[c.Outcome]++
		text := strings.Join(c.Transcript, "\n")
		if (c.Outcome == check.Fail || c.Outcome == check.Warn) && len(c.Transcript) == 0 {
			t.Errorf("%s is %s without a transcript: %s", c.ID, c.Outcome, c.Message)
		}
		if strings.Contains(text, marker) || strings.Contains(c.Message, marker) || strings.Contains(text, "Bearer") {
			t.Errorf("%s: a secret reached the report:\n%s", c.ID, text)
		}
		if c.ID == "server.stdio.stdout-only-jsonrpc" && !strings.Contains(text, "s2c text (") {
			t.Errorf("%s: the banner line is not in the transcript:\n%s", c.ID, text)
		}
		if c.ID == "http.server.session.missing-id-400" && !strings.Contains(text, "answered 200") {
			t.Errorf("%s: the HTTP status is not in the transcript:\n%s", c.ID, text)
		}
	}
	if outcomes[check.Fail] == 0 || outcomes[check.Warn] == 0 {
		t.Errorf("outcomes %v: want a FAIL and a WARN", outcomes)
	}
	if _, console, _ := strings.Cut(out, "\n"); strings.Contains(console, marker) {
		t.Errorf("the server's stderr reached the console:\n%s", console)
	}
}

// TestChecksOfAMissingTransportAreSkipped certifies a stdio server alone:
// an HTTP check is SKIPPED, saying why, and the summary says it once.
func TestChecksOfAMissingTransportAreSkipped(t *testing.T) {
	args := append([]string{"--only", "http.server.batch.rejected,server.ping.after-initialize", "--"}, run.ReferenceServerCommand("")...)
	code, ix, out := runServer(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	for _, c := range ix.Checks {
		if c.ID == "http.server.batch.rejected" && (c.Outcome != check.Skipped || c.Message != run.NoServerURL) {
			t.Errorf("%s: %s %q, want SKIPPED %q", c.ID, c.Outcome, c.Message, run.NoServerURL)
		}
	}
	if !strings.Contains(out, "1 check skipped: "+run.NoServerURL) {
		t.Errorf("the summary does not say why the HTTP check was skipped:\n%s", out)
	}
}

// TestNonTargetsStopBeforeTheChecks names commands and a URL that are no
// MCP server: a silent process, one that echoes its input, one that exits
// at once, and a loopback port nobody listens on. Each run ends before its
// checks, quickly, with exit status 2 and one message saying what was seen.
func TestNonTargetsStopBeforeTheChecks(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unused := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	exits := filepath.Join(t.TempDir(), "exits.sh")
	if err := os.WriteFile(exits, []byte("#!/bin/sh\necho mcpconform-stderr-secret >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"silent", []string{"--probe-timeout", "1s", "--", "sleep", "1000"},
			[]string{`the stdio server "sleep 1000" wrote nothing`, "given 1s, 2s in all: --probe-timeout", "is it an MCP server speaking stdio?", "longer --probe-timeout"}},
		{"echo", []string{"--", "cat"}, []string{`the stdio server "cat" sent back the requests`, "initialize line"}},
		{"exits", []string{"--", exits}, []string{"exited (exit status 3)", "written 25 bytes to stderr"}},
		{"nothing listens", []string{"--url", unused}, []string{"nothing answers at " + unused, "connection refused", "--url"}},
		{"only noise", []string{"--probe-timeout", "1s", "--", "sh", "-c", "while :; do echo hello; sleep 0.1; done"},
			[]string{"wrote a text line of 5 bytes to stdout", "answered neither server/discover nor initialize (each asked in a process of its own and given 1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := dispatch(append([]string{"server", "--no-color"}, tc.args...), &stdout, &stderr)
			took := time.Since(start)
			if code != 2 {
				t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
			}
			msg := stderr.String()
			if lines := strings.Count(strings.TrimSpace(msg), "\n") + 1; lines != 1 || !strings.HasPrefix(msg, "mcpconform: ") {
				t.Errorf("want one message, got %d lines: %s", lines, msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the message does not say %q: %s", w, msg)
				}
			}
			if strings.Contains(msg, "mcpconform-stderr-secret") || stdout.Len() > 0 {
				t.Errorf("stdout %q, stderr %q: want nothing on stdout and no stderr bytes of the server", stdout.String(), msg)
			}
			if took > 5*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}

// TestABannerIsNoReasonToStop certifies a real server that prints a banner
// line before it answers: the pre-flight lets it through (the stdout check
// judges the banner, ST-03), it does not stop the run.
func TestABannerIsNoReasonToStop(t *testing.T) {
	argv := append([]string{"sh", "-c", `echo "Server starting..."; exec "$0" "$@"`}, run.ReferenceServerCommand("")...)
	js := filepath.Join(t.TempDir(), "r.json")
	code, out := runChild("server", append([]string{"--no-color", "--only", "server.ping.after-initialize,server.stdio.stdout-only-jsonrpc", "--json", js, "--"}, argv...)...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the banner breaks ST-03)\n%s", code, out)
	}
	var ix report.Index
	readJSON(t, js, &ix)
	for _, c := range ix.Checks {
		want := map[string]check.Outcome{"server.ping.after-initialize": check.Pass, "server.stdio.stdout-only-jsonrpc": check.Fail}[c.ID]
		if want != "" && c.Outcome != want {
			t.Errorf("%s is %s, want %s: %s", c.ID, c.Outcome, want, c.Message)
		}
	}
}

// TestAStoppedRunWritesEveryReport stops a run at its pre-flight (a
// command that is no MCP server): every report named is written whole,
// its verdict ERROR with the reason and no checks, and the exit status 2.
func TestAStoppedRunWritesEveryReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	js, md, xml, page := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.html")
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"server", "--no-color", "--probe-timeout", "1s", "--secret", "s3cr3t-arg", "--json", js, "--markdown", md, "--junit", xml, "--html", page,
		"--", "sh", "-c", "exec sleep 1001", "s3cr3t-arg"}, &stdout, &stderr)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, stderr.String())
	}
	var ix report.Index
	readJSON(t, js, &ix)
	if !strings.Contains(ix.Stopped, "wrote nothing") || len(ix.Checks) != 0 || ix.Verdict() != report.VerdictStopped {
		t.Errorf("JSON: stopped %q, %d checks, verdict %s; want the reason, none, ERROR", ix.Stopped, len(ix.Checks), ix.Verdict())
	}
	for path, want := range map[string]string{md: "The run stopped before its checks: the stdio server", xml: `type="stopped"`, page: "The run stopped before its checks", js: "wrote nothing"} {
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s does not say %q (%v)", filepath.Base(path), want, err)
		}
		if strings.Contains(string(b), "s3cr3t-arg") {
			t.Errorf("%s shows the secret in the command", filepath.Base(path))
		}
	}
}
