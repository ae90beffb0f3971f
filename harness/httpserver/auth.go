package httpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Protection makes the MCP endpoint an OAuth protected resource (the AU
// rules; RFC 9728, RFC 6750): it publishes Protected Resource Metadata at
// the path-suffixed and root well-known URIs, answers a request without a
// bearer token 401 with a challenge naming the metadata and the scope,
// refuses a malformed Authorization header (400), an unknown, expired or
// other-audience token (401, error="invalid_token") and a token lacking a
// scope (403, error="insufficient_scope"), and never takes a token from
// the query string.
type Protection struct {
	// AuthorizationServers are the issuers the metadata lists.
	AuthorizationServers []string
	// ScopesSupported are the scopes the metadata lists.
	ScopesSupported []string
	// Scope is the scope every request needs; ToolsScope the one a
	// tools/call needs besides (so that a client can be made to step up).
	// Empty: none needed.
	Scope, ToolsScope string
	// Introspect looks a bearer token up; known is false for a token the
	// authorization servers never issued.
	Introspect func(token string) (info TokenInfo, known bool)
	// Mutant selects a mutant of the protection (mutant.Auth…).
	Mutant mutant.Name
}

// TokenInfo is what introspection says of a token.
type TokenInfo struct {
	Audience string   // the resource it was issued for (RFC 8707)
	Scopes   []string // the scopes it grants
	Expired  bool
}

// OtherResource is the resource of the metadata of mutant
// AuthPRMWrongResource: no server's.
const OtherResource = "https://other-resource.invalid/mcp"

// protected is the endpoint behind its Protection.
type protected struct {
	next     http.Handler
	p        Protection
	resource string // the endpoint's URL: the audience its tokens must name
	metadata string // the URL of its path-suffixed metadata
	maxBody  int64
}

// protect puts h, served at endpoint (an absolute URL), behind p.
func protect(h http.Handler, endpoint string, p Protection) *protected {
	u, _ := url.Parse(endpoint) // Listen built it
	return &protected{next: h, p: p, resource: endpoint, metadata: u.Scheme + "://" + u.Host + mcp.WellKnownPRM + u.Path, maxBody: DefaultMaxBodyBytes}
}

// ServeHTTP lets a request with a valid token through to the endpoint.
func (h *protected) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	inQuery := q.Get(mcp.QueryAccessToken)
	if inQuery != "" && h.p.Mutant != mutant.AuthTokenInQueryAccepted {
		h.challenge(w, http.StatusBadRequest, "invalid_request", "a token in the query string is never accepted; send it in the Authorization header", "")
		return
	}
	token, malformed := bearer(r.Header.Values(mcp.HeaderAuthorization), h.p.Mutant == mutant.AuthMalformedAccepted)
	if token == "" && inQuery != "" {
		token = inQuery // mutant.AuthTokenInQueryAccepted
	}
	switch {
	case malformed != "":
		h.challenge(w, http.StatusBadRequest, "invalid_request", malformed, "")
		return
	case token == "" && h.p.Mutant == mutant.AuthNoTokenAccepted:
		h.next.ServeHTTP(w, r)
		return
	case token == "":
		h.challenge(w, http.StatusUnauthorized, "", "", h.p.Scope)
		return
	}
	info, known := h.p.Introspect(token)
	switch {
	case !known:
		h.challenge(w, http.StatusUnauthorized, "invalid_token", "the token is unknown", h.p.Scope)
		return
	case info.Expired && h.p.Mutant != mutant.AuthExpiredAccepted:
		h.challenge(w, http.StatusUnauthorized, "invalid_token", "the token expired", h.p.Scope)
		return
	case !mcp.SameResource(info.Audience, h.resource) && h.p.Mutant != mutant.AuthAcceptsAnyAudience:
		h.challenge(w, http.StatusUnauthorized, "invalid_token", "the token was issued for another resource", h.p.Scope)
		return
	}
	if need := h.needs(r); !hasScopes(info.Scopes, need) {
		switch h.p.Mutant {
		case mutant.AuthInsufficientScope401:
			h.challenge(w, http.StatusUnauthorized, "invalid_token", "the token lacks a scope", strings.Join(need, " "))
		case mutant.AuthInsufficientScopeBare:
			h.challenge(w, http.StatusForbidden, "", "", "")
		default:
			h.challenge(w, http.StatusForbidden, "insufficient_scope", "the request needs scope "+strings.Join(need, " "), strings.Join(need, " "))
		}
		return
	}
	h.next.ServeHTTP(w, r)
}

// bearer reads the token of an Authorization header (RFC 6750 §2.1): ""
// without one or with another scheme; a reason when the header is
// malformed (repeated, an empty token, more than one word). firstWord
// (mutant.AuthMalformedAccepted) takes the first word of a header of
// several instead.
func bearer(values []string, firstWord bool) (token, malformed string) {
	switch {
	case len(values) == 0:
		return "", ""
	case len(values) > 1:
		return "", "more than one Authorization header"
	}
	scheme, rest, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ""
	}
	words := strings.Fields(rest)
	switch {
	case len(words) == 0:
		return "", "the Bearer credentials are empty"
	case len(words) > 1 && firstWord:
		return words[0], ""
	case len(words) > 1 || !b64token(words[0]) || rest != words[0]:
		return "", "the Bearer credentials are not one b64token (RFC 6750 §2.1)"
	}
	return words[0], ""
}

// b64token reports whether s has the syntax of RFC 6750's b64token.
func b64token(s string) bool {
	s = strings.TrimRight(s, "=")
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+/", r))
	})
}

// needs returns the scopes request r needs: Scope, and ToolsScope for a
// POST carrying a tools/call. The body read is put back for the endpoint.
func (h *protected) needs(r *http.Request) []string {
	var need []string
	if h.p.Scope != "" {
		need = append(need, h.p.Scope)
	}
	if h.p.ToolsScope == "" || r.Method != http.MethodPost || r.Body == nil {
		return need
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, h.maxBody+1)) // a read error leaves the endpoint to answer
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), r.Body))
	if slices.ContainsFunc(jsonrpc.DecodeAny(bytes.TrimSpace(b)), func(m *jsonrpc.Message) bool { return m.Method == "tools/call" }) {
		need = append(need, h.p.ToolsScope)
	}
	return need
}

// hasScopes reports whether granted holds every scope of need.
func hasScopes(granted, need []string) bool {
	for _, s := range need {
		if !slices.Contains(granted, s) {
			return false
		}
	}
	return true
}

// challenge answers status with a Bearer challenge (RFC 6750 §3): the
// error and its description when there is one, the scope when there is
// one, and the metadata's URL (AU-04, AU-07).
func (h *protected) challenge(w http.ResponseWriter, status int, code, description, scope string) {
	var params []string
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code))
	}
	if description != "" {
		params = append(params, fmt.Sprintf("error_description=%q", description))
	}
	if scope != "" {
		params = append(params, fmt.Sprintf("scope=%q", scope))
	}
	if h.p.Mutant != mutant.AuthNoResourceMetadata {
		params = append(params, fmt.Sprintf("resource_metadata=%q", h.metadata))
	}
	if !(status == http.StatusUnauthorized && h.p.Mutant == mutant.AuthNoWWWAuthenticate) {
		w.Header().Set(mcp.HeaderWWWAuthenticate, strings.TrimSpace("Bearer "+strings.Join(params, ", ")))
	}
	text := description
	if text == "" {
		text = "authorization required: send a bearer token in the Authorization header; the metadata at " + h.metadata + " names the authorization server"
	}
	refuse(w, status, codeServerError, text)
}

// serveMetadata serves the Protected Resource Metadata (RFC 9728 §3; AU-03).
func (h *protected) serveMetadata(w http.ResponseWriter, r *http.Request) {
	if h.p.Mutant == mutant.AuthNoResourceMetadata {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "the metadata is read with GET", http.StatusMethodNotAllowed)
		return
	}
	doc := map[string]any{
		"resource":                 h.resource,
		"authorization_servers":    h.p.AuthorizationServers,
		"scopes_supported":         h.p.ScopesSupported,
		"bearer_methods_supported": []string{"header"},
	}
	switch h.p.Mutant {
	case mutant.AuthPRMWrongResource:
		doc["resource"] = OtherResource
	case mutant.AuthPRMNoServers:
		doc["authorization_servers"] = []string{}
	}
	w.Header().Set("Content-Type", mcp.ContentTypeJSON)
	_ = json.NewEncoder(w).Encode(doc) // the client went away: nothing to do
}
