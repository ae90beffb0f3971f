package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/selftest"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestAuthCertificationMasksTokens certifies the protected reference
// server (serve --auth) with its token command, and a mutant of it that
// takes tokens from the query string, writing every report: the
// reference passes every auth check and the other checks run (with the
// run's token), the mutant fails its check, and no token the
// authorization server issued appears in the console or any report.
func TestAuthCertificationMasksTokens(t *testing.T) {
	// Checks not about authorization, which pass against a protected
	// server only with the run's token.
	otherChecks := []string{"http.server.request.content-type", "server.lifecycle.initialize-result", "server.tools.list-valid"}
	for _, tc := range []struct {
		mutant mutant.Name
		want   check.Outcome
	}{
		{"", check.Pass},
		{mutant.AuthTokenInQueryAccepted, check.Fail},
	} {
		url, as, stop, err := serve.StartAuth(run.ReferenceServer(tc.mutant))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		out := func(name string) string { return filepath.Join(dir, name) }
		code, ix, console := runServer(t, "--url", url, "--auth-token-command", serve.TokenCommand(as.URL()), "--profile", "hardened", "-v",
			"--only", strings.Join(append(selftest.AuthChecks(), otherChecks...), ","), "--junit", out("r.xml"), "--markdown", out("r.md"), "--html", out("r.html"))
		stop()
		ran := 0
		for _, c := range ix.Checks {
			if c.Outcome == check.Skipped {
				continue
			}
			ran++
			want := check.Pass
			if tc.mutant != "" && c.ID == "http.server.auth.no-query-token" {
				want = tc.want
			}
			if c.Outcome != want {
				t.Errorf("mutant %q: %s is %s, want %s\n%s", tc.mutant, c.ID, c.Outcome, want, c.Message)
			}
		}
		if ran != len(selftest.AuthChecks())+len(otherChecks) {
			t.Fatalf("mutant %q: %d checks ran, want %d\n%s", tc.mutant, ran, len(selftest.AuthChecks())+len(otherChecks), console)
		}
		if (code == 0) != (tc.mutant == "") {
			t.Errorf("mutant %q: exit status %d", tc.mutant, code)
		}
		outputs := map[string]string{"console": console}
		for _, name := range []string{"r.json", "r.xml", "r.md", "r.html"} {
			b, err := os.ReadFile(out(name))
			if err != nil && name != "r.json" {
				t.Fatal(err)
			}
			outputs[name] = string(b)
		}
		if tc.mutant != "" && !strings.Contains(console, "access_token=***") {
			t.Errorf("mutant %q: the console shows no masked query token; did the failure's transcript change?\n%s", tc.mutant, console)
		}
		minted := as.Minted()
		if len(minted) < 5 {
			t.Fatalf("mutant %q: the authorization server issued %d tokens; the checks asked for none?", tc.mutant, len(minted))
		}
		for _, tok := range minted {
			for name, text := range outputs {
				if strings.Contains(text, tok) {
					t.Errorf("mutant %q: a token the run was given appears in %s", tc.mutant, name)
				}
			}
		}
	}
}
