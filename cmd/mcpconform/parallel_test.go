package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestParallelRunsMatchSerialOnes certifies the same targets with the same
// seed one check at a time and with three workers: every check has the
// same outcome and message, and the JUnit reports are the same apart from
// their times. A failing mutant of each role is among them, so a failure's
// message is compared too.
func TestParallelRunsMatchSerialOnes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"server", append([]string{"server", "--only", "server.ping.after-initialize,server.lifecycle.initialize-result,server.jsonrpc.parse-error,server.tools.unknown-tool,http.server.session.delete-then-404,http.server.batch.rejected,server.cancel.unknown-id-ignored,server.stdio.exits-on-stdin-eof", "--"},
			run.ReferenceServerCommand(mutant.ParseErrorWithID)...)},
		{"client", append([]string{"client", "--only", "stdio.client.banner.before-initialize,stdio.client.damaged.brace,stdio.client.ids.type-kept,http.client.close.delete,http.client.session.reinit-after-404,stdio.client.process-group.grandchild", "--"},
			run.ReferenceAdapter(mutant.NoProcessGroup)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			serial, sj := parallelRun(t, tc.args, "1")
			par, pj := parallelRun(t, tc.args, "3")
			if len(serial.Checks) != len(par.Checks) {
				t.Fatalf("%d checks serially, %d in parallel", len(serial.Checks), len(par.Checks))
			}
			ran := 0
			for i, s := range serial.Checks {
				p := par.Checks[i]
				if s.ID != p.ID || s.Outcome != p.Outcome || verdictOf(s.Message) != verdictOf(p.Message) {
					t.Errorf("%s: serially %s %q; in parallel %s %s %q", s.ID, s.Outcome, s.Message, p.ID, p.Outcome, p.Message)
				}
				if s.Outcome != "SKIPPED" {
					ran++
				}
			}
			if ran < 5 {
				t.Errorf("only %d checks ran", ran)
			}
			if sj != pj {
				t.Errorf("the JUnit reports differ:\nserial:\n%s\nparallel:\n%s", sj, pj)
			}
			if st, pt := fmt.Sprint(serial.Target), fmt.Sprint(par.Target); st != pt {
				t.Errorf("the targets differ:\nserial:   %s\nparallel: %s", st, pt)
			}
		})
	}
}

// verdictOf is a check's message without what varies between any two
// runs, serial or not: process ids, and the transcript's tail (the order
// in which a fake records what two processes do at once).
func verdictOf(msg string) string {
	msg, _, _ = strings.Cut(msg, "\ntranscript")
	return regexp.MustCompile(`\b\d{3,}\b`).ReplaceAllString(msg, "N")
}

// parallelRun runs the command with --parallel n and a fixed seed and
// returns its JSON index and its JUnit report without times.
func parallelRun(t *testing.T, args []string, n string) (report.Index, string) {
	t.Helper()
	dir := t.TempDir()
	js, junit := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	cmd, rest := args[0], args[1:]
	code, out := runChild(cmd, append([]string{"--no-color", "--seed", "7", "--parallel", n, "--json", js, "--junit", junit}, rest...)...)
	if code != 0 && code != 1 {
		t.Fatalf("--parallel %s: exit %d\n%s", n, code, out)
	}
	var ix report.Index
	readJSON(t, js, &ix)
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	return ix, junitShape(t, b)
}

// junitShape is a JUnit report without what varies between two runs: its
// times, and the messages past their verdict (verdictOf).
func junitShape(t *testing.T, b []byte) string {
	t.Helper()
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	var out strings.Builder
	for _, s := range suites.TestSuites {
		fmt.Fprintf(&out, "%s tests=%d failures=%d errors=%d skipped=%d\n", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped)
		for _, tc := range s.TestCases {
			msg := tc.SystemOut
			switch {
			case tc.Failure != nil:
				msg = tc.Failure.Description
			case tc.Error != nil:
				msg = tc.Error.Description
			case tc.Skipped != nil:
				msg = tc.Skipped.Message
			}
			fmt.Fprintf(&out, "  %s %s %s %q\n", tc.Classname, tc.Name, tc.Status, verdictOf(msg))
		}
	}
	return out.String()
}
