// Package resourcefake is a fake protected MCP server for certifying a
// client's OAuth 2.1 (the http.client.auth.* checks): a front on
// 127.0.0.1 that answers a request without a valid bearer token 401 with
// a Bearer challenge, serves Protected Resource Metadata (RFC 9728) that
// lists a loopback authorization server of package authfake, checks the
// tokens that server issued (audience and scope), answers a token lacking
// a scope 403 insufficient_scope, and passes every authorized request on
// to an MCP endpoint behind it (an HTTP fake of package httpfake).
//
// Options place the metadata (named in the challenge only, or at a
// well-known URI only), make it name another resource, demand scopes, keep
// refusing a tools/call for scope (a step-up that never ends), or move the
// resource to a second authorization server once the first one's token
// has been used (a migration). Every request is recorded, Authorization
// included; the harness that shows the record redacts it.
package resourcefake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// Where the Protected Resource Metadata is (Options.Metadata).
const (
	// MetadataEverywhere serves it at both well-known URIs and names the
	// path-suffixed one in the challenge.
	MetadataEverywhere = ""
	// MetadataHeaderOnly serves it at PathMetadata alone, which only the
	// challenge's resource_metadata names: a client must read the header.
	MetadataHeaderOnly = "header-only"
	// MetadataPathSuffixed serves it at the path-suffixed well-known URI
	// alone and names it nowhere.
	MetadataPathSuffixed = "path-suffixed"
	// MetadataRoot serves it at the root well-known URI alone and names it
	// nowhere.
	MetadataRoot = "root"
)

// PathMetadata is where MetadataHeaderOnly serves the metadata: no
// well-known URI.
const PathMetadata = "/mcpconform/resource-metadata"

// OtherResource is the resource the metadata names with WrongResource.
const OtherResource = "https://other-resource.invalid/mcp"

// Options configure a Resource.
type Options struct {
	// Upstream is the MCP endpoint (http://127.0.0.1:PORT/mcp) authorized
	// requests go to.
	Upstream string
	// AS is the authorization server the metadata lists; Next, when set,
	// the one it lists instead once a token of AS has been accepted
	// (then AS's tokens are refused: a migration).
	AS, Next *authfake.AS
	// Metadata places the metadata (MetadataEverywhere, …).
	Metadata string
	// WrongResource makes the metadata name OtherResource.
	WrongResource bool
	// Scope is needed by every request and named in the 401's challenge;
	// ToolsScope is needed by a tools/call besides, and named in its
	// 403 insufficient_scope. Empty: none needed.
	Scope, ToolsScope string
	// ScopesSupported is the metadata's scopes_supported.
	ScopesSupported []string
	// EndlessStepUp answers every tools/call 403 insufficient_scope
	// (asking for ToolsScope), whatever the token grants, StepUpCeiling
	// times; then 403 without a challenge, so that a client without a
	// retry limit stops all the same.
	EndlessStepUp bool
	// StepUpCeiling bounds EndlessStepUp; 0 means DefaultStepUpCeiling.
	StepUpCeiling int
}

// DefaultStepUpCeiling is the number of insufficient_scope answers of
// EndlessStepUp when Options.StepUpCeiling is 0.
const DefaultStepUpCeiling = 12

// Request is the record of one request the front received.
type Request struct {
	Time     time.Time
	Method   string
	Path     string
	RawQuery string
	Header   http.Header // a copy, Authorization kept
	Body     string      // the first 64 KiB
	Methods  []string    // the JSON-RPC methods of the body
	Kind     string      // KindMCP, KindMetadata or KindOther
	Status   int         // the status answered; 0 if it never was
	// Token is the bearer token the request carried, "" without one.
	Token string
}

// Kinds of Request.
const (
	KindMCP      = "mcp"
	KindMetadata = "metadata"
	KindOther    = "other"
)

// maxBody bounds a body the front reads; maxRecordedBody what it keeps.
const (
	maxBody         = 4 << 20
	maxRecordedBody = 64 << 10
	maxRecords      = 4096
)

// Resource is a running fake protected MCP server. Close it when done.
type Resource struct {
	o        Options
	origin   string
	upstream *url.URL
	proxy    *httputil.ReverseProxy
	tr       *http.Transport
	srv      *http.Server
	serving  sync.WaitGroup

	mu        sync.Mutex
	records   []Request
	migrated  bool
	forbidden int // insufficient_scope answers of EndlessStepUp
}

// Start starts the front on a random port of 127.0.0.1.
func Start(o Options) (*Resource, error) {
	up, err := url.Parse(o.Upstream)
	if err != nil || up.Scheme != "http" || up.Host == "" {
		return nil, fmt.Errorf("resource fake: Upstream %q is not an http URL", o.Upstream)
	}
	if o.AS == nil {
		return nil, errors.New("resource fake: no authorization server (Options.AS)")
	}
	switch o.Metadata {
	case MetadataEverywhere, MetadataHeaderOnly, MetadataPathSuffixed, MetadataRoot:
	default:
		return nil, fmt.Errorf("resource fake: Metadata %q is not one of %q, %q, %q, %q", o.Metadata, MetadataEverywhere, MetadataHeaderOnly, MetadataPathSuffixed, MetadataRoot)
	}
	if o.StepUpCeiling == 0 {
		o.StepUpCeiling = DefaultStepUpCeiling
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("resource fake: listen on 127.0.0.1: %w", err)
	}
	r := &Resource{o: o, origin: "http://" + ln.Addr().String(), upstream: up, tr: &http.Transport{}}
	r.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.URL.Path, pr.Out.URL.RawPath = up.Scheme, up.Host, up.Path, ""
			pr.Out.Host = ""
			pr.Out.Header.Del(mcp.HeaderAuthorization) // a resource never passes the client's token on (AU-10)
		},
		Transport:     r.tr,
		FlushInterval: -1,
	}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	r.serving.Go(func() { _ = r.srv.Serve(ln) })
	return r, nil
}

// URL is the MCP endpoint the client under test is given.
func (r *Resource) URL() string { return r.origin + mcp.EndpointPath }

// MetadataURL is where the metadata is served (the first place, for
// MetadataEverywhere).
func (r *Resource) MetadataURL() string {
	switch r.o.Metadata {
	case MetadataHeaderOnly:
		return r.origin + PathMetadata
	case MetadataRoot:
		return r.origin + mcp.WellKnownPRM
	}
	return r.origin + mcp.WellKnownPRM + mcp.EndpointPath
}

// Requests returns a snapshot of the record, in arrival order.
func (r *Resource) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.records)
}

// Migrated reports whether the resource moved to Options.Next.
func (r *Resource) Migrated() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.migrated
}

// Close stops the front, cutting off requests still in progress after a
// short grace.
func (r *Resource) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := r.srv.Shutdown(ctx)
	if err != nil {
		err = r.srv.Close()
	}
	r.serving.Wait()
	r.tr.CloseIdleConnections()
	return err
}

// current is the authorization server the resource trusts now.
func (r *Resource) current() *authfake.AS {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.migrated {
		return r.o.Next
	}
	return r.o.AS
}

func (r *Resource) serve(w http.ResponseWriter, req *http.Request) {
	rec := Request{Time: time.Now(), Method: req.Method, Path: req.URL.Path, RawQuery: req.URL.RawQuery, Header: req.Header.Clone()}
	sw := &authfake.StatusWriter{ResponseWriter: w}
	defer func() {
		rec.Status = sw.Status()
		r.mu.Lock()
		if len(r.records) < maxRecords {
			r.records = append(r.records, rec)
		}
		r.mu.Unlock()
	}()
	switch {
	case req.URL.Path == mcp.EndpointPath:
		rec.Kind = KindMCP
		body, err := io.ReadAll(io.LimitReader(req.Body, maxBody))
		if err != nil {
			http.Error(sw, "the body could not be read", http.StatusBadRequest)
			return
		}
		rec.Body = string(body[:min(len(body), maxRecordedBody)])
		for _, m := range jsonrpc.DecodeAny(bytes.TrimSpace(body)) {
			if m.Method != "" {
				rec.Methods = append(rec.Methods, m.Method)
			}
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		rec.Token = bearer(req.Header.Get(mcp.HeaderAuthorization))
		r.endpoint(sw, req, rec)
	case r.servesMetadata(req.URL.Path):
		rec.Kind = KindMetadata
		r.metadata(sw, req)
	default:
		rec.Kind = KindOther
		http.NotFound(sw, req)
	}
}

// servesMetadata reports whether path is where the metadata is served.
func (r *Resource) servesMetadata(path string) bool {
	switch r.o.Metadata {
	case MetadataHeaderOnly:
		return path == PathMetadata
	case MetadataPathSuffixed:
		return path == mcp.WellKnownPRM+mcp.EndpointPath
	case MetadataRoot:
		return path == mcp.WellKnownPRM
	}
	return path == mcp.WellKnownPRM+mcp.EndpointPath || path == mcp.WellKnownPRM
}

// bearer is the token of a Bearer Authorization value, "" for none.
func bearer(v string) string {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// endpoint lets a request with a valid token through to the upstream.
func (r *Resource) endpoint(w http.ResponseWriter, req *http.Request, rec Request) {
	if rec.Token == "" {
		r.challenge(w, http.StatusUnauthorized, "", r.o.Scope)
		return
	}
	as := r.current()
	g, err := as.Validate(rec.Token)
	endpoint := r.URL()
	if err != nil || (g.Audience != "" && !mcp.SameResource(g.Audience, endpoint)) {
		r.challenge(w, http.StatusUnauthorized, "invalid_token", r.o.Scope)
		return
	}
	toolsCall := slices.Contains(rec.Methods, "tools/call")
	if r.o.EndlessStepUp && toolsCall {
		r.mu.Lock()
		r.forbidden++
		over := r.forbidden > r.o.StepUpCeiling
		r.mu.Unlock()
		if over {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		r.challenge(w, http.StatusForbidden, "insufficient_scope", joinScopes(r.o.Scope, r.o.ToolsScope))
		return
	}
	need := strings.Fields(r.o.Scope)
	if toolsCall {
		need = append(need, strings.Fields(r.o.ToolsScope)...)
	}
	for _, s := range need {
		if !slices.Contains(g.Scopes, s) {
			r.challenge(w, http.StatusForbidden, "insufficient_scope", joinScopes(r.o.Scope, r.toolsScopeIf(toolsCall)))
			return
		}
	}
	if r.o.Next != nil {
		r.mu.Lock()
		r.migrated = true // the next request meets the other authorization server
		r.mu.Unlock()
	}
	r.proxy.ServeHTTP(w, req)
}

func (r *Resource) toolsScopeIf(toolsCall bool) string {
	if toolsCall {
		return r.o.ToolsScope
	}
	return ""
}

func joinScopes(a, b string) string { return strings.TrimSpace(a + " " + b) }

// challenge answers status with a Bearer challenge: the error, the scope
// and, unless the metadata is at a well-known URI only, resource_metadata.
func (r *Resource) challenge(w http.ResponseWriter, status int, code, scope string) {
	var params []string
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code))
	}
	if scope != "" {
		params = append(params, fmt.Sprintf("scope=%q", scope))
	}
	if r.o.Metadata == MetadataEverywhere || r.o.Metadata == MetadataHeaderOnly {
		params = append(params, fmt.Sprintf("resource_metadata=%q", r.MetadataURL()))
	}
	w.Header().Set(mcp.HeaderWWWAuthenticate, strings.TrimSpace("Bearer "+strings.Join(params, ", ")))
	http.Error(w, "authorization required", status)
}

// metadata serves the Protected Resource Metadata (RFC 9728 §3).
func (r *Resource) metadata(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "the metadata is read with GET", http.StatusMethodNotAllowed)
		return
	}
	resource := r.URL()
	if r.o.WrongResource {
		resource = OtherResource
	}
	doc := map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{r.current().URL()},
		"bearer_methods_supported": []string{"header"},
	}
	if len(r.o.ScopesSupported) > 0 {
		doc["scopes_supported"] = r.o.ScopesSupported
	}
	w.Header().Set("Content-Type", mcp.ContentTypeJSON)
	_ = json.NewEncoder(w).Encode(doc) // the client went away: nothing to do
}
