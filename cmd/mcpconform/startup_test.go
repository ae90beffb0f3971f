package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// TestAServerThatDoesNotStartIsAnError certifies a stdio server that
// starts at once for the era probe's two launches and never again after:
// each check's server shows nothing within its start-up budget and answers
// no ping, so the check is an ERROR of the harness (exit 2), never a FAIL
// or WARN of the rule it was to judge.
func TestAServerThatDoesNotStartIsAnError(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits out a start-up budget")
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "launches")
	script := filepath.Join(dir, "server.sh")
	serve := strings.Join(selfexec.Command("serve", "--transport", "stdio"), " ")
	body := fmt.Sprintf("#!/bin/sh\necho x >> %s\n[ $(wc -l < %s) -le 2 ] || exec %s\nexec %s\n", count, count, sleepFor(1071), serve)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "r.json")
	code, out := runChild("server", "--json", js, "--no-color", "--parallel", "2", "--probe-timeout", "3s", "--patience", "4s",
		"--only", "server.ping.after-initialize,server.jsonrpc.parse-error", "--", "sh", script)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, out)
	}
	var ix report.Index
	readJSON(t, js, &ix)
	judged := 0
	for _, c := range ix.Checks {
		if c.Outcome == check.Skipped {
			continue
		}
		judged++
		if c.Outcome != check.Error || !strings.Contains(c.Message, "the server did not start") || !strings.Contains(c.Message, "--probe-timeout") {
			t.Errorf("%s: %s %q; want ERROR saying the server did not start and naming --probe-timeout", c.ID, c.Outcome, c.Message)
		}
	}
	if judged != 2 {
		t.Errorf("%d checks ran, want 2", judged)
	}
	if left := processesRunning(sleepFor(1071)); len(left) > 0 {
		t.Errorf("left running: %v", left)
	}
}
