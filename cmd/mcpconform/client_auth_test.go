package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/suites/run"
)

// clientAuthChecks returns the IDs of the client checks of OAuth
// (http.client.auth.*).
func clientAuthChecks() []string {
	var ids []string
	for _, d := range check.All() {
		if strings.HasPrefix(d.ID, "http.client.auth.") {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// unmasked finds a secret the client auth checks must never show: the
// value of a secret parameter, or a Bearer credential, that is not ***.
var unmasked = regexp.MustCompile(`\b(?:code|code_verifier|client_secret|access_token|refresh_token)=[^*&\s"\\]|Bearer [A-Za-z0-9_~+/.-]{16,}`)

// TestClientAuthChecksMaskSecrets certifies the reference client and its
// mutant that also sends its token in the query string on the client auth
// checks, writing every report: the reference passes them all, the mutant
// fails http.client.auth.bearer-header, and no code, verifier, secret or
// token shows in the console or any report, while the failure's
// transcript is there.
func TestClientAuthChecksMaskSecrets(t *testing.T) {
	ids := clientAuthChecks()
	if len(ids) < 11 {
		t.Fatalf("%d client auth checks: want the 11 of issue 21", len(ids))
	}
	for _, m := range []mutant.Name{"", mutant.AuthTokenInQuery} {
		dir := t.TempDir()
		out := func(name string) string { return filepath.Join(dir, name) }
		args := append([]string{"--json", out("r.json"), "--no-color", "--profile", "hardened", "--only", strings.Join(ids, ","),
			"--junit", out("r.xml"), "--markdown", out("r.md"), "--html", out("r.html"), "--"}, run.ReferenceAdapter(m)...)
		code, console := runChild("client", args...)
		var ix report.Index
		readJSON(t, out("r.json"), &ix)
		for _, c := range ix.Checks {
			want := check.Pass
			if m != "" && c.ID == "http.client.auth.bearer-header" {
				want = check.Fail
			}
			if c.Outcome != check.Skipped && c.Outcome != want {
				t.Errorf("mutant %q: %s is %s, want %s\n%s", m, c.ID, c.Outcome, want, c.Message)
			}
		}
		if (code == 0) != (m == "") {
			t.Errorf("mutant %q: exit status %d\n%s", m, code, console)
		}
		if m != "" && !strings.Contains(string(console), "access_token=***") {
			t.Errorf("mutant %q: the console shows no masked query token; did the failure's transcript change?\n%s", m, console)
		}
		outputs := map[string]string{"console": string(console)}
		for _, name := range []string{"r.json", "r.xml", "r.md", "r.html"} {
			b, err := os.ReadFile(out(name))
			if err != nil {
				t.Fatal(err)
			}
			outputs[name] = string(b)
		}
		for name, text := range outputs {
			if s := unmasked.FindString(text); s != "" {
				t.Errorf("mutant %q: %s shows a secret: %q", m, name, s)
			}
		}
	}
}
