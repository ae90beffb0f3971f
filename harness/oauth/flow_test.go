package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
)

// query is a recorded request's query or form as url.Values.
func query(v map[string][]string) url.Values { return url.Values(v) }

// TestFlowPKCE: a full flow against a well-behaved server: PKCE S256 with
// a verifier of 43 or more characters that hashes to the challenge, the
// state echoed, the token sent as a Bearer header only (AU-08, AU-11).
func TestFlowPKCE(t *testing.T) {
	as := newAS(t, authfake.Options{})
	r := newResource(t, as)
	a := newAuthorizer(t, r, "", nil)
	mustPost(t, r, a)
	auth := query(one(t, as, authfake.EndpointAuthorize).Query)
	form := query(one(t, as, authfake.EndpointToken).Form)
	verifier := form.Get("code_verifier")
	sum := sha256.Sum256([]byte(verifier))
	if auth.Get("code_challenge_method") != "S256" || auth.Get("code_challenge") != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Errorf("code_challenge %q (%s) is not S256 of the verifier", auth.Get("code_challenge"), auth.Get("code_challenge_method"))
	}
	if len(verifier) < 43 || len(verifier) > 128 {
		t.Errorf("code_verifier of %d characters, want 43 to 128 (RFC 7636 §4.1)", len(verifier))
	}
	if auth.Get("state") == "" || auth.Get("redirect_uri") != DefaultRedirectURI || auth.Get("response_type") != "code" {
		t.Errorf("authorization request %v", auth)
	}
	if form.Get("grant_type") != "authorization_code" || form.Get("redirect_uri") != DefaultRedirectURI {
		t.Errorf("token request %v", form)
	}
	reqs := r.mcpRequests()
	if len(reqs) != 2 || reqs[0].Header.Get("Authorization") != "" || reqs[1].Header.Get("Authorization") != "Bearer "+a.Token() {
		t.Fatalf("MCP requests: %d, want the first without a token and the retry with it", len(reqs))
	}
	if reqs[1].URL.RawQuery != "" {
		t.Errorf("the retry has a query %q", reqs[1].URL.RawQuery)
	}
	if g, err := as.Validate(a.Token()); err != nil || g.Audience != r.url() {
		t.Errorf("the token: %+v %v", g, err)
	}
	mustPost(t, r, a)
	if n := len(as.RequestsAt(authfake.EndpointAuthorize)); n != 1 {
		t.Errorf("%d authorizations for two requests, want 1", n)
	}
}

// TestScopeSelection: the challenge's scope, else the metadata's
// scopes_supported, else no scope parameter; offline_access added where
// the authorization server lists it (AU-07).
func TestScopeSelection(t *testing.T) {
	for _, tc := range []struct {
		name      string
		challenge string
		supported []string
		asScopes  []string
		want      string // "-": no scope parameter
	}{
		{"challenge", "mcp:tools", []string{"mcp:read"}, nil, "mcp:tools offline_access"},
		{"scopes_supported", "", []string{"mcp:read", "mcp:tools"}, nil, "mcp:read mcp:tools offline_access"},
		{"neither", "", nil, nil, "-"},
		{"no offline_access at the AS", "mcp:tools", nil, []string{"mcp:tools"}, "mcp:tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newAS(t, authfake.Options{Scopes: tc.asScopes})
			r := newResource(t, as)
			r.set(func(r *resource) {
				r.scope = tc.challenge
				if tc.supported != nil {
					r.prm["scopes_supported"] = tc.supported
				}
			})
			mustPost(t, r, newAuthorizer(t, r, "", nil))
			auth := query(one(t, as, authfake.EndpointAuthorize).Query)
			got := auth.Get("scope")
			if !auth.Has("scope") {
				got = "-"
			}
			if got != tc.want {
				t.Errorf("scope %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStepUp: a 403 insufficient_scope re-authorizes with the scope held
// and the scope challenged, and the request succeeds with the new token.
func TestStepUp(t *testing.T) {
	as := newAS(t, authfake.Options{})
	r := newResource(t, as)
	r.set(func(r *resource) { r.scope, r.need = "mcp:read", []string{"mcp:read", "mcp:admin"} })
	a := newAuthorizer(t, r, "", nil)
	mustPost(t, r, a)
	auths := as.RequestsAt(authfake.EndpointAuthorize)
	if len(auths) != 2 {
		t.Fatalf("%d authorizations, want 2", len(auths))
	}
	if got := query(auths[1].Query).Get("scope"); got != "mcp:read offline_access mcp:admin" {
		t.Errorf("step-up scope %q, want the held scope and mcp:admin", got)
	}
}

// TestStepUpLimit: a resource that answers every token 403
// insufficient_scope gets 1 + MaxStepUps authorizations over the client's
// life, then its 403 back.
func TestStepUpLimit(t *testing.T) {
	for _, tc := range []struct {
		max, want int
	}{{0, 1 + DefaultMaxStepUps}, {1, 2}, {-1, 1}} {
		as := newAS(t, authfake.Options{})
		r := newResource(t, as)
		r.set(func(r *resource) { r.forbid = func() bool { return true } })
		a := newAuthorizer(t, r, "", func(c *Config) { c.MaxStepUps = tc.max })
		for range 2 {
			if st, err := post(t, r, a); err != nil || st != http.StatusForbidden {
				t.Fatalf("MaxStepUps %d: status %d, error %v; want 403", tc.max, st, err)
			}
		}
		if n := len(as.RequestsAt(authfake.EndpointAuthorize)); n != tc.want {
			t.Errorf("MaxStepUps %d: %d authorizations over two requests, want %d", tc.max, n, tc.want)
		}
	}
}

// TestIssCheck: iss missing where the server advertises it, or not the
// recorded issuer, and the code is not redeemed (RFC 9207, AU-12).
func TestIssCheck(t *testing.T) {
	for _, c := range []string{authfake.CaseIssMissing, authfake.CaseIssWrong} {
		as := newAS(t, authfake.Options{Case: c})
		r := newResource(t, as)
		_, err := post(t, r, newAuthorizer(t, r, "", nil))
		if err == nil || !strings.Contains(err.Error(), "RFC 9207") {
			t.Errorf("%s: error %v, want a refusal citing RFC 9207", c, err)
		}
		if n := len(as.RequestsAt(authfake.EndpointToken)); n != 0 {
			t.Errorf("%s: %d token requests, want none", c, n)
		}
		if err != nil && strings.Contains(err.Error(), as.Minted()[0]) {
			t.Errorf("%s: the error shows the authorization code", c)
		}
	}
	// Without authorization_response_iss_parameter_supported a missing iss
	// is accepted.
	as := newAS(t, authfake.Options{Case: authfake.CaseIssMissing})
	f := newFront(t, as, listing("authorization_response_iss_parameter_supported", false))
	r := newResource(t, as)
	r.set(func(r *resource) { r.prm["authorization_servers"] = []string{f.issuer} })
	mustPost(t, r, newAuthorizer(t, r, "", nil))
}

// preClient is a pre-registered client of the fakes.
var preClient = authfake.Client{ID: "pre-registered", Secret: "pre-registered-secret-0123456789", RedirectURIs: []string{DefaultRedirectURI}}

// TestRegistrationOrder: pre-registered credentials, then a client ID
// metadata document where the server supports them, then dynamic
// registration; a refused registration is an error naming the way out.
func TestRegistrationOrder(t *testing.T) {
	const cimd = "https://client.example/mcpconform.json"
	for _, tc := range []struct {
		name       string
		o          authfake.Options
		cfg        Config
		clientID   string // "dynamic": the one the registration returned
		registered bool
	}{
		{"pre-registered first", authfake.Options{ClientIDMetadata: true, Clients: []authfake.Client{preClient}},
			Config{ClientID: preClient.ID, ClientSecret: preClient.Secret, ClientMetadataURL: cimd}, preClient.ID, false},
		{"then the metadata document", authfake.Options{ClientIDMetadata: true}, Config{ClientMetadataURL: cimd}, cimd, false},
		{"not where unsupported", authfake.Options{}, Config{ClientMetadataURL: cimd}, "dynamic", true},
		{"dynamic", authfake.Options{}, Config{}, "dynamic", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newAS(t, tc.o)
			r := newResource(t, as)
			mustPost(t, r, newAuthorizer(t, r, "", func(c *Config) {
				c.ClientID, c.ClientSecret, c.ClientMetadataURL = tc.cfg.ClientID, tc.cfg.ClientSecret, tc.cfg.ClientMetadataURL
			}))
			regs := as.RequestsAt(authfake.EndpointRegister)
			if (len(regs) == 1) != tc.registered || len(regs) > 1 {
				t.Fatalf("%d registrations, want registered %v", len(regs), tc.registered)
			}
			got := query(one(t, as, authfake.EndpointAuthorize).Query).Get("client_id")
			if tc.clientID == "dynamic" {
				if !strings.HasPrefix(got, "client-") {
					t.Errorf("client_id %q, want the registered one", got)
				}
			} else if got != tc.clientID {
				t.Errorf("client_id %q, want %q", got, tc.clientID)
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		as := newAS(t, authfake.Options{Case: authfake.CaseRegistrationRefused})
		r := newResource(t, as)
		_, err := post(t, r, newAuthorizer(t, r, "", nil))
		if err == nil || !strings.Contains(err.Error(), "registration") || !strings.Contains(err.Error(), "invalid_client_metadata") {
			t.Errorf("error %v, want the refused registration with its error code", err)
		}
		if n := len(as.RequestsAt(authfake.EndpointAuthorize)); n != 0 {
			t.Errorf("%d authorization requests after a refused registration", n)
		}
	})
	t.Run("no way to register", func(t *testing.T) {
		as := newAS(t, authfake.Options{})
		f := newFront(t, as, func(m map[string]any) { delete(m, "registration_endpoint") })
		r := newResource(t, as)
		r.set(func(r *resource) { r.prm["authorization_servers"] = []string{f.issuer} })
		_, err := post(t, r, newAuthorizer(t, r, "", nil))
		if err == nil || !strings.Contains(err.Error(), EnvClient) || !strings.Contains(err.Error(), EnvClientMetadataURL) {
			t.Errorf("error %v, want one naming %s and %s", err, EnvClient, EnvClientMetadataURL)
		}
	})
}

// TestTokenEndpointAuthMethods: client_secret_basic where the server lists
// it (or lists nothing), client_secret_post where it lists only that, none
// for a public client; a dynamic registration asks for none where the
// server offers it. The method is used as registered.
func TestTokenEndpointAuthMethods(t *testing.T) {
	basicPost := []string{authfake.AuthBasic, authfake.AuthPost}
	for _, tc := range []struct {
		name    string
		methods []string // token_endpoint_auth_methods_supported; nil: as the fake lists them
		pre     *authfake.Client
		want    string
	}{
		{"pre-registered confidential: basic", nil, &preClient, authfake.AuthBasic},
		{"pre-registered, AS lists nothing: basic", []string{}, &preClient, authfake.AuthBasic},
		{"pre-registered, AS lists post only: post", []string{authfake.AuthPost}, &preClient, authfake.AuthPost},
		{"pre-registered public: none", nil, &authfake.Client{ID: "public", RedirectURIs: []string{DefaultRedirectURI}, AuthMethod: authfake.AuthNone}, authfake.AuthNone},
		{"dynamic, AS offers none: none", nil, nil, authfake.AuthNone},
		{"dynamic, AS offers basic and post: basic", basicPost, nil, authfake.AuthBasic},
		{"dynamic, AS offers post only: post", []string{authfake.AuthPost}, nil, authfake.AuthPost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := authfake.Options{}
			if tc.pre != nil {
				o.Clients = []authfake.Client{*tc.pre}
			}
			as := newAS(t, o)
			r := newResource(t, as)
			if tc.methods != nil {
				f := newFront(t, as, listing("token_endpoint_auth_methods_supported", tc.methods))
				r.set(func(r *resource) { r.prm["authorization_servers"] = []string{f.issuer} })
			}
			a := newAuthorizer(t, r, "", func(c *Config) {
				if tc.pre != nil {
					c.ClientID, c.ClientSecret = tc.pre.ID, tc.pre.Secret
				}
			})
			mustPost(t, r, a)
			tok := one(t, as, authfake.EndpointToken)
			if tok.AuthMethod != tc.want {
				t.Errorf("authenticated with %s, want %s", tok.AuthMethod, tc.want)
			}
			form := query(tok.Form)
			basic := tok.Header.Get("Authorization") != ""
			switch tc.want {
			case authfake.AuthBasic:
				if form.Has("client_secret") || !basic {
					t.Errorf("basic: Authorization %v, form %v", basic, form)
				}
			case authfake.AuthPost:
				if form.Get("client_id") == "" || basic {
					t.Errorf("post: Authorization %v, client_id %q", basic, form.Get("client_id"))
				}
			case authfake.AuthNone:
				if form.Get("client_id") == "" || form.Has("client_secret") || basic {
					t.Errorf("none: Authorization %v, form %v", basic, form)
				}
			}
		})
	}
	t.Run("the AS demands another method", func(t *testing.T) {
		as := newAS(t, authfake.Options{Case: authfake.CaseAuthMethodMismatch, Clients: []authfake.Client{preClient}})
		r := newResource(t, as)
		_, err := post(t, r, newAuthorizer(t, r, "", func(c *Config) { c.ClientID, c.ClientSecret = preClient.ID, preClient.Secret }))
		if err == nil || !strings.Contains(err.Error(), "invalid_client") {
			t.Errorf("error %v, want the token endpoint's invalid_client", err)
		}
		if err != nil && strings.Contains(err.Error(), preClient.Secret) {
			t.Error("the error shows the client secret")
		}
		if tok := one(t, as, authfake.EndpointToken); tok.AuthMethod != authfake.AuthBasic {
			t.Errorf("authenticated with %s, want the client's pick, %s", tok.AuthMethod, authfake.AuthBasic)
		}
	})
}

// TestRefresh: a token the resource stops accepting is refreshed at the
// token endpoint with the refresh token and the resource, without a new
// authorization.
func TestRefresh(t *testing.T) {
	as := newAS(t, authfake.Options{})
	r := newResource(t, as)
	r.set(func(r *resource) { r.scope = "mcp:read" })
	a := newAuthorizer(t, r, "", nil)
	mustPost(t, r, a)
	first := a.Token()
	r.set(func(r *resource) { r.refused[first] = true })
	mustPost(t, r, a)
	if a.Token() == first || a.Token() == "" {
		t.Fatal("the client holds the refused token still")
	}
	toks := as.RequestsAt(authfake.EndpointToken)
	var grants []string
	for _, tok := range toks {
		grants = append(grants, query(tok.Form).Get("grant_type"))
	}
	if !slices.Equal(grants, []string{"authorization_code", "refresh_token"}) {
		t.Fatalf("token requests %v, want a code and a refresh", grants)
	}
	if f := query(toks[1].Form); f.Get("refresh_token") == "" || f.Get("resource") != r.url() {
		t.Errorf("refresh request: refresh_token present %v, resource %q", f.Get("refresh_token") != "", f.Get("resource"))
	}
	if n := len(as.RequestsAt(authfake.EndpointAuthorize)); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}
	// A refresh the AS refuses falls back to a new authorization.
	r.set(func(r *resource) { r.refused[a.Token()] = true })
	a.mu.Lock()
	a.current.refresh = "not-a-refresh-token"
	a.mu.Unlock()
	mustPost(t, r, a)
	if n := len(as.RequestsAt(authfake.EndpointAuthorize)); n != 2 {
		t.Errorf("%d authorizations after a refused refresh, want 2", n)
	}
}

// TestCredentialsKeyedByIssuer: after the resource moves to another
// authorization server, the client registers there and never presents
// the first server's credentials (AU-12).
func TestCredentialsKeyedByIssuer(t *testing.T) {
	as1, as2 := newAS(t, authfake.Options{}), newAS(t, authfake.Options{})
	r := newResource(t, as1)
	a := newAuthorizer(t, r, "", nil)
	mustPost(t, r, a)
	first := query(one(t, as1, authfake.EndpointAuthorize).Query).Get("client_id")
	r.set(func(r *resource) { r.as, r.prm["authorization_servers"] = as2, []string{as2.URL()} })
	mustPost(t, r, a)
	one(t, as2, authfake.EndpointRegister)
	if got := query(one(t, as2, authfake.EndpointAuthorize).Query).Get("client_id"); got == first || got == "" {
		t.Errorf("client_id %q at the second server, want its own registration", got)
	}
	if n := len(as1.RequestsAt(authfake.EndpointToken)); n != 1 {
		t.Errorf("%d token requests at the first server, want 1 (no refresh there after the move)", n)
	}
	// Back at the first server, its registration is used again.
	r.set(func(r *resource) { r.as, r.prm["authorization_servers"] = as1, []string{as1.URL()} })
	mustPost(t, r, a)
	if n := len(as1.RequestsAt(authfake.EndpointRegister)); n != 1 {
		t.Errorf("%d registrations at the first server, want 1", n)
	}
}

// TestRedirectURIComparedWhole: a redirect to a path that only starts
// with the redirect URI's is a hop to follow, not the authorization
// response; its code is not taken.
func TestRedirectURIComparedWhole(t *testing.T) {
	const redirect = "http://127.0.0.1:1/cb" // nothing listens on port 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, redirect+"-elsewhere?code=stolen&state="+r.URL.Query().Get("state"), http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	a, err := New(Config{ServerURL: srv.URL + mcpPath, RedirectURI: redirect})
	if err != nil {
		t.Fatal(err)
	}
	tg := &target{issuer: srv.URL, meta: &serverMetadata{Issuer: srv.URL}}
	if code, err := a.followAuthorization(context.Background(), srv.URL+"/authorize?state=s1", "s1", tg); err == nil {
		t.Errorf("code %q taken from a redirect to another path", code)
	}
	if !a.isRedirectURI(mustParse(t, redirect+"?code=c&state=s1")) || !a.isRedirectURI(mustParse(t, "HTTP://127.0.0.1:1/cb")) {
		t.Error("the redirect URI itself, with a query or a differently cased scheme, is not recognised")
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
