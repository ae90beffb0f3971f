package authfake

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// noRedirect is an HTTP client that hands back a 302 instead of following it.
var noRedirect = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       10 * time.Second,
}

func start(t *testing.T, o Options) *AS {
	t.Helper()
	a, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func getJSON(t *testing.T, u string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return do(t, req)
}

// do sends req and decodes the JSON object it gets back.
func do(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func postForm(t *testing.T, u string, f url.Values, basicID, basicSecret string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basicID != "" {
		req.SetBasicAuth(url.QueryEscape(basicID), url.QueryEscape(basicSecret))
	}
	return do(t, req)
}

func register(t *testing.T, a *AS, method string) (id, secret string, status int) {
	t.Helper()
	body := `{"redirect_uris":["http://127.0.0.1:1/cb"],"token_endpoint_auth_method":"` + method + `","client_name":"t"}`
	resp, err := noRedirect.Post(a.URL()+PathRegister, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	id, _ = m["client_id"].(string)
	secret, _ = m["client_secret"].(string)
	return id, secret, resp.StatusCode
}

const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

// authorize runs the authorization request and returns the redirect's query.
func authorize(t *testing.T, a *AS, id string, pkce bool) url.Values {
	t.Helper()
	q := url.Values{
		"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"http://127.0.0.1:1/cb"},
		"state": {"st"}, "scope": {"mcp:read mcp:tools"}, "resource": {"http://127.0.0.1:2/mcp"},
	}
	if pkce {
		q.Set("code_challenge", s256(verifier))
		q.Set("code_challenge_method", "S256")
	}
	resp, err := noRedirect.Get(a.URL() + PathAuthorize + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: status %d, want 302", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), "http://127.0.0.1:1/cb?") {
		t.Fatalf("authorize: Location %q", resp.Header.Get("Location"))
	}
	return loc.Query()
}

func TestFullFlowBasic(t *testing.T) {
	a := start(t, Options{})
	st, m := getJSON(t, a.URL()+WellKnownAS)
	if st != 200 || m["issuer"] != a.URL() || m["code_challenge_methods_supported"] == nil {
		t.Fatalf("metadata: %d %v", st, m)
	}
	if st, m := getJSON(t, a.URL()+WellKnownOpenID); st != 200 || m["issuer"] != a.URL() {
		t.Fatalf("openid configuration: %d %v", st, m)
	}
	id, secret, st := register(t, a, AuthBasic)
	if st != http.StatusCreated || id == "" || secret == "" {
		t.Fatalf("register: %d %q", st, id)
	}
	back := authorize(t, a, id, true)
	if back.Get("state") != "st" || back.Get("iss") != a.URL() || back.Get("code") == "" {
		t.Fatalf("redirect query %v", back)
	}
	f := url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")},
		"redirect_uri": {"http://127.0.0.1:1/cb"}, "code_verifier": {"wrong-verifier-wrong-verifier-wrong-verifier"}}
	if st, m := postForm(t, a.URL()+PathToken, f, id, secret); st != 400 || m["error"] != "invalid_grant" {
		t.Fatalf("wrong verifier: %d %v", st, m)
	}
	back = authorize(t, a, id, true)
	f.Set("code", back.Get("code"))
	f.Set("code_verifier", verifier)
	st, m = postForm(t, a.URL()+PathToken, f, id, secret)
	if st != 200 {
		t.Fatalf("token: %d %v", st, m)
	}
	g, err := a.Validate(m["access_token"].(string))
	if err != nil || g.Audience != "http://127.0.0.1:2/mcp" || strings.Join(g.Scopes, " ") != "mcp:read mcp:tools" || g.Issuer != a.URL() {
		t.Fatalf("validate: %+v %v", g, err)
	}
	rt := m["refresh_token"].(string)
	st, m = postForm(t, a.URL()+PathToken, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "scope": {"mcp:read"}}, id, secret)
	if st != 200 || m["scope"] != "mcp:read" {
		t.Fatalf("refresh: %d %v", st, m)
	}
	var methods []string
	for _, rq := range a.Requests() {
		if rq.Endpoint == EndpointToken {
			methods = append(methods, rq.AuthMethod)
		}
	}
	if strings.Join(methods, ",") != "client_secret_basic,client_secret_basic,client_secret_basic" {
		t.Fatalf("recorded auth methods %v", methods)
	}
}

func TestAuthMethodsPostAndNone(t *testing.T) {
	a := start(t, Options{})
	for _, method := range []string{AuthPost, AuthNone} {
		id, secret, _ := register(t, a, method)
		back := authorize(t, a, id, true)
		f := url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "client_id": {id},
			"redirect_uri": {"http://127.0.0.1:1/cb"}, "code_verifier": {verifier}}
		if secret != "" {
			f.Set("client_secret", secret)
		}
		if st, m := postForm(t, a.URL()+PathToken, f, "", ""); st != 200 {
			t.Fatalf("%s: %d %v", method, st, m)
		}
	}
	if got := a.Requests(); got[len(got)-1].AuthMethod != AuthNone {
		t.Fatalf("last auth method %q", got[len(got)-1].AuthMethod)
	}
}

func TestPKCERequired(t *testing.T) {
	a := start(t, Options{})
	id, _, _ := register(t, a, AuthNone)
	if back := authorize(t, a, id, false); back.Get("error") != "invalid_request" || back.Get("code") != "" {
		t.Fatalf("without PKCE: %v", back)
	}
}

func TestIssuerPath(t *testing.T) {
	a := start(t, Options{IssuerPath: "/tenant"})
	origin := strings.TrimSuffix(a.URL(), "/tenant")
	for _, p := range []string{WellKnownAS + "/tenant", WellKnownOpenID + "/tenant", "/tenant" + WellKnownOpenID} {
		if st, m := getJSON(t, origin+p); st != 200 || m["issuer"] != a.URL() {
			t.Fatalf("%s: %d %v", p, st, m)
		}
	}
	if st, _ := getJSON(t, origin+WellKnownAS); st != 404 {
		t.Fatalf("root metadata of a path issuer: %d, want 404", st)
	}
}

func TestCases(t *testing.T) {
	t.Run(CaseIssuerMismatch, func(t *testing.T) {
		a := start(t, Options{Case: CaseIssuerMismatch})
		if _, m := getJSON(t, a.URL()+WellKnownAS); m["issuer"] != WrongIssuer {
			t.Fatalf("issuer %v", m["issuer"])
		}
	})
	t.Run(CaseNoPKCE, func(t *testing.T) {
		a := start(t, Options{Case: CaseNoPKCE})
		if _, m := getJSON(t, a.URL()+WellKnownAS); m["code_challenge_methods_supported"] != nil {
			t.Fatal("PKCE advertised")
		}
		id, _, _ := register(t, a, AuthNone)
		if back := authorize(t, a, id, false); back.Get("code") == "" {
			t.Fatalf("no code without PKCE: %v", back)
		}
	})
	t.Run(CaseIssMissing, func(t *testing.T) {
		a := start(t, Options{Case: CaseIssMissing})
		id, _, _ := register(t, a, AuthNone)
		if back := authorize(t, a, id, true); back.Has("iss") || back.Get("code") == "" {
			t.Fatalf("redirect %v", back)
		}
	})
	t.Run(CaseIssWrong, func(t *testing.T) {
		a := start(t, Options{Case: CaseIssWrong})
		id, _, _ := register(t, a, AuthNone)
		if back := authorize(t, a, id, true); back.Get("iss") != WrongIssuer {
			t.Fatalf("redirect %v", back)
		}
	})
	t.Run(CaseRegistrationRefused, func(t *testing.T) {
		a := start(t, Options{Case: CaseRegistrationRefused})
		if _, _, st := register(t, a, AuthNone); st != 400 {
			t.Fatalf("register: %d", st)
		}
	})
	t.Run(CaseOtherResource, func(t *testing.T) {
		a := start(t, Options{Case: CaseOtherResource})
		id, _, _ := register(t, a, AuthNone)
		back := authorize(t, a, id, true)
		_, m := postForm(t, a.URL()+PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")},
			"client_id": {id}, "redirect_uri": {"http://127.0.0.1:1/cb"}, "code_verifier": {verifier}}, "", "")
		if g, _ := a.Validate(m["access_token"].(string)); g.Audience != OtherResource {
			t.Fatalf("audience %q", g.Audience)
		}
	})
	t.Run(CaseAuthMethodMismatch, func(t *testing.T) {
		a := start(t, Options{Case: CaseAuthMethodMismatch})
		id, secret, _ := register(t, a, AuthBasic)
		back := authorize(t, a, id, true)
		f := url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")},
			"redirect_uri": {"http://127.0.0.1:1/cb"}, "code_verifier": {verifier}}
		if st, m := postForm(t, a.URL()+PathToken, f, id, secret); st != 401 || m["error"] != "invalid_client" {
			t.Fatalf("basic: %d %v", st, m)
		}
	})
	if _, err := Start(Options{Case: "nope"}); err == nil || !strings.Contains(err.Error(), CaseGood) {
		t.Fatalf("unknown case: %v", err)
	}
}

func TestIssueAndValidate(t *testing.T) {
	a := start(t, Options{})
	tok := a.Issue("http://r/mcp", []string{"mcp:read"}, time.Hour)
	if g, err := a.Validate(tok); err != nil || g.Audience != "http://r/mcp" {
		t.Fatalf("valid: %+v %v", g, err)
	}
	if _, err := a.Validate(a.Issue("http://r/mcp", nil, -time.Minute)); !errors.Is(err, ErrExpired) {
		t.Fatalf("expired: %v", err)
	}
	if _, err := a.Validate("nope"); !errors.Is(err, ErrUnknownToken) {
		t.Fatalf("unknown: %v", err)
	}
	st, m := postForm(t, a.URL()+PathIssue, url.Values{"resource": {"http://r/mcp"}, "scope": {"mcp:tools"}, "ttl": {"-1s"}}, "", "")
	if st != 200 {
		t.Fatalf("issue endpoint: %d %v", st, m)
	}
	if _, err := a.Validate(m["access_token"].(string)); !errors.Is(err, ErrExpired) {
		t.Fatalf("issued with ttl -1s: %v", err)
	}
}

// TestSecretsCarryThePrefix: every secret the fake hands out starts with
// SecretPrefix, and nothing public (a client ID) does.
func TestSecretsCarryThePrefix(t *testing.T) {
	a := start(t, Options{})
	id, secret, _ := register(t, a, AuthBasic)
	back := authorize(t, a, id, true)
	f := url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")},
		"redirect_uri": {"http://127.0.0.1:1/cb"}, "code_verifier": {verifier}}
	if st, m := postForm(t, a.URL()+PathToken, f, id, secret); st != 200 || m["refresh_token"] == nil {
		t.Fatalf("token: %d %v", st, m)
	}
	minted := a.Minted()
	if len(minted) != 4 {
		t.Fatalf("%d secrets minted, want the client secret, the code, an access and a refresh token", len(minted))
	}
	for _, s := range minted {
		if !strings.HasPrefix(s, SecretPrefix) || len(s) < len(SecretPrefix)+43 {
			t.Errorf("secret %q lacks the prefix or its 32 random bytes", s)
		}
	}
	if strings.Contains(id, SecretPrefix) {
		t.Errorf("client ID %q carries the secret prefix", id)
	}
}
