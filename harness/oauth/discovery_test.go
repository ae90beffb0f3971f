package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
)

// TestResourceMetadataOrder: the challenge's resource_metadata first, then
// the path-suffixed well-known URI, then the root one (AU-06), stopping at
// the first document found.
func TestResourceMetadataOrder(t *testing.T) {
	as := newAS(t, authfake.Options{})
	for _, tc := range []struct {
		name   string
		header bool     // the challenge names headerPRMPath
		at     []string // where the document is
		want   []string // the paths asked, in order
	}{
		{"header first", true, []string{headerPRMPath, suffixedPRM, rootPRM}, []string{headerPRMPath}},
		{"header missing: suffixed", true, []string{suffixedPRM, rootPRM}, []string{headerPRMPath, suffixedPRM}},
		{"no header: suffixed", false, []string{suffixedPRM, rootPRM}, []string{suffixedPRM}},
		{"then root", false, []string{rootPRM}, []string{suffixedPRM, rootPRM}},
		{"none", true, nil, []string{headerPRMPath, suffixedPRM, rootPRM}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newResource(t, as)
			r.set(func(r *resource) { r.prmAt = tc.at })
			a := newAuthorizer(t, r, "", nil)
			var ch Challenge
			if tc.header {
				ch.ResourceMetadata = r.srv.URL + headerPRMPath
			}
			prm, _, err := a.findResourceMetadata(context.Background(), a.server, ch)
			if err != nil {
				t.Fatal(err)
			}
			if (prm != nil) != (len(tc.at) > 0) {
				t.Errorf("document found: %v, want %v", prm != nil, len(tc.at) > 0)
			}
			var asked []string
			for _, h := range r.hits {
				asked = append(asked, h.URL.Path)
			}
			if !slices.Equal(asked, tc.want) {
				t.Errorf("asked %v, want %v", asked, tc.want)
			}
		})
	}
}

// metadataServer serves authorization server metadata for the issuer
// its URL plus issuerPath at one well-known path (none for ""), and
// records the paths asked.
type metadataServer struct {
	srv    *httptest.Server
	issuer string
	mu     sync.Mutex
	asked  []string
}

func newMetadataServer(t *testing.T, issuerPath, at string, edit func(m map[string]any)) *metadataServer {
	t.Helper()
	s := &metadataServer{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked = append(s.asked, r.URL.Path)
		s.mu.Unlock()
		if at == "" || r.URL.Path != at {
			http.NotFound(w, r)
			return
		}
		m := map[string]any{"issuer": s.issuer, "authorization_endpoint": s.issuer + "/authorize",
			"token_endpoint": s.issuer + "/token", "code_challenge_methods_supported": []string{"S256"}}
		if edit != nil {
			edit(m)
		}
		_ = json.NewEncoder(w).Encode(m)
	}))
	t.Cleanup(s.srv.Close)
	s.issuer = s.srv.URL + issuerPath
	return s
}

// TestServerMetadataOrder: RFC 8414's path-inserted form, then OpenID
// Connect discovery path-inserted and path-appended; at a root issuer the
// two root documents; with neither, the 2025-03-26 default endpoints only
// where no protected resource metadata named the server.
func TestServerMetadataOrder(t *testing.T) {
	const (
		asPath   = authfake.WellKnownAS + "/tenant"
		oidcIns  = authfake.WellKnownOpenID + "/tenant"
		oidcApp  = "/tenant" + authfake.WellKnownOpenID
		asRoot   = authfake.WellKnownAS
		oidcRoot = authfake.WellKnownOpenID
	)
	for _, tc := range []struct {
		name             string
		issuerPath, at   string
		legacy           bool
		want             []string
		fallback, failed bool
	}{
		{"path: RFC 8414 first", "/tenant", asPath, false, []string{asPath}, false, false},
		{"path: OpenID inserted", "/tenant", oidcIns, false, []string{asPath, oidcIns}, false, false},
		{"path: OpenID appended", "/tenant", oidcApp, false, []string{asPath, oidcIns, oidcApp}, false, false},
		{"path: the root document is not the issuer's", "/tenant", asRoot, false, []string{asPath, oidcIns, oidcApp}, false, true},
		{"root: RFC 8414", "", asRoot, false, []string{asRoot}, false, false},
		{"root: OpenID", "", oidcRoot, false, []string{asRoot, oidcRoot}, false, false},
		{"none: refused", "", "", false, []string{asRoot, oidcRoot}, false, true},
		{"none, 2025-03-26: default endpoints", "", "", true, []string{asRoot, oidcRoot}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newMetadataServer(t, tc.issuerPath, tc.at, nil)
			a, err := New(Config{ServerURL: s.srv.URL + mcpPath})
			if err != nil {
				t.Fatal(err)
			}
			m, err := a.findServerMetadata(context.Background(), s.issuer, tc.legacy)
			if (err != nil) != tc.failed {
				t.Fatalf("error %v, want failure %v", err, tc.failed)
			}
			if !slices.Equal(s.asked, tc.want) {
				t.Errorf("asked %v, want %v", s.asked, tc.want)
			}
			if err != nil {
				return
			}
			if m.fallback != tc.fallback || m.Issuer != s.issuer {
				t.Errorf("metadata %+v: want fallback %v, issuer %s", m, tc.fallback, s.issuer)
			}
			if tc.fallback && (m.AuthorizationEndpoint != s.srv.URL+"/authorize" || m.TokenEndpoint != s.srv.URL+"/token" || m.RegistrationEndpoint != s.srv.URL+"/register") {
				t.Errorf("fallback endpoints %+v", m)
			}
		})
	}
}

// TestMetadataIssuerMismatch: metadata naming another issuer than the one
// it was fetched for is refused (RFC 8414 §3.3), before any other request.
func TestMetadataIssuerMismatch(t *testing.T) {
	as := newAS(t, authfake.Options{Case: authfake.CaseIssuerMismatch})
	r := newResource(t, as)
	_, err := post(t, r, newAuthorizer(t, r, "", nil))
	if err == nil || !strings.Contains(err.Error(), authfake.WrongIssuer) || !strings.Contains(err.Error(), "RFC 8414") {
		t.Fatalf("error %v, want one naming the issuer %s and RFC 8414", err, authfake.WrongIssuer)
	}
	if n := len(as.RequestsAt(authfake.EndpointRegister)) + len(as.RequestsAt(authfake.EndpointAuthorize)); n != 0 {
		t.Errorf("%d registration or authorization requests after the mismatch", n)
	}
	// The mismatch is not forgiven at a path issuer either.
	s := newMetadataServer(t, "/tenant", authfake.WellKnownAS+"/tenant", listing("issuer", "http://127.0.0.1:1/tenant"))
	a, _ := New(Config{ServerURL: s.srv.URL + mcpPath})
	if _, err := a.findServerMetadata(context.Background(), s.issuer, false); err == nil {
		t.Error("metadata of another issuer accepted at a path issuer")
	}
}

// TestLegacyFallback: with no protected resource metadata the
// authorization server is the server's origin (2025-03-26), its metadata
// there if it has any, else the default endpoints, and the whole flow
// works either way.
func TestLegacyFallback(t *testing.T) {
	for _, withMetadata := range []bool{true, false} {
		as := newAS(t, authfake.Options{})
		r := newResource(t, as)
		var edit func(map[string]any)
		if withMetadata {
			edit = func(map[string]any) {}
		}
		f := newFrontHandler(as, edit)
		f.issuer = r.srv.URL
		r.set(func(r *resource) { r.prm, r.header, r.origin = nil, false, f })
		a := newAuthorizer(t, r, "", nil)
		mustPost(t, r, a)
		var asked []string
		for _, h := range r.hits {
			if h.URL.Path != mcpPath {
				asked = append(asked, h.URL.Path)
			}
		}
		want := []string{suffixedPRM, rootPRM, authfake.WellKnownAS}
		if !withMetadata {
			want = append(want, authfake.WellKnownOpenID)
		}
		want = append(want, authfake.PathRegister, authfake.PathAuthorize, authfake.PathToken)
		if !slices.Equal(asked, want) {
			t.Errorf("metadata %v: asked %v, want %v", withMetadata, asked, want)
		}
		if got := one(t, as, authfake.EndpointAuthorize).Query["resource"]; !slices.Equal(got, []string{r.url()}) {
			t.Errorf("metadata %v: resource %v, want the server %s", withMetadata, got, r.url())
		}
	}
}

// TestRefusesASWithoutPKCE: an authorization server whose metadata lacks
// code_challenge_methods_supported (or S256 in it) is refused before any
// registration or authorization (AU-11).
func TestRefusesASWithoutPKCE(t *testing.T) {
	as := newAS(t, authfake.Options{Case: authfake.CaseNoPKCE})
	r := newResource(t, as)
	_, err := post(t, r, newAuthorizer(t, r, "", nil))
	if err == nil || !strings.Contains(err.Error(), "S256") {
		t.Fatalf("error %v, want one saying S256 is not advertised", err)
	}
	if n := len(as.RequestsAt(authfake.EndpointRegister)) + len(as.RequestsAt(authfake.EndpointAuthorize)); n != 0 {
		t.Errorf("%d registration or authorization requests to an AS without PKCE", n)
	}
	as2 := newAS(t, authfake.Options{})
	f := newFront(t, as2, listing("code_challenge_methods_supported", []string{"plain"}))
	r2 := newResource(t, as2)
	r2.set(func(r *resource) { r.prm["authorization_servers"] = []string{f.issuer} })
	if _, err := post(t, r2, newAuthorizer(t, r2, "", nil)); err == nil || !strings.Contains(err.Error(), "S256") {
		t.Errorf("an AS offering only plain: error %v, want a refusal", err)
	}
}

// TestPRMResourceMismatch: metadata naming another resource is refused
// (RFC 9728 §3.3); the server's own URL, with a trailing slash or
// differently cased host, and a parent of it are accepted.
func TestPRMResourceMismatch(t *testing.T) {
	as := newAS(t, authfake.Options{})
	for _, tc := range []struct {
		resource func(r *resource) string
		ok       bool
	}{
		{func(r *resource) string { return "http://127.0.0.1:1/mcp" }, false},
		{func(r *resource) string { return r.srv.URL + "/other" }, false},
		{func(r *resource) string { return r.srv.URL + "/mcp-other" }, false},
		{func(r *resource) string { return "https" + strings.TrimPrefix(r.url(), "http") }, false},
		{func(r *resource) string { return r.url() + "#frag" }, false},
		{func(r *resource) string { return r.url() }, true},
		{func(r *resource) string { return r.url() + "/" }, true},
		{func(r *resource) string { return strings.Replace(r.url(), "http://", "HTTP://", 1) }, true},
		{func(r *resource) string { return r.srv.URL }, true},
	} {
		r := newResource(t, as)
		res := tc.resource(r)
		r.set(func(r *resource) { r.prm["resource"] = res })
		a := newAuthorizer(t, r, "", nil)
		_, _, err := a.discoverFor(r)
		if (err == nil) != tc.ok {
			t.Errorf("resource %q: error %v, want accepted %v", res, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "RFC 9728") {
			t.Errorf("resource %q: error %v does not cite RFC 9728", res, err)
		}
	}
}

// discoverFor runs discovery for r's challenge and returns the resource
// parameter and the issuer.
func (a *Authorizer) discoverFor(r *resource) (string, string, error) {
	t, err := a.discover(context.Background(), Challenge{ResourceMetadata: r.srv.URL + headerPRMPath})
	if err != nil {
		return "", "", err
	}
	return t.resource, t.issuer, nil
}

// TestResourceParameter: the resource parameter is the metadata's
// resource, and goes in the authorization request and the token request
// (AU-10).
func TestResourceParameter(t *testing.T) {
	as := newAS(t, authfake.Options{})
	r := newResource(t, as)
	a := newAuthorizer(t, r, "", nil)
	mustPost(t, r, a)
	auth, tok := one(t, as, authfake.EndpointAuthorize), one(t, as, authfake.EndpointToken)
	if got := url.Values(auth.Query).Get("resource"); got != r.url() {
		t.Errorf("authorization request resource %q, want %q", got, r.url())
	}
	if got := url.Values(tok.Form).Get("resource"); got != r.url() {
		t.Errorf("token request resource %q, want %q", got, r.url())
	}
	if _, err := New(Config{ServerURL: "ftp://127.0.0.1/mcp"}); err == nil {
		t.Error("an ftp server URL accepted")
	}
}

// TestRefusesPlainHTTPOffLoopback: an authorization server, or an endpoint
// its metadata names, on plain http off loopback is refused before any
// request to it (OAuth 2.1 §1.5); loopback http and https are not.
func TestRefusesPlainHTTPOffLoopback(t *testing.T) {
	a, err := New(Config{ServerURL: "http://127.0.0.1:1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	for raw, ok := range map[string]bool{
		"https://as.example":         true,
		"http://127.0.0.1:8080":      true,
		"http://127.1.2.3":           true,
		"http://[::1]:8080/tenant":   true,
		"http://LOCALHOST:8080":      true,
		"http://as.example":          false,
		"http://192.0.2.1:8080":      false,
		"http://localhost.example":   false,
		"http://u:pw@192.0.2.1:8080": false,
		"ftp://127.0.0.1":            false,
		"/token":                     false,
	} {
		err := a.secure("authorization server", raw)
		if (err == nil) != ok {
			t.Errorf("%s: error %v, want accepted %v", raw, err, ok)
		}
		if err != nil && strings.Contains(err.Error(), ":pw@") {
			t.Errorf("%s: the error shows the URL's password", raw)
		}
	}
	// An endpoint of the metadata off loopback: refused before the
	// registration, as is the issuer itself (no request leaves).
	as := newAS(t, authfake.Options{})
	f := newFront(t, as, listing("token_endpoint", "http://192.0.2.1/token"))
	r := newResource(t, as)
	r.set(func(r *resource) { r.prm["authorization_servers"] = []string{f.issuer} })
	if _, err := post(t, r, newAuthorizer(t, r, "", nil)); err == nil || !strings.Contains(err.Error(), "token_endpoint") {
		t.Errorf("an http token endpoint off loopback: error %v, want a refusal naming it", err)
	}
	if n := len(as.RequestsAt(authfake.EndpointRegister)); n != 0 {
		t.Errorf("%d registrations with an AS whose token endpoint is plain http off loopback", n)
	}
	r.set(func(r *resource) { r.prm["authorization_servers"] = []string{"http://192.0.2.1"} })
	if _, err := post(t, r, newAuthorizer(t, r, "", nil)); err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("an http issuer off loopback: error %v, want a refusal", err)
	}
}
