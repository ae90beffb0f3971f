package http

import (
	"fmt"
	nethttp "net/http"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Server-role checks of authorization (AU-02 … AU-09): the server as an
// OAuth protected resource. Each starts from a request without a token
// (protectedServer): a server that does not answer it 401 is open, and
// the check is N/A. The checks that need tokens get them from the run's
// --auth-token-command (run.C.Token), masked in everything they record.

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.auth.unauthenticated-401",
	Title:       "a request without a token gets 401 Unauthorized",
	Requirement: "A server that requires authorization answers a request that shows none with 401 Unauthorized; it is judged when the server answers 401, or the fixtures file says protected: true.",
	Rules:       []string{"AU-02", "AU-09"},
	KilledBy:    []mutant.Name{mutant.AuthNoTokenAccepted},
}, func(c *run.C) {
	protectedServer(c)
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.auth.metadata-advertised",
	Title:       "a 401 names the Protected Resource Metadata, or a well-known URI serves it",
	Requirement: "A protected server advertises its Protected Resource Metadata: resource_metadata in the WWW-Authenticate of its 401, or the document at the path-suffixed or root well-known URI.",
	Rules:       []string{"AU-05", "AU-04"},
	KilledBy:    []mutant.Name{mutant.AuthNoResourceMetadata},
}, func(c *run.C) {
	f := protectedServer(c)
	if f.challenge.Params["resource_metadata"] != "" {
		return
	}
	_, _, tried := f.metadata()
	c.Require(len(tried) == 0, "resource_metadata in the 401's WWW-Authenticate, or Protected Resource Metadata at "+strings.Join(f.metadataURLs(), " or "),
		"WWW-Authenticate %q; %s", f.header, strings.Join(tried, "; "))
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.auth.metadata-document",
	Title:       "the Protected Resource Metadata names this server and an authorization server",
	Requirement: "The Protected Resource Metadata's authorization_servers lists at least one authorization server, and its resource is this server's URL (or its origin).",
	Rules:       []string{"AU-03"},
	KilledBy:    []mutant.Name{mutant.AuthPRMWrongResource, mutant.AuthPRMNoServers},
}, func(c *run.C) {
	f := protectedServer(c)
	doc, where, tried := f.metadata()
	c.Require(doc != nil, "Protected Resource Metadata at "+strings.Join(f.metadataURLs(), " or "), "%s", strings.Join(tried, "; "))
	c.Require(len(doc.AuthorizationServers) > 0, "authorization_servers lists at least one authorization server",
		"the document at %s lists %d", where, len(doc.AuthorizationServers))
	c.Require(mcp.SameResource(doc.Resource, f.p.url) || mcp.SameResource(doc.Resource, originOf(f.p.url)),
		fmt.Sprintf("resource is %s or %s", f.p.url, originOf(f.p.url)), "the document at %s names resource %q", where, doc.Resource)
	for _, as := range doc.AuthorizationServers {
		c.RequireHardened(secureOrLoopback(as), "every authorization server is an https URL, or http on a loopback host",
			"authorization server %q", as)
	}
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.auth.challenge-scope",
	Title:       "the 401 carries a Bearer challenge with the scope needed",
	Requirement: "The 401 to a request without a token carries WWW-Authenticate with a Bearer challenge that includes scope, the scopes the request needs.",
	Rules:       []string{"AU-07"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.AuthNoWWWAuthenticate},
}, func(c *run.C) {
	f := protectedServer(c)
	c.Require(f.challenge.Present && f.challenge.Params["scope"] != "", `WWW-Authenticate: Bearer …, scope="…"`,
		"%s (WWW-Authenticate %q)", f.challenge.Describe(), f.header)
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.auth.audience",
	Title:       "a token issued for another resource is refused",
	Requirement: "The server validates that a token was issued for it (its audience) and refuses one for another resource with 401 (or 403).",
	Rules:       []string{"AU-09"},
	KilledBy:    []mutant.Name{mutant.AuthAcceptsAnyAudience},
}, func(c *run.C) {
	f := protectedServer(c)
	f.validToken()
	tok := c.Token(target.TokenRequest{Resource: otherResource, Scope: f.scope()}, "token for another resource ("+otherResource+")")
	r := f.initialize(headers{mcp.HeaderAuthorization: "Bearer " + tok}, "")
	c.Require(refused(r) && (r.Status == nethttp.StatusUnauthorized || r.Status == nethttp.StatusForbidden),
		"401 (or 403) for a token whose audience is "+otherResource, "%s", r.describe())
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.auth.expired",
	Title:       "an expired token is refused",
	Requirement: "The server refuses an expired token with 401.",
	Rules:       []string{"AU-09"},
	KilledBy:    []mutant.Name{mutant.AuthExpiredAccepted},
}, func(c *run.C) {
	f := protectedServer(c)
	f.validToken()
	tok := c.Token(target.TokenRequest{Resource: f.p.url, Scope: f.scope(), Expired: true}, "expired token")
	r := f.initialize(headers{mcp.HeaderAuthorization: "Bearer " + tok}, "")
	c.Require(refused(r) && (r.Status == nethttp.StatusUnauthorized || r.Status == nethttp.StatusForbidden),
		"401 (or 403) for an expired token", "%s", r.describe())
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.auth.malformed",
	Title:       "a malformed Authorization header is refused",
	Requirement: "The server refuses a malformed authorization request (Bearer credentials of more than one word, around a valid token) with 400, or 401 for an invalid token.",
	Rules:       []string{"AU-09"},
	KilledBy:    []mutant.Name{mutant.AuthMalformedAccepted},
}, func(c *run.C) {
	f := protectedServer(c)
	tok := f.validToken()
	r := f.initialize(headers{mcp.HeaderAuthorization: "Bearer " + tok + " mcpconform-extra"}, "")
	c.Require(refused(r) && (r.Status == nethttp.StatusBadRequest || r.Status == nethttp.StatusUnauthorized),
		"400 (or 401) for Authorization: Bearer TOKEN mcpconform-extra", "%s", r.describe())
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.auth.insufficient-scope",
	Title:       "a token without the scope needed gets 403 insufficient_scope",
	Requirement: "A valid token lacking a scope the request needs is refused with 403 (MUST), whose WWW-Authenticate carries error=\"insufficient_scope\" and the scope needed (SHOULD).",
	Rules:       []string{"AU-09", "AU-07"},
	KilledBy:    []mutant.Name{mutant.AuthInsufficientScope401, mutant.AuthInsufficientScopeBare},
}, func(c *run.C) {
	f := protectedServer(c)
	f.validToken()
	if r, what := f.stepUp(); r != nil {
		judgeInsufficientScope(c, r, what)
		return
	}
	tok := c.Token(target.TokenRequest{Resource: f.p.url, Scope: ""}, "token for this server without scopes")
	r := f.initialize(headers{mcp.HeaderAuthorization: "Bearer " + tok}, "")
	if r.Status/100 == 2 {
		c.NotApplicable("the server accepted initialize with a token without scopes, and no tools/call it allowed with the scope of its challenge needed more: " +
			"no request of the check needed a scope the token lacked")
	}
	judgeInsufficientScope(c, r, "initialize with a token without scopes")
})

// judgeInsufficientScope judges the refusal r of a request (what) whose
// valid token lacked a scope: 403 (AU-09), with error="insufficient_scope"
// and scope in its challenge (AU-07, SHOULD).
func judgeInsufficientScope(c *run.C, r *reply, what string) {
	c.Require(r.Status == nethttp.StatusForbidden, "403 for "+what+", a valid token without the scope the request needs", "%s", r.describe())
	ch := run.ParseBearerChallenge(r.Header.Values(mcp.HeaderWWWAuthenticate))
	c.RequireRuleAt("AU-07", check.SHOULD, ch.Params["error"] == "insufficient_scope" && ch.Params["scope"] != "",
		`WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, "%s", ch.Describe())
}

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.auth.no-query-token",
	Title:       "a token in the query string is not accepted",
	Requirement: "The server accepts bearer tokens in the Authorization header only, never in the access_token query parameter.",
	Rules:       []string{"AU-09", "AU-08"},
	Source:      check.Hardened,
	KilledBy:    []mutant.Name{mutant.AuthTokenInQueryAccepted},
}, func(c *run.C) {
	f := protectedServer(c)
	tok := f.validToken()
	r := f.initialize(nil, url.Values{mcp.QueryAccessToken: {tok}}.Encode())
	c.Require(refused(r), "a 4xx refusal of a request whose token is in ?access_token=", "%s", r.describe())
})

// originOf is the scheme and host of u.
func originOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.Scheme + "://" + p.Host
}

// secureOrLoopback reports whether an authorization server's URL is https,
// or http on a loopback host (a hardening beyond the spec).
func secureOrLoopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch h := u.Hostname(); {
	case u.Scheme == "https":
		return true
	case u.Scheme == "http":
		return h == "localhost" || h == "127.0.0.1" || h == "::1"
	}
	return false
}
