package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// authPost POSTs body to url with the Authorization header auth ("" for
// none) and returns the status and the challenge.
func authPost(t *testing.T, url, auth, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", mcp.ContentTypeJSON)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set(mcp.HeaderAuthorization, auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get(mcp.HeaderWWWAuthenticate)
}

// TestServeAuth is the reference protected resource: each way a request
// can fall short gets the status and challenge the AU rules ask for.
func TestServeAuth(t *testing.T) {
	url, as, stop, err := StartAuth(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	origin := strings.TrimSuffix(url, mcp.EndpointPath)
	for _, p := range []string{mcp.WellKnownPRM + mcp.EndpointPath, mcp.WellKnownPRM} {
		resp, err := http.Get(origin + p)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("metadata at %s: %v %v", p, resp, err)
		}
		resp.Body.Close()
	}
	all := allScopes
	valid := as.Issue(url, all, time.Hour)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	for _, tc := range []struct {
		name, auth, body, url string
		status                int
		challenge             string
	}{
		{"no token", "", initializeBody, url, 401, `resource_metadata="` + origin + mcp.WellKnownPRM + mcp.EndpointPath + `"`},
		{"valid", "Bearer " + valid, initializeBody, url, 200, ""},
		{"other audience", "Bearer " + as.Issue("http://127.0.0.1:1/mcp", all, time.Hour), initializeBody, url, 401, `error="invalid_token"`},
		{"expired", "Bearer " + as.Issue(url, all, -time.Minute), initializeBody, url, 401, `error="invalid_token"`},
		{"unknown", "Bearer nope", initializeBody, url, 401, `error="invalid_token"`},
		{"malformed", "Bearer " + valid + " extra", initializeBody, url, 400, `error="invalid_request"`},
		{"no scope", "Bearer " + as.Issue(url, nil, time.Hour), initializeBody, url, 403, `scope="mcp:read"`},
		{"step up", "Bearer " + as.Issue(url, []string{ScopeRead}, time.Hour), call, url, 403, `error="insufficient_scope", error_description="the request needs scope mcp:read mcp:tools", scope="mcp:read mcp:tools"`},
		{"query", "", initializeBody, url + "?access_token=" + valid, 400, `error="invalid_request"`},
	} {
		status, challenge := authPost(t, tc.url, tc.auth, tc.body)
		if status != tc.status || !strings.Contains(challenge, tc.challenge) {
			t.Errorf("%s: %d %q, want %d with %q", tc.name, status, challenge, tc.status, tc.challenge)
		}
	}
}

// TestAuthTokenCommand: the token command serve --auth prints gives tokens
// the server takes, and refuses an authorization server off loopback.
func TestAuthTokenCommand(t *testing.T) {
	url, as, stop, err := StartAuth(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var out, errOut bytes.Buffer
	if code := authToken([]string{"--as", as.URL(), "--resource", url, "--scope", "mcp:read mcp:tools"}, &out, &errOut); code != 0 {
		t.Fatalf("auth-token: %d %s", code, errOut.String())
	}
	if status, _ := authPost(t, url, "Bearer "+strings.TrimSpace(out.String()), initializeBody); status != 200 {
		t.Fatalf("token of auth-token: %d", status)
	}
	out.Reset()
	if code := authToken([]string{"--as", as.URL(), "--resource", url, "--expired"}, &out, &errOut); code != 0 {
		t.Fatalf("auth-token --expired: %d", code)
	}
	if status, _ := authPost(t, url, "Bearer "+strings.TrimSpace(out.String()), initializeBody); status != 401 {
		t.Fatalf("expired token of auth-token: %d", status)
	}
	if code := authToken([]string{"--as", "http://example.com"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "loopback") {
		t.Fatalf("non-loopback --as: %d %s", code, errOut.String())
	}
	if !strings.Contains(TokenCommand(as.URL()), AuthTokenCommand+" --as "+as.URL()) {
		t.Fatalf("TokenCommand %q", TokenCommand(as.URL()))
	}
}

// authObservation looks at one AU rule of the protected reference server
// and reports whether it is broken, with what it saw.
type authObservation func(t *testing.T, url string, as *authfake.AS) (broken bool, saw string)

// authRuleOf maps each mutant of the protected resource to an observation
// of the rule it breaks.
var authRuleOf = map[mutant.Name]authObservation{
	mutant.AuthAcceptsAnyAudience: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		status, _ := authPost(t, url, "Bearer "+as.Issue("http://127.0.0.1:1/mcp", allScopes, time.Hour), initializeBody)
		return status < 400, fmt.Sprint(status)
	},
	mutant.AuthExpiredAccepted: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		status, _ := authPost(t, url, "Bearer "+as.Issue(url, allScopes, -time.Minute), initializeBody)
		return status < 400, fmt.Sprint(status)
	},
	mutant.AuthTokenInQueryAccepted: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		status, _ := authPost(t, url+"?access_token="+as.Issue(url, allScopes, time.Hour), "", initializeBody)
		return status < 400, fmt.Sprint(status)
	},
	mutant.AuthMalformedAccepted: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		status, _ := authPost(t, url, "Bearer "+as.Issue(url, allScopes, time.Hour)+" extra", initializeBody)
		return status < 400, fmt.Sprint(status)
	},
	mutant.AuthNoTokenAccepted: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		status, _ := authPost(t, url, "", initializeBody)
		return status != 401, fmt.Sprint(status)
	},
	mutant.AuthNoWWWAuthenticate: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		status, challenge := authPost(t, url, "", initializeBody)
		return status == 401 && challenge == "", fmt.Sprint(status, " ", challenge)
	},
	mutant.AuthInsufficientScope401: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		status, _ := authPost(t, url, "Bearer "+as.Issue(url, nil, time.Hour), initializeBody)
		return status != 403, fmt.Sprint(status)
	},
	mutant.AuthInsufficientScopeBare: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		_, challenge := authPost(t, url, "Bearer "+as.Issue(url, nil, time.Hour), initializeBody)
		return !strings.Contains(challenge, `error="insufficient_scope"`) || !strings.Contains(challenge, "scope="), challenge
	},
	mutant.AuthNoResourceMetadata: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		_, challenge := authPost(t, url, "", initializeBody)
		doc := metadata(t, url)
		return !strings.Contains(challenge, "resource_metadata=") && doc == nil, challenge
	},
	mutant.AuthPRMWrongResource: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		doc := metadata(t, url)
		return doc["resource"] != url, fmt.Sprint(doc["resource"])
	},
	mutant.AuthPRMNoServers: func(t *testing.T, url string, as *authfake.AS) (bool, string) {
		doc := metadata(t, url)
		servers, _ := doc["authorization_servers"].([]any)
		return len(servers) == 0, fmt.Sprint(doc["authorization_servers"])
	},
}

var allScopes = []string{ScopeRead, ScopeTools}

// metadata reads the path-suffixed Protected Resource Metadata of the
// server at url; nil when there is none.
func metadata(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(url, mcp.EndpointPath) + mcp.WellKnownPRM + mcp.EndpointPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]any
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&doc) != nil {
		return nil
	}
	return doc
}

func TestEachAuthMutantBreaksItsRule(t *testing.T) {
	for _, m := range mutant.ForRole("server") {
		if !mutant.OfServerAuth(m.Name) {
			continue
		}
		t.Run(string(m.Name), func(t *testing.T) {
			observe, ok := authRuleOf[m.Name]
			if !ok {
				t.Fatalf("no test observes the rule mutant %s breaks (%s)", m.Name, m.Description)
			}
			for _, name := range []mutant.Name{"", m.Name} {
				url, as, stop, err := StartAuth(Options{Mutant: name})
				if err != nil {
					t.Fatal(err)
				}
				broken, saw := observe(t, url, as)
				stop()
				if broken != (name != "") {
					t.Errorf("with mutant %q the rule of %s (%s) broken: %v; saw %s", name, m.Name, m.Description, broken, saw)
				}
			}
		})
	}
}
