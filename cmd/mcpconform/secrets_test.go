package main

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpconform/mcpconform/harness/mcpclient"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The planted secrets: a URL's password and query value, and a --secret.
const (
	plantedPassword = "SECRETPW"
	plantedQuery    = "SECRETQ"
	plantedSecret   = "PLANTED"
)

var planted = []string{plantedPassword, plantedQuery, plantedSecret}

// leakyProxy serves the reference HTTP server (or its mutant m) on
// 127.0.0.1 through a reverse proxy that echoes every planted secret back in each reply's
// WWW-Authenticate header (which transcripts record), as a server that
// quotes the credentials it refused would. abortPings, when set, makes it
// drop the connection of every ping, so a fuzzer finds the endpoint gone
// at its first probe. It returns the proxy's URL with the planted password
// and query, and how many requests carried them.
func leakyProxy(t *testing.T, m mutant.Name, abortPings bool) (string, *atomic.Int64) {
	t.Helper()
	upstream, stop, err := serve.Start(run.ReferenceServer(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	var carried atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pw, _ := r.BasicAuth(); pw == plantedPassword && r.URL.Query().Get("token") == plantedQuery {
			carried.Add(1)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if abortPings && bytes.Contains(body, []byte(`"method":"ping"`)) {
			panic(http.ErrAbortHandler)
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+plantedSecret+`", error="`+plantedPassword+`", error_description="`+plantedQuery+`"`)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.Replace(srv.URL, "://", "://u:"+plantedPassword+"@", 1) + u.Path + "?token=" + plantedQuery, &carried
}

// sweep fails the test for every planted secret in any of the outputs or
// in any file under dirs, every byte of them.
func sweep(t *testing.T, outputs map[string][]byte, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			outputs[path] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range outputs {
		for _, s := range planted {
			if i := bytes.Index(b, []byte(s)); i >= 0 {
				t.Errorf("%s holds %s: …%s…", name, s, b[max(0, i-80):min(len(b), i+40)])
			}
		}
	}
}

// TestServerRunShowsNoSecret certifies the reference over HTTP through a
// URL with a password and a token, with a --secret, every report and
// snapshots, while the server echoes all three back: no byte of the
// console, the reports or the snapshots holds one of them. The server
// accepts requests without a session id, which --strict makes a FAIL, so
// the console and JUnit show a failure with its transcript too.
func TestServerRunShowsNoSecret(t *testing.T) {
	t.Parallel()
	target, carried := leakyProxy(t, mutant.MissingSessionAccepted, false)
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	argv := selfexec.Command("server", "--url", target, "--secret", plantedSecret, "--no-color", "--strict", "-v",
		"--json", out("r.json"), "--junit", out("r.xml"), "--markdown", out("r.md"), "--html", out("r.html"))
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 1 {
		t.Fatalf("exit %d, want 1 (the missing session id)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if carried.Load() == 0 {
		t.Fatal("no request carried the URL's password and token: the run did not use them")
	}
	sweep(t, map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()}, dir)
	masked := strings.NewReplacer("u:"+plantedPassword+"@", "***@", "token="+plantedQuery, "token=***").Replace(target)
	for name, want := range map[string]string{"stdout": "the server at " + masked, "r.json": `"url": "` + masked + `"`} {
		text := stdout.String()
		if name != "stdout" {
			b, _ := os.ReadFile(out(name))
			text = string(b)
		}
		if !strings.Contains(text, want) {
			t.Errorf("%s does not show the URL masked (%s)", name, want)
		}
	}
}

// TestUnreachableURLShowsNoSecret is the issue's own case: nothing listens
// at the URL, the run stops with exit 2, and neither the password nor the
// token is in what it says; nor in a usage error about the URL.
func TestUnreachableURLShowsNoSecret(t *testing.T) {
	const target = "http://u:" + plantedPassword + "@127.0.0.1:1/mcp?token=" + plantedQuery
	for _, tc := range []struct {
		args []string
		code int // replay reports the endpoint gone as the case breaking
	}{
		{[]string{"server", "--url", target}, 2},
		{[]string{"server", "--url", strings.Replace(target, "http", "ftp", 1)}, 2},
		{[]string{"fuzz", "--url", target, "--duration", "1s"}, 2},
		{[]string{"replay", "--url", target, filepath.Join("..", "..", "corpus", "edge-ids.case")}, 1},
	} {
		var stdout, stderr bytes.Buffer
		if code := dispatch(tc.args, &stdout, &stderr); code != tc.code {
			t.Errorf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.args[:2], code, tc.code, stdout.String(), stderr.String())
		}
		sweep(t, map[string][]byte{tc.args[0] + " stdout": stdout.Bytes(), tc.args[0] + " stderr": stderr.Bytes()})
		if said := stdout.String() + stderr.String(); !strings.Contains(said, "://***@127.0.0.1:1/mcp?token=***") {
			t.Errorf("%v: the output does not name the URL masked:\n%s", tc.args[:2], said)
		}
	}
}

// TestFuzzAndReplayShowNoSecret fuzzes the reference through a URL with a
// password and a token and a --secret, behind a proxy that echoes them and
// drops every ping: the fuzzer finds the endpoint gone, saves the case and
// says how to replay it, and replay breaks the same way. No byte of their
// consoles, reports or the saved case holds a secret.
func TestFuzzAndReplayShowNoSecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	fuzzArgs := func(target string) []string {
		return []string{"fuzz", "--url", target, "--secret", plantedSecret, "--seed", "1", "--duration", "2s", "--timeout", "500ms", "--max-findings", "1",
			"--corpus", corpus, "--json", filepath.Join(dir, "f.json"), "--junit", filepath.Join(dir, "f.xml")}
	}
	var stdout, stderr bytes.Buffer
	healthy, carried := leakyProxy(t, "", false)
	if code := dispatch(fuzzArgs(healthy), &stdout, &stderr); code != 0 || carried.Load() == 0 {
		t.Fatalf("fuzz exited %d, want 0, with %d requests carrying the secrets\nstdout:\n%s\nstderr:\n%s", code, carried.Load(), stdout.String(), stderr.String())
	}
	sweep(t, map[string][]byte{"fuzz stdout": stdout.Bytes(), "fuzz stderr": stderr.Bytes()}, dir)

	target, _ := leakyProxy(t, "", true)
	stdout.Reset()
	stderr.Reset()
	if code := dispatch(fuzzArgs(target), &stdout, &stderr); code != 1 {
		t.Fatalf("fuzz exited %d, want 1 (the dropped pings)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	sweep(t, map[string][]byte{"fuzz stdout": stdout.Bytes(), "fuzz stderr": stderr.Bytes()}, dir)
	t.Logf("fuzz:\n%s", stdout.String())
	if !strings.Contains(stdout.String(), "reproduce with: mcpconform replay ") || !strings.Contains(stdout.String(), "--url http://***@") {
		t.Errorf("no reproduce line with the URL masked:\n%s", stdout.String())
	}
	cases, _ := filepath.Glob(filepath.Join(corpus, "*.case"))
	if len(cases) != 1 {
		t.Fatalf("saved cases %v, want one", cases)
	}
	stdout.Reset()
	stderr.Reset()
	if code := dispatch([]string{"replay", "--url", target, "--secret", plantedSecret, "--timeout", "500ms", cases[0]}, &stdout, &stderr); code != 1 {
		t.Fatalf("replay exited %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	sweep(t, map[string][]byte{"replay stdout": stdout.Bytes(), "replay stderr": stderr.Bytes()})
	t.Logf("replay:\n%s", stdout.String())
	if !strings.Contains(stdout.String(), "FAIL") {
		t.Errorf("replay did not report the case breaking:\n%s", stdout.String())
	}
}

// TestClientRunShowsNoSecret certifies the reference client with its own
// name (the clientInfo it sends) as a --secret, with every report and
// snapshots, over a stdio check and the HTTP check that gives it a bearer
// token: neither the name nor the token is in any output, and the snapshot
// shows the name masked.
func TestClientRunShowsNoSecret(t *testing.T) {
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	argv := selfexec.Command("client", "--secret", mcpclient.DefaultName, "--no-color", "-v",
		"--only", "stdio.client.stdin.only-jsonrpc,http.client.headers.bearer-and-custom-everywhere",
		"--json", out("r.json"), "--junit", out("r.xml"), "--markdown", out("r.md"), "--html", out("r.html"),
		"--snapshots", out("snapshots"), "--update-snapshots")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// go-snaps writes no snapshot where it detects CI (a CI machine sets
	// CI): this run makes its snapshots, wherever it runs.
	cmd.Env = append(os.Environ(), "UPDATE_SNAPS=always")
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	outputs := map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()}
	sweep(t, outputs, dir)
	token := regexp.MustCompile(`mcpconform-token-[0-9a-f]{24}`)
	snapshot := false
	for name, b := range outputs {
		if bytes.Contains(b, []byte(mcpclient.DefaultName)) || token.Match(b) {
			t.Errorf("%s holds the client's name or its bearer token", name)
		}
		snapshot = snapshot || strings.HasSuffix(name, ".snap") && bytes.Contains(b, []byte(`"clientInfo":{"name":"***"`))
	}
	if !snapshot {
		t.Error("no snapshot shows the clientInfo name masked")
	}
}

// TestSecretFlagTakesEachValueWhole: --secret masks a value in the command
// it is passed to, as the stdio server that is no MCP server is named when
// the run stops (package certify tests that it repeats and keeps commas).
func TestSecretFlagTakesEachValueWhole(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"server", "--secret", plantedSecret, "--secret", "x,y", "--", "sh", "-c", "exit 3", plantedSecret, "x,y"}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), `the stdio server "sh -c exit 3 *** ***" exited`) {
		t.Errorf("exit %d, stderr %q: want 2 and the command masked", code, stderr.String())
	}
	sweep(t, map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()})
}
