package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/oauth"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// preRegistered is a confidential client of the protected reference
// server's authorization server; its secret carries authfake's prefix so
// that the sweeps find it like the secrets the fake mints.
var preRegistered = authfake.Client{ID: "pre-registered", Secret: authfake.SecretPrefix + "pre-registered-client-secret",
	RedirectURIs: []string{oauth.DefaultRedirectURI}}

// sweepAuthSecrets fails the test for every secret of the fake (by its
// prefix, and each of minted) in any of outputs.
func sweepAuthSecrets(t *testing.T, outputs map[string]string, minted []string) {
	t.Helper()
	for name, text := range outputs {
		if i := strings.Index(text, authfake.SecretPrefix); i >= 0 {
			t.Errorf("%s shows a secret of the authorization server: …%s…", name, text[max(0, i-80):min(len(text), i+60)])
		}
		for _, s := range minted {
			if strings.Contains(text, s) {
				t.Errorf("%s shows a secret the authorization server issued", name)
			}
		}
	}
}

// TestReferenceClientAuthShowsNoSecret runs the reference client's adapter
// against the protected reference server (serve --auth): registered
// dynamically, then as a pre-registered confidential client, then with a
// client secret the server refuses. Each authorizes on the 401, steps up
// for the tools scope and calls the tools (or fails to connect, saying why), and neither
// its contract lines nor its stderr show a token, a refresh token, an
// authorization code or a client secret.
func TestReferenceClientAuthShowsNoSecret(t *testing.T) {
	t.Parallel()
	o := run.ReferenceServer("")
	o.AuthClients = []authfake.Client{preRegistered}
	url, as, stop, err := serve.StartAuth(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	wrong := preRegistered
	wrong.Secret = authfake.SecretPrefix + "a-secret-the-server-refuses"
	outputs := map[string]string{}
	for _, tc := range []struct {
		name   string
		client *authfake.Client
		ok     bool
	}{{"dynamic", nil, true}, {"pre-registered", &preRegistered, true}, {"refused secret", &wrong, false}} {
		argv := selfexec.Command("adapter")
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), target.EnvCase+"=auth", target.EnvTransport+"=http", target.EnvServerURL+"="+url, target.EnvAuthToken+"=")
		if tc.client != nil {
			b, _ := json.Marshal(map[string]string{"client_id": tc.client.ID, "client_secret": tc.client.Secret})
			cmd.Env = append(cmd.Env, oauth.EnvClient+"="+string(b))
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: the adapter: %v\n%s", tc.name, err, stderr.String())
		}
		if got := strings.Contains(stdout.String(), `{"connect":{"outcome":"ok"`) && strings.Contains(stdout.String(), `"outcome":"ok"`); got != tc.ok {
			t.Errorf("%s: connected and called tools: %v, want %v\n%s\n%s", tc.name, got, tc.ok, stdout.String(), stderr.String())
		}
		outputs[tc.name+": stdout"], outputs[tc.name+": stderr"] = stdout.String(), stderr.String()
	}
	tokens := as.RequestsAt(authfake.EndpointToken)
	if len(tokens) < 5 {
		t.Fatalf("%d token requests; want two per authorized run (the step-up) and the refused one", len(tokens))
	}
	if tokens[len(tokens)-1].AuthMethod != authfake.AuthBasic {
		t.Errorf("the confidential client authenticated with %s", tokens[len(tokens)-1].AuthMethod)
	}
	sweepAuthSecrets(t, outputs, append(as.Minted(), wrong.Secret))
}

// TestClientAuthRunShowsNoSecret certifies the reference client with the
// http.client.auth.* checks, whose authorization servers mint in the
// run's process, writing every report and the snapshots: no byte of the
// console, stderr, the reports or the transcripts holds one of their
// secrets, found by authfake.SecretPrefix.
func TestClientAuthRunShowsNoSecret(t *testing.T) {
	t.Parallel()
	ids := clientAuthChecks()
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	argv := selfexec.Command("client", "--no-color", "-v", "--only", strings.Join(ids, ","),
		"--json", out("r.json"), "--junit", out("r.xml"), "--markdown", out("r.md"), "--html", out("r.html"),
		"--snapshots", out("snapshots"), "--update-snapshots")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// go-snaps writes no snapshot where it detects CI (a CI machine sets
	// CI): this run makes its snapshots, wherever it runs.
	cmd.Env = append(os.Environ(), "UPDATE_SNAPS=always")
	if code := exitCode(cmd.Run()); code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	var ix report.Index
	readJSON(t, out("r.json"), &ix)
	authorized := 0
	for _, c := range ix.Checks {
		if c.Outcome == check.Pass {
			authorized++
		}
	}
	if authorized == 0 {
		t.Fatalf("no auth check passed: the reference client authorized nowhere\n%s", stdout.String())
	}
	outputs := map[string]string{"console": stdout.String(), "stderr": stderr.String()}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		outputs[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(outputs) < 6+len(ids)/2 {
		t.Errorf("%d outputs read; the run wrote no snapshots?", len(outputs))
	}
	sweepAuthSecrets(t, outputs, nil)
}
