package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"encoding/xml"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/rules"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestMain lets the package's tests run the command in child processes.
// The long tests that wait on a target's bounds rather than on the CPU,
// and assert no duration, call t.Parallel: each runs its own targets,
// temporary directories and process names.
func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}

func TestUsageErrorsExitTwoWithTheWayOut(t *testing.T) {
	dir := t.TempDir()
	notYAML := filepath.Join(dir, "baseline.yaml")
	if err := os.WriteFile(notYAML, []byte("client:\n  - id: no.such.check\n    reason: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, report.MaxBaselineFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"client", "--bogus"}, "flag provided but not defined"},
		{[]string{"client", "--only", "no.such.check"}, `unknown check ID "no.such.check"`},
		{[]string{"client", "--label-filter", "a &&"}, "--label-filter"},
		{[]string{"client", "--", filepath.Join(dir, "missing-adapter")}, "not found"},
		{[]string{"client", "stray"}, "put the adapter command after --"},
		{[]string{"client", "--expected-failures", filepath.Join(dir, "none.yaml")}, "none.yaml"},
		{[]string{"client", "--expected-failures", notYAML}, "no.such.check"},
		{[]string{"client", "--update-snapshots"}, "--snapshots"},
		{[]string{"server", "--parallel", "-1"}, "--parallel must be 1 or more"},
		{[]string{"client", "--patience", "2s"}, "use 4s or more"},
		{[]string{"server", "--check-timeout", "0s"}, "--check-timeout must be positive"},
		{[]string{"server", "--quiet-window", "0s"}, "--quiet-window must be positive"},
		{[]string{"server", "--tool-budget", "-1s"}, "--tool-budget must be positive"},
		{[]string{"list", "--format", "xml"}, "table or json"},
		{[]string{"selftest", "extra"}, "unexpected argument"},
		{[]string{"fuzz", "--max-rss", "lots"}, "write e.g. 256MiB"},
		{[]string{"fuzz", "--duration", "0"}, "needs --iterations"},
		{[]string{"fuzz", "--profile", "strict"}, "write spec or hardened"},
		{[]string{"fuzz", "--max-findings", "-1"}, "--max-findings (-1) must not be negative"},
		{[]string{"fuzz", "--expected-failures", dir + "/no-such.yaml"}, "no-such.yaml"},
		{[]string{"fuzz", "--bench", "--duration", "0", "--iterations", "3"}, "--bench needs a --duration"},
		{[]string{"fuzz", "--url", "http://127.0.0.1:1/mcp", "--", "true"}, "not both"},
		{[]string{"fuzz", "--json", dir}, "is a directory"},
		{[]string{"replay"}, "name at least one case file"},
		{[]string{"replay", dir}, "is a directory; give a regular file"},
		{[]string{"server", "--fixtures", "/dev/zero"}, "is a device"},
		{[]string{"fixtures", "--", "true"}, "--suggest prints the fixtures file"},
		{[]string{"fixtures", "--suggest"}, "name the server"},
		{[]string{"fixtures", "--suggest", "--url", "ftp://x", "--", "true"}, `--url "ftp://x" is not an http(s) URL`},
		{[]string{"fixtures", "--suggest", "stray"}, "put the server command after --"},
		{[]string{"server", "--json", dir}, "is a directory; name a file inside it"},
		{[]string{"client", "--html", filepath.Join(dir, "no", "such", "r.html")}, "create the directory first"},
		{[]string{"client", "--snapshots", big}, "is not a directory"},
		{[]string{"server", "--snapshots", dir}, "the server role has no snapshots"},
		{[]string{"server", "--fixtures", fifo}, "is a FIFO"},
		{[]string{"client", "--expected-failures", big}, "over the limit of 1.0 MiB"},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		if code := dispatch(tc.args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", tc.args, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: stderr %q does not say %q", tc.args, stderr.String(), tc.want)
		}
	}
}

// listJSON returns the checks `mcpconform list --format json` prints.
func listJSON(t *testing.T) []listEntry {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"list", "--format", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got struct{ Checks []listEntry }
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Checks) < 20 {
		t.Fatalf("%d checks listed", len(got.Checks))
	}
	return got.Checks
}

func TestListJSONNamesEveryCheckWithItsKiller(t *testing.T) {
	waits := map[string]waitEntry{}
	for _, c := range listJSON(t) {
		for _, w := range c.Waits {
			waits[c.ID+" "+w.Setting] = w
		}
		if len(c.KilledBy) == 0 || len(c.Rules) == 0 || c.Requirement == "" {
			t.Errorf("%s: incomplete descriptor %+v", c.ID, c)
		}
		if c.Level == "" || (c.Source != "spec" && c.Source != "hardened") {
			t.Errorf("%s: level %q source %q", c.ID, c.Level, c.Source)
		}
		if unknown := rules.Unknown(c.Rules); len(unknown) > 0 {
			t.Errorf("%s cites rules not in the rule table: %v", c.ID, unknown)
		}
		if len(c.References) != len(c.Rules) {
			t.Errorf("%s: %d references for %d rules", c.ID, len(c.References), len(c.Rules))
		}
		for i, r := range c.References {
			if r.Text == "" || r.URL == "" || r.Level == "" {
				t.Errorf("%s: rule %s has no text, URL or level in the table", c.ID, r.ID)
			}
			if len(c.RuleURLs) != len(c.Rules) || c.RuleURLs[i] != r.URL {
				t.Errorf("%s: rule_urls %v do not follow the rules %v", c.ID, c.RuleURLs, c.Rules)
			}
		}
	}
	// The waits a run against a server spends, with their default
	// durations, and those a run of the reference client spends.
	ref := run.ReferenceConfig("")
	for key, want := range map[string]waitEntry{
		"http.server.get.no-responses tool-budget":            {Setting: "tool-budget", Always: false, DurationMS: run.DefaultToolBudget.Milliseconds()},
		"http.server.get.no-responses quiet-window":           {Setting: "quiet-window", Always: true, DurationMS: run.DefaultQuietWindow.Milliseconds()},
		"server.jsonrpc.notification-unanswered quiet-window": {Setting: "quiet-window", Always: true, DurationMS: run.DefaultQuietWindow.Milliseconds()},
		"stdio.client.startup.timeout client-limit": {Setting: "client-limit", Always: true, DurationMS: ref.Stdio.StartupTimeout.Milliseconds(),
			Limit: target.LimitStartupMS},
		"http.client.control.timeout client-limit": {Setting: "client-limit", Always: true, DurationMS: 2 * ref.HTTP.ControlRequestTimeout.Milliseconds(),
			Limit: target.LimitControlRequestMS, Times: 2},
		"http.client.control.timeout prompt": {Setting: "prompt", Always: true, DurationMS: 2 * run.DefaultPrompt.Milliseconds(), Times: 2},
	} {
		got, ok := waits[key]
		if got.What == "" || !ok {
			t.Errorf("%s: no wait listed", key)
		}
		got.What = ""
		if got != want {
			t.Errorf("%s: listed %+v, want %+v", key, got, want)
		}
	}
}

// TestHardenedMissDoesNotFailTheSpecProfile certifies the client that
// leaves the grandchild alive (NG-08, a seed behaviour): under the spec
// profile the check is HARDENED and the run passes; under hardened it fails.
func TestHardenedMissDoesNotFailTheSpecProfile(t *testing.T) {
	const grandchild = "stdio.client.process-group.grandchild"
	for _, tc := range []struct {
		profile string
		code    int
		outcome string
	}{
		{"spec", 0, "HARDENED"},
		{"hardened", 1, "FAIL"},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--profile", tc.profile, "--only", grandchild, "--json", js, "--no-color", "--"}, run.ReferenceAdapter(mutant.NoProcessGroup)...)
			code, out := runChild("client", args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, out)
			}
			var ix report.Index
			readJSON(t, js, &ix)
			if ix.Profile != check.Profile(tc.profile) || ix.Summary.Count(check.Outcome(tc.outcome)) != 1 {
				t.Errorf("profile %q, summary %+v: want one %s", ix.Profile, ix.Summary, tc.outcome)
			}
			if !strings.Contains(string(out), "hardened: 0/1") {
				t.Errorf("the console does not show the hardened score:\n%s", out)
			}
		})
	}
}

// TestBrokenClientsAreReportedByCheckID runs the CLI against mutants of the
// reference client (one that hangs on damaged JSON, one that leaves the
// grandchild alive) and finds each failing check by ID in JUnit, JSON and
// Markdown.
func TestBrokenClientsAreReportedByCheckID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mutant mutant.Name
		check  string
	}{
		{mutant.DamagedFailsLate, "stdio.client.damaged.jsonrpc-mention"},
		{mutant.NoProcessGroup, "stdio.client.process-group.grandchild"},
	} {
		t.Run(string(tc.mutant), func(t *testing.T) {
			dir := t.TempDir()
			junit, js, md := filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md")
			args := append([]string{"--profile", "hardened", "--only", tc.check + ",stdio.client.stdin.only-jsonrpc", "--junit", junit, "--json", js, "--markdown", md, "--no-color", "--"},
				run.ReferenceAdapter(tc.mutant)...)
			code, out := runChild("client", args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, out)
			}
			var ix report.Index
			readJSON(t, js, &ix)
			outcomes := map[string]string{}
			for _, c := range ix.Checks {
				outcomes[c.ID] = string(c.Outcome)
			}
			if outcomes[tc.check] != "FAIL" || outcomes["stdio.client.stdin.only-jsonrpc"] != "PASS" {
				t.Errorf("outcomes %v: want %s FAIL and the other check PASS", outcomes, tc.check)
			}
			for _, c := range ix.Checks {
				if (c.Outcome == check.Fail || c.Outcome == check.Warn) && len(c.Transcript) == 0 {
					t.Errorf("%s is %s without a transcript", c.ID, c.Outcome)
				}
			}
			wantJUnitFailure(t, junit, tc.check)
			mdText, _ := os.ReadFile(md)
			if !bytes.Contains(mdText, []byte(tc.check)) || !bytes.Contains(mdText, []byte("FAIL")) {
				t.Errorf("Markdown does not report %s as FAIL:\n%s", tc.check, mdText)
			}
		})
	}
}

func wantJUnitFailure(t *testing.T, path, id string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			if strings.Contains(c.Name, "["+id+"]") {
				if c.Failure == nil {
					t.Errorf("JUnit case %q has no failure", c.Name)
				}
				return
			}
		}
	}
	t.Errorf("JUnit has no test case named with [%s]", id)
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestExpectedFailuresBaseline runs the four outcomes of the baseline
// through the CLI: a listed failure passes as XFAIL, a listed pass is STALE.
func TestExpectedFailuresBaseline(t *testing.T) {
	t.Parallel()
	const grandchild = "stdio.client.process-group.grandchild"
	dir := t.TempDir()
	baseline := filepath.Join(dir, "baseline.yaml")
	if err := os.WriteFile(baseline, []byte("client:\n  - id: "+grandchild+"\n    reason: the wrapper forks on purpose\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		adapter []string
		code    int
		outcome string
	}{
		{"listed failure", run.ReferenceAdapter(mutant.NoProcessGroup), 0, "XFAIL"},
		{"listed pass", run.ReferenceAdapter(""), 1, "STALE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--profile", "hardened", "--only", grandchild, "--expected-failures", baseline, "--json", js, "--no-color", "--"}, tc.adapter...)
			code, out := runChild("client", args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, out)
			}
			var ix report.Index
			readJSON(t, js, &ix)
			for _, c := range ix.Checks {
				if c.ID == grandchild && string(c.Outcome) != tc.outcome {
					t.Errorf("%s is %s, want %s: %s", c.ID, c.Outcome, tc.outcome, c.Message)
				}
			}
		})
	}
}

// TestBrokenHTTPClientsFailExactlyTheirChecks certifies two broken HTTP
// clients over every HTTP client check: one that sends the dead session id
// on its fresh initialize after a 404 fails the session-recovery checks and
// nothing else; one that accepts a 24 MiB event under a 16 MiB limit fails
// the two event-size checks and nothing else.
func TestBrokenHTTPClientsFailExactlyTheirChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mutant mutant.Name
		flags  []string
		want   func(id string) bool
		must   string
	}{
		{mutant.ReinitKeepsSessionID, nil,
			func(id string) bool { return strings.HasPrefix(id, "http.client.session.") },
			"http.client.session.reinit-without-session-id"},
		{mutant.NoSSELimit, []string{"--max-sse-event-size", "16777216"},
			func(id string) bool {
				return id == "http.client.sse.over-limit" || id == "http.client.sse.huge-event-abandoned"
			},
			"http.client.sse.huge-event-abandoned"},
	} {
		t.Run(string(tc.mutant), func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--profile", "hardened", "--label-filter", "transport:http", "--json", js, "--no-color", "--"}, run.ReferenceAdapter(tc.mutant)...)
			args = append(args, tc.flags...)
			code, out := runChild("client", args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, out)
			}
			var ix report.Index
			readJSON(t, js, &ix)
			failed := map[string]bool{}
			for _, c := range ix.Checks {
				if c.Outcome == "FAIL" {
					failed[c.ID] = true
					if !tc.want(c.ID) {
						t.Errorf("%s failed too: %s", c.ID, c.Message)
					}
				}
			}
			if !failed[tc.must] {
				t.Errorf("%s did not fail; failures: %v", tc.must, failed)
			}
		})
	}
}

// TestSubjectNeverSeenIsNotApplicable certifies a client that never shows
// what a check is about: one that never re-initializes after a 404 (its
// missing handshake fails reinit-after-404 alone); the reference and the
// probing variant, which both open with a server/discover probe, pass the
// fallback checks.
func TestSubjectNeverSeenIsNotApplicable(t *testing.T) {
	const reinit, without = "http.client.session.reinit-after-404", "http.client.session.reinit-without-session-id"
	const httpFallback, stdioFallback = "http.client.era.legacy-fallback", "stdio.client.era.legacy-fallback"
	for _, tc := range []struct {
		client mutant.Name
		want   map[string]check.Outcome
	}{
		{mutant.NoReinit, map[string]check.Outcome{reinit: check.Fail, without: check.NotApplicable}},
		{"", map[string]check.Outcome{httpFallback: check.Pass, stdioFallback: check.Pass}},
		{mutant.DiscoverFallback, map[string]check.Outcome{httpFallback: check.Pass, stdioFallback: check.Pass}},
	} {
		t.Run(cmp.Or(string(tc.client), "reference"), func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--profile", "hardened", "--only", strings.Join(slices.Sorted(maps.Keys(tc.want)), ","), "--json", js, "--no-color", "--"},
				run.ReferenceAdapter(tc.client)...)
			if code, out := runChild("client", args...); code != 0 && code != 1 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			var ix report.Index
			readJSON(t, js, &ix)
			for _, c := range ix.Checks {
				if w, ok := tc.want[c.ID]; ok && c.Outcome != w {
					t.Errorf("%s: %s (%s), want %s", c.ID, c.Outcome, c.Message, w)
				}
			}
		})
	}
}

// TestAdapterContractBreachIsOneHarnessError: an adapter that prints no tool
// line, or bytes that are not contract lines, gets no verdict at all: the
// pre-flight stops the run with exit 2 and one message that names what was
// wrong and points to the contract, and the report says the same, with no
// checks.
func TestAdapterContractBreachIsOneHarnessError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		adapter []string
		want    string
	}{
		{"true", []string{"/bin/true"}, "exited 0 without printing a tool line"},
		{"random-bytes", []string{"sh", "-c", "head -c 4096 /dev/urandom"}, "printed 4096 bytes that are not contract lines"},
		{"neither-transport", []string{"sh", "-c", "exit 127"}, "supports neither transport"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			var stdout, stderr bytes.Buffer
			code := dispatch(append([]string{"client", "--no-color", "--json", js, "--"}, tc.adapter...), &stdout, &stderr)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			msg := stderr.String()
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, `"Certify your client"`) || strings.Count(msg, "\n") != 1 {
				t.Errorf("stderr %q: want one line saying %q and pointing to the README", msg, tc.want)
			}
			if strings.Contains(stdout.String(), "PASS") {
				t.Errorf("verdicts were printed:\n%s", stdout.String())
			}
			var ix report.Index
			readJSON(t, js, &ix)
			if len(ix.Checks) != 0 || !strings.Contains(ix.Stopped, tc.want) || ix.Verdict() != report.VerdictStopped {
				t.Errorf("the report has %d checks, stopped %q, verdict %s: want none, the reason, ERROR", len(ix.Checks), ix.Stopped, ix.Verdict())
			}
		})
	}
}

// TestAdapterWithOneTransportLeavesTheOtherUnimplemented: exit 127 for http
// makes every HTTP check UNIMPLEMENTED; the stdio checks run.
func TestAdapterWithOneTransportLeavesTheOtherUnimplemented(t *testing.T) {
	js := filepath.Join(t.TempDir(), "r.json")
	ref := strings.Join(run.ReferenceAdapter(""), " ")
	adapter := []string{"sh", "-c", `[ "$MCPCONFORM_TRANSPORT" = stdio ] || exit 127; exec ` + ref}
	var stdout, stderr bytes.Buffer
	args := append([]string{"client", "--no-color", "--json", js, "--only", "stdio.client.stdin.only-jsonrpc,http.client.post.accept-both", "--"}, adapter...)
	if code := dispatch(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	var ix report.Index
	readJSON(t, js, &ix)
	got := map[string]string{}
	for _, c := range ix.Checks {
		got[c.ID] = string(c.Outcome)
	}
	if got["stdio.client.stdin.only-jsonrpc"] != "PASS" || got["http.client.post.accept-both"] != "UNIMPLEMENTED" {
		t.Errorf("outcomes %v: want the stdio check PASS and the HTTP one UNIMPLEMENTED", got)
	}
}
