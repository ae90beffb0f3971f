package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestBothTransportsJudged certifies a server over stdio and HTTP at once
// with server.tools.unknown-tool, a check of transport any, where a mutant
// breaks its rule over one transport or both: each transport is judged
// (a failure over stdio no longer hides HTTP), the report lists both, the
// message gives each one's verdict, and the transcript holds both parts.
func TestBothTransportsJudged(t *testing.T) {
	const id = "server.tools.unknown-tool"
	m := mutant.UnknownToolNotError
	for _, tc := range []struct {
		name        string
		stdio, http mutant.Name
		want        string
	}{
		{"stdio fails, http fails", m, m, "stdio: WARN; http: WARN\n"},
		{"stdio fails, http passes", m, "", "stdio: WARN; http: PASS\n"},
		{"stdio passes, http fails", "", m, "stdio: PASS; http: WARN\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, stop, err := serve.Start(run.ReferenceServer(tc.http))
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			args := append([]string{"--only", id, "--url", url, "--"}, run.ReferenceServerCommand(tc.stdio)...)
			code, ix, out := runServer(t, args...)
			if code != 0 || len(ix.Checks) == 0 {
				t.Fatalf("exit %d, want 0 (TL-08 is a SHOULD)\n%s", code, out)
			}
			i := slices.IndexFunc(ix.Checks, func(c report.Check) bool { return c.ID == id })
			c := ix.Checks[i]
			if c.Outcome != check.Warn || !strings.HasPrefix(c.Message, "requirement (") || !strings.Contains(c.Message, tc.want) {
				t.Errorf("%s: %s %q, want WARN giving %q", id, c.Outcome, c.Message, tc.want)
			}
			if !slices.Equal(c.Transports, []check.Transport{check.Stdio, check.HTTP}) {
				t.Errorf("%s was judged on %v, want stdio and http", id, c.Transports)
			}
			text := strings.Join(c.Transcript, "\n")
			if !strings.Contains(text, "over http from here (over stdio above)") || !strings.Contains(text, "POST ") {
				t.Errorf("the transcript does not hold both transports' parts:\n%s", text)
			}
		})
	}
}
