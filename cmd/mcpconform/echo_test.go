package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// The credentials the echo test plants, each led by echoPrefix so that a
// piece of one left in an output is found too.
const (
	echoPrefix   = "Zq9"
	echoUser     = "user"
	echoPassword = echoPrefix + "pw-PLANTED/+"
	echoQuery    = echoPrefix + "q-PLANTED"
	echoSecret   = echoPrefix + "sec-PLANTED +/?&"
	echoEnvName  = "X_API_TOKEN"
	echoEnvValue = echoPrefix + "env-PLANTED"
)

// echoForms are every form of a planted credential that must appear in no
// output, derived here on their own, not by the code under test: each
// value as written, URL-encoded as a query and as a path, and in base64
// (both alphabets, with and without padding); the Basic credential Go's
// client makes of the URL's userinfo among them. bearer adds each value
// after "Bearer " in the same forms: a piece of those may show (the
// base64 of "Bearer"), the whole never.
func echoForms(bearer bool) []string {
	var forms []string
	for _, v := range []string{echoPassword, echoQuery, echoSecret, echoEnvValue, echoUser + ":" + echoPassword} {
		if bearer {
			v = "Bearer " + v
		}
		b := []byte(v)
		forms = append(forms, v, url.QueryEscape(v), url.PathEscape(v),
			base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
			base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b))
	}
	return forms
}

// echoServer is a small stateless MCP server on 127.0.0.1 that echoes every
// request back: each request header (the Authorization Go's client makes
// of the URL's userinfo among them) and the query, in a response header the
// transcripts record (WWW-Authenticate) and in every JSON-RPC body (a
// result's _echo member, an error's data and message, the serverInfo
// title), together with every form of the planted --secret, environment
// value and URL credentials (echoForms), as a server that quotes what it
// was given would. It counts the requests that carried the URL's
// credentials as Basic.
func echoServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var carried atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pw, ok := r.BasicAuth(); ok && user == echoUser && pw == echoPassword {
			carried.Add(1)
		}
		var headers [][]string
		for name, values := range r.Header {
			for _, v := range values {
				headers = append(headers, []string{name, v})
			}
		}
		slices.SortFunc(headers, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
		echo := map[string]any{"headers": headers, "query": r.URL.RawQuery, "planted": append(echoForms(false), echoForms(true)...)}
		flat, _ := json.Marshal(echo)
		w.Header().Set("WWW-Authenticate", `Bearer realm="echo", error_description=`+string(flat))
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &m) != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": -32700, "message": "parse error; you sent " + string(flat), "data": echo}})
			return
		}
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
		switch m.Method {
		case "initialize":
			reply["result"] = map[string]any{"protocolVersion": m.Params.ProtocolVersion, "capabilities": map[string]any{},
				"serverInfo": map[string]any{"name": "echo", "version": "1.0", "title": string(flat)}, "_echo": echo}
		case "ping":
			// The check's message quotes the result cut at ExcerptBytes,
			// and the transcript keeps MaxStringBytes of a string: each cut
			// falls inside a credential.
			reply["result"] = map[string]any{"_echo": echo,
				"_a": strings.Repeat("x", transcript.ExcerptBytes-len(`{"_a":"`)-5) + echoSecret,
				"_b": strings.Repeat("y", transcript.MaxStringBytes-4) + echoEnvValue}
		default:
			reply["error"] = map[string]any{"code": -32601, "message": "no method " + m.Method + "; you sent " + string(flat), "data": echo}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(reply)
	}))
	t.Cleanup(srv.Close)
	u := strings.Replace(srv.URL, "://", "://"+url.UserPassword(echoUser, echoPassword).String()+"@", 1)
	return u + "/mcp?token=" + url.QueryEscape(echoQuery), &carried
}

// TestEchoedCredentialsShowInNoForm is the test: a server echoes
// every request header back, and every form of each planted credential:
// the URL's password and query value, the Basic credential Go's client
// makes of the userinfo, a --secret and the value of a secret-named
// environment variable of mcpconform, each also after Bearer. A run with
// --parallel 2 (its checks in a worker, the server keeping no sessions),
// with a failure whose message quotes the echo cut inside a credential,
// writes the console, JSON, JUnit, Markdown and HTML: no form of any of
// them, nor a piece of one, is in any byte of them.
func TestEchoedCredentialsShowInNoForm(t *testing.T) {
	target, carried := echoServer(t)
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	argv := selfexec.Command("server", "--url", target, "--secret", echoSecret, "--no-color", "-v", "--parallel", "2",
		"--only", "server.ping.after-initialize,server.jsonrpc.method-not-found,http.server.invalid-body.http-error",
		"--json", out("r.json"), "--junit", out("r.xml"), "--markdown", out("r.md"), "--html", out("r.html"))
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), echoEnvName+"="+echoEnvValue)
	if code := exitCode(cmd.Run()); code != 1 {
		t.Fatalf("exit %d, want 1 (ping's result is not empty)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if carried.Load() == 0 {
		t.Fatal("no request carried the URL's credentials as Basic: the run did not send them")
	}
	outputs := map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()}
	for _, name := range []string{"r.json", "r.xml", "r.md", "r.html"} {
		b, err := os.ReadFile(out(name))
		if err != nil {
			t.Fatal(err)
		}
		outputs[name] = b
	}
	// Each form whole, and its first bytes: a clip that cut one short
	// must not show its start.
	pieces := append(echoForms(true), echoPrefix)
	for _, form := range echoForms(false) {
		pieces = append(pieces, form, form[:6])
	}
	for _, piece := range pieces {
		for name, b := range outputs {
			if i := bytes.Index(b, []byte(piece)); i >= 0 {
				t.Errorf("%s holds %q: …%s…", name, piece, b[max(0, i-80):min(len(b), i+80)])
			}
		}
	}
	// The echo reached every output that shows messages or transcripts,
	// its planted forms masked: the run saw what it must hide (the
	// Authorization header pattern masks whatever the secrets are, so the
	// planted list is what proves the secrets were masked).
	for _, name := range []string{"stdout", "r.json", "r.xml", "r.html"} {
		if !plantedMasked.Match(outputs[name]) {
			t.Errorf("%s shows no masked planted form: the echo did not reach it", name)
		}
	}
	if !strings.Contains(stdout.String(), "server.ping.after-initialize") || !strings.Contains(stdout.String(), "_echo") {
		t.Errorf("the console does not show ping's failure with the echo:\n%s", stdout.String())
	}
}

// plantedMasked is the echo's list of planted forms, masked, however an
// output quotes it (JSON, XML and HTML escape the quotes their own way).
var plantedMasked = regexp.MustCompile(`planted[^*]{0,24}` + regexp.QuoteMeta(transcript.Redacted))
