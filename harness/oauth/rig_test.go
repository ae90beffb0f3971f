package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The paths of the protected resource the tests serve.
const (
	mcpPath       = "/mcp"
	headerPRMPath = "/prm-from-header"
	suffixedPRM   = "/.well-known/oauth-protected-resource" + mcpPath
	rootPRM       = "/.well-known/oauth-protected-resource"
)

// resource is a protected MCP endpoint on 127.0.0.1 (path /mcp) that
// accepts the tokens of its authorization server bound to it, serves its
// protected resource metadata where the test says, and records every
// request. Its fields may change between requests; hold mu for that.
type resource struct {
	srv *httptest.Server

	mu sync.Mutex
	// as validates the tokens (authfake.AS.Validate).
	as *authfake.AS
	// prm is the metadata document; nil serves none.
	prm map[string]any
	// prmAt are the paths the document is served at.
	prmAt []string
	// header names headerPRMPath in the challenge's resource_metadata.
	header bool
	// scope is the 401 challenge's scope ("": none).
	scope string
	// need are scopes a token must hold, else 403 insufficient_scope
	// naming them.
	need []string
	// forbid, when set, answers 403 insufficient_scope (scope "mcp:admin")
	// to every request with a valid token while it returns true.
	forbid func() bool
	// refused are tokens answered 401 although valid.
	refused map[string]bool
	// origin serves every other path (an authorization server at the
	// resource's origin); nil answers 404.
	origin http.Handler
	hits   []*http.Request
}

// newResource starts a resource protected by as, serving its metadata at
// the path-suffixed well-known URI and naming it in its challenges.
func newResource(t *testing.T, as *authfake.AS) *resource {
	t.Helper()
	r := &resource{as: as, prmAt: []string{headerPRMPath, suffixedPRM}, header: true, refused: map[string]bool{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	r.prm = map[string]any{"resource": r.url(), "authorization_servers": []string{as.URL()}}
	return r
}

// url is the MCP endpoint.
func (r *resource) url() string { return r.srv.URL + mcpPath }

func (r *resource) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hits = append(r.hits, req.Clone(context.Background()))
	switch {
	case req.URL.Path == mcpPath:
		r.serveMCP(w, req)
	case slices.Contains(r.prmAt, req.URL.Path) && r.prm != nil:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(r.prm)
	case r.origin != nil:
		r.origin.ServeHTTP(w, req)
	default:
		http.NotFound(w, req)
	}
}

func (r *resource) serveMCP(w http.ResponseWriter, req *http.Request) {
	tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	g, err := r.as.Validate(tok)
	if !ok || err != nil || g.Audience != r.url() || r.refused[tok] {
		ch := `Bearer error="invalid_token"`
		if r.header {
			ch += `, resource_metadata="` + r.srv.URL + headerPRMPath + `"`
		}
		if r.scope != "" {
			ch += `, scope="` + r.scope + `"`
		}
		w.Header().Set("WWW-Authenticate", ch)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var missing []string
	for _, s := range r.need {
		if !slices.Contains(g.Scopes, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 && r.forbid != nil && r.forbid() {
		missing = []string{"mcp:admin"}
	}
	if len(missing) > 0 {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+strings.Join(missing, " ")+`", resource_metadata="`+r.srv.URL+headerPRMPath+`"`)
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	_, _ = fmt.Fprint(w, "ok")
}

// set changes the resource under its lock.
func (r *resource) set(f func(r *resource)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(r)
}

// mcpRequests are the requests the MCP endpoint received.
func (r *resource) mcpRequests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*http.Request
	for _, h := range r.hits {
		if h.URL.Path == mcpPath {
			out = append(out, h)
		}
	}
	return out
}

// newAS starts a fake authorization server.
func newAS(t *testing.T, o authfake.Options) *authfake.AS {
	t.Helper()
	as, err := authfake.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = as.Close() })
	return as
}

// newAuthorizer is an Authorizer for r with the mutant m and the
// configuration edit may change.
func newAuthorizer(t *testing.T, r *resource, m mutant.Name, edit func(*Config)) *Authorizer {
	t.Helper()
	cfg := Config{ServerURL: r.url(), Mutant: m, Log: func(line string) { t.Log(line) }}
	if edit != nil {
		edit(&cfg)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// post sends one POST with a body to the resource through a's transport
// and returns the status, or the error.
func post(t *testing.T, r *resource, a *Authorizer) (int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: a.Wrap(nil)}).Do(req)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// mustPost is post that fails the test unless the answer is 200.
func mustPost(t *testing.T, r *resource, a *Authorizer) {
	t.Helper()
	if st, err := post(t, r, a); err != nil || st != http.StatusOK {
		t.Fatalf("POST %s: status %d, error %v", r.url(), st, err)
	}
}

// one is the only request as recorded at endpoint.
func one(t *testing.T, as *authfake.AS, endpoint string) authfake.Request {
	t.Helper()
	rs := as.RequestsAt(endpoint)
	if len(rs) != 1 {
		t.Fatalf("%d %s requests, want 1: %+v", len(rs), endpoint, rs)
	}
	return rs[0]
}

// front is an authorization server whose issuer is its own origin and
// whose metadata the test edits, in front of a fake: it serves the fake's
// metadata with its own URLs (none at all when edit is nil and metadata
// is false) and passes every other request on to the fake, with the iss
// of the fake's redirects rewritten to its own issuer.
type front struct {
	as       *authfake.AS
	issuer   string // set once the server runs
	metadata bool
	edit     func(m map[string]any)
	proxy    *httputil.ReverseProxy
}

// newFront starts a front for as (which must have no issuer path) on its
// own port.
func newFront(t *testing.T, as *authfake.AS, edit func(m map[string]any)) *front {
	t.Helper()
	f := newFrontHandler(as, edit)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.issuer = srv.URL
	return f
}

// newFrontHandler is a front for as whose issuer the caller sets; with
// edit nil it serves no metadata.
func newFrontHandler(as *authfake.AS, edit func(m map[string]any)) *front {
	target, _ := url.Parse(as.URL())
	f := &front{as: as, metadata: edit != nil, edit: edit}
	f.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		ModifyResponse: func(resp *http.Response) error {
			loc, err := url.Parse(resp.Header.Get("Location"))
			if err != nil || resp.Header.Get("Location") == "" {
				return nil
			}
			q := loc.Query()
			if q.Get("iss") == as.URL() {
				q.Set("iss", f.issuer)
				loc.RawQuery = q.Encode()
				resp.Header.Set("Location", loc.String())
			}
			return nil
		},
	}
	return f
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == authfake.WellKnownAS || r.URL.Path == authfake.WellKnownOpenID {
		if !f.metadata {
			http.NotFound(w, r)
			return
		}
		m := f.as.Metadata()
		for k, v := range m {
			if s, ok := v.(string); ok {
				m[k] = strings.Replace(s, f.as.URL(), f.issuer, 1)
			}
		}
		f.edit(m)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(m)
		return
	}
	f.proxy.ServeHTTP(w, r)
}

// listing returns an edit that sets the metadata member key to value.
func listing(key string, value any) func(m map[string]any) {
	return func(m map[string]any) { m[key] = value }
}
