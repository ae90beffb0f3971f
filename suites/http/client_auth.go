package http

import (
	"encoding/json"
	"fmt"
	nethttp "net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/fakeservers/resourcefake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Client-role checks of authorization (AU-06, AU-08, AU-10, AU-11,
// AU-12; RFC 9728, RFC 8414, RFC 7636, RFC 8707, RFC 9207): the client
// meets a protected MCP server (resourcefake) whose metadata lists a
// loopback authorization server (authfake), given the server's URL and
// nothing else (run.RunProtectedHTTPClient). Authorization is optional in
// MCP: a client that does not look for an authorization server after the
// 401 is UNIMPLEMENTED, never FAIL.

// authScopes are what the authorization servers of the checks offer.
var authScopes = []string{"mcp:read", "mcp:tools"}

// runProtected runs the client against a protected server of setup, an
// authorization server of case asCase in front of it.
func runProtected(c *run.C, asCase string, res resourcefake.Options) *run.ProtectedRun {
	return c.RunProtectedHTTPClient(run.ProtectedSetup{AS: authfake.Options{Case: asCase, Scopes: authScopes}, Resource: res}, target.Invocation{})
}

// noAuthAttempt is what a client that never looked for an authorization
// server must do to be certified for OAuth.
const noAuthAttempt = "after the server's 401 the client fetched no Protected Resource Metadata and contacted no authorization server: " +
	"authorization is optional in MCP, but to be certified for it the client must, given only " + target.EnvServerURL +
	" (" + target.EnvAuthToken + " is unset for these checks), read the 401's WWW-Authenticate, fetch the metadata it names " +
	"(else the well-known URIs), and authorize with the authorization server the metadata lists (AU-06, RFC 9728)"

// discovered reports whether the client looked for the authorization
// server after the 401: a request for metadata at the server (a well-known
// URI, or the one the challenge named) or any request to an authorization
// server.
func discovered(r *run.ProtectedRun) bool {
	if len(r.AS.Requests) > 0 || len(r.Next.Requests) > 0 {
		return true
	}
	return slices.ContainsFunc(r.Resource, func(q resourcefake.Request) bool {
		return q.Method == "GET" && (strings.HasPrefix(q.Path, mcp.WellKnownPRM) || q.Path == resourcefake.PathMetadata)
	})
}

// wantDiscovery ends the check when there was nothing to judge: ERROR when
// the client never reached the server, UNIMPLEMENTED when it did not look
// for an authorization server after the 401.
func wantDiscovery(c *run.C, r *run.ProtectedRun) {
	if len(r.Resource) == 0 {
		c.Errorf("the server at %s received no HTTP request (the adapter exited %d): the adapter must connect its client to that URL", target.EnvServerURL, r.ExitCode)
	}
	if !discovered(r) {
		c.Unimplemented(noAuthAttempt)
	}
}

// asRequests returns the requests of an authorization server's record to
// endpoint (authfake.Endpoint…).
func asRequests(rec run.ASRecord, endpoint string) []authfake.Request {
	var out []authfake.Request
	for _, q := range rec.Requests {
		if q.Endpoint == endpoint {
			out = append(out, q)
		}
	}
	return out
}

// codeRedemptions are the token requests redeeming an authorization code.
func codeRedemptions(rec run.ASRecord) []authfake.Request {
	var out []authfake.Request
	for _, q := range asRequests(rec, authfake.EndpointToken) {
		if first(q.Form, "grant_type") == "authorization_code" {
			out = append(out, q)
		}
	}
	return out
}

func first(v map[string][]string, k string) string {
	if len(v[k]) == 0 {
		return ""
	}
	return v[k][0]
}

// wantAuthorizationRequest ends the check UNIMPLEMENTED when the client,
// having found the well-behaved authorization server, sent it no
// authorization request: it does not authorize headless.
func wantAuthorizationRequest(c *run.C, r *run.ProtectedRun) []authfake.Request {
	wantDiscovery(c, r)
	reqs := asRequests(r.AS, authfake.EndpointAuthorize)
	if len(reqs) == 0 {
		c.Unimplemented(fmt.Sprintf("the client sent the authorization server no authorization request (it saw %s): the client must follow the authorization URL itself, "+
			"since the loopback authorization server answers it at once with a redirect to the redirect URI (no browser, no login)", describeAS(r.AS)))
	}
	return reqs
}

// describeAS names the endpoints a client's requests reached.
func describeAS(rec run.ASRecord) string {
	if len(rec.Requests) == 0 {
		return "no request"
	}
	parts := make([]string, 0, len(rec.Requests))
	for _, q := range rec.Requests {
		parts = append(parts, fmt.Sprintf("%s %s → %d", q.Method, q.Endpoint, q.Status))
	}
	return strings.Join(parts, ", ")
}

// clientVersion is the protocol version the client asked for: its
// initialize's protocolVersion, 2026-07-28 for a client of the modern era
// (it sends none), "" when the server saw neither.
func clientVersion(r *run.ProtectedRun) string {
	for _, q := range r.Resource {
		if slices.Contains(q.Methods, "initialize") {
			var m struct {
				Params struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"params"`
			}
			_ = json.Unmarshal([]byte(q.Body), &m) // a body that is no single message names no version
			return m.Params.ProtocolVersion
		}
		if len(q.Methods) > 0 {
			return "2026-07-28"
		}
	}
	return ""
}

// requireVersionFrom ends the check N/A when the client asked for a
// version older than from, in which rule does not bind it.
func requireVersionFrom(c *run.C, r *run.ProtectedRun, from, rule string) {
	if v := clientVersion(r); v != "" && v < from {
		c.NotApplicable(fmt.Sprintf("the client asked for protocol version %s; %s binds a client from %s", v, rule, from))
	}
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.auth.discovery",
	Title:       "on a 401 the client finds the metadata: the challenge's resource_metadata, else the well-known URIs",
	Requirement: "On a 401 the client reads WWW-Authenticate and fetches the Protected Resource Metadata its resource_metadata names; without one, it tries the path-suffixed well-known URI, then the root one, and goes on to the authorization server the metadata lists (AU-06, RFC 9728 §3 and §5.1).",
	Rules:       []string{"AU-06"},
	KilledBy:    []mutant.Name{mutant.AuthResourceMetadataIgnored},
}, func(c *run.C) {
	for _, place := range []string{resourcefake.MetadataHeaderOnly, resourcefake.MetadataPathSuffixed, resourcefake.MetadataRoot} {
		r := runProtected(c, authfake.CaseGood, resourcefake.Options{Metadata: place})
		wantDiscovery(c, r)
		requireVersionFrom(c, r, "2025-06-18", "AU-06")
		where := map[string]string{
			resourcefake.MetadataHeaderOnly:   "at " + resourcefake.PathMetadata + ", which only the challenge's resource_metadata names",
			resourcefake.MetadataPathSuffixed: "at the path-suffixed well-known URI " + mcp.WellKnownPRM + mcp.EndpointPath + " alone, named nowhere",
			resourcefake.MetadataRoot:         "at the root well-known URI " + mcp.WellKnownPRM + " alone, named nowhere",
		}[place]
		u, _ := url.Parse(metadataURLOf(r, place))
		fetched := slices.ContainsFunc(r.Resource, func(q resourcefake.Request) bool { return q.Method == "GET" && q.Path == u.Path && q.Status == 200 })
		c.Require(fetched, "a GET of the Protected Resource Metadata, served "+where, "the client's requests to the server: %s", describeResource(r))
		c.Require(len(r.AS.Requests) > 0, "a request to the authorization server the metadata lists ("+r.AS.URL+")",
			"the client fetched the metadata and contacted no authorization server")
	}
})

// metadataURLOf is where a run's server served its metadata.
func metadataURLOf(r *run.ProtectedRun, place string) string {
	origin := strings.TrimSuffix(r.URL, mcp.EndpointPath)
	switch place {
	case resourcefake.MetadataHeaderOnly:
		return origin + resourcefake.PathMetadata
	case resourcefake.MetadataRoot:
		return origin + mcp.WellKnownPRM
	}
	return origin + mcp.WellKnownPRM + mcp.EndpointPath
}

// describeResource lists the requests the protected server saw.
func describeResource(r *run.ProtectedRun) string {
	parts := make([]string, 0, len(r.Resource))
	for _, q := range r.Resource {
		p := q.Method + " " + q.Path
		if len(q.Methods) > 0 {
			p += " (" + strings.Join(q.Methods, ", ") + ")"
		}
		parts = append(parts, fmt.Sprintf("%s → %d", p, q.Status))
	}
	return strings.Join(parts, ", ")
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.auth.pkce-s256",
	Title:       "the authorization code grant uses PKCE with S256",
	Requirement: "Every authorization request carries a code_challenge with code_challenge_method S256, and the token request redeeming its code the code_verifier (AU-11, RFC 7636 §4.3 and §4.5).",
	Rules:       []string{"AU-11"},
	KilledBy:    []mutant.Name{mutant.AuthNoPKCE, mutant.AuthPKCEPlain},
}, func(c *run.C) {
	r := runProtected(c, authfake.CaseGood, resourcefake.Options{})
	for _, q := range wantAuthorizationRequest(c, r) {
		c.Require(first(q.Query, "code_challenge") != "" && first(q.Query, "code_challenge_method") == "S256",
			"code_challenge and code_challenge_method=S256 in every authorization request",
			"an authorization request carried code_challenge_method %q and %s code_challenge", first(q.Query, "code_challenge_method"), presence(first(q.Query, "code_challenge")))
	}
	for _, q := range codeRedemptions(r.AS) {
		c.Require(first(q.Form, "code_verifier") != "", "code_verifier in every token request redeeming a code", "a token request (grant_type=authorization_code) carried no code_verifier")
	}
})

func presence(v string) string {
	if v == "" {
		return "no"
	}
	return "a"
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.auth.pkce-required",
	Title:       "the client refuses an authorization server that does not advertise PKCE S256",
	Requirement: "From 2025-11-25, a client refuses to proceed when the authorization server's metadata lacks code_challenge_methods_supported (or S256 in it): it sends that server no authorization request (AU-11, RFC 8414 §2).",
	Rules:       []string{"AU-11"},
	KilledBy:    []mutant.Name{mutant.AuthPKCEPlain},
}, func(c *run.C) {
	r := runProtected(c, authfake.CaseNoPKCE, resourcefake.Options{})
	wantDiscovery(c, r)
	requireVersionFrom(c, r, "2025-11-25", "the refusal of AU-11")
	if len(asRequests(r.AS, authfake.EndpointMetadata))+len(asRequests(r.AS, authfake.EndpointOpenID)) == 0 {
		c.Unimplemented(fmt.Sprintf("the client did not fetch the authorization server's metadata (it saw %s), so it never learned that PKCE is not advertised: "+
			"it must read the metadata at %s", describeAS(r.AS), authfake.WellKnownAS))
	}
	authz := asRequests(r.AS, authfake.EndpointAuthorize)
	c.Require(len(authz) == 0, "no authorization request to an authorization server whose metadata has no code_challenge_methods_supported",
		"the client sent %d authorization request(s) all the same (code_challenge_method %q)", len(authz), methodOf(authz))
})

func methodOf(reqs []authfake.Request) string {
	if len(reqs) == 0 {
		return ""
	}
	return first(reqs[0].Query, "code_challenge_method")
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.auth.resource-parameter",
	Title:       "authorization and token requests carry the resource parameter naming the server",
	Requirement: "From 2025-06-18, the client sends the RFC 8707 resource parameter, the MCP server's canonical URI, in every authorization request and every token request (AU-10, RFC 8707 §2).",
	Rules:       []string{"AU-10"},
	KilledBy:    []mutant.Name{mutant.AuthNoResourceParam},
}, func(c *run.C) {
	r := runProtected(c, authfake.CaseGood, resourcefake.Options{})
	authz := wantAuthorizationRequest(c, r)
	requireVersionFrom(c, r, "2025-06-18", "AU-10")
	ok := func(res string) bool { return mcp.SameResource(res, r.URL) || mcp.SameResource(res, originOf(r.URL)) }
	for _, q := range authz {
		c.Require(ok(first(q.Query, "resource")), "resource="+r.URL+" in every authorization request", "an authorization request carried resource %q", first(q.Query, "resource"))
	}
	for _, q := range asRequests(r.AS, authfake.EndpointToken) {
		c.Require(ok(first(q.Form, "resource")), "resource="+r.URL+" in every token request",
			"a token request (grant_type=%s) carried resource %q", first(q.Form, "grant_type"), first(q.Form, "resource"))
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.auth.bearer-header",
	Title:       "the access token goes in the Authorization header, never in the query string",
	Requirement: "The client sends the access token it obtained as a Bearer token in the Authorization header of every request to the MCP server, and never in the query string (AU-08, OAuth 2.1 §5.1).",
	Rules:       []string{"AU-08"},
	KilledBy:    []mutant.Name{mutant.AuthTokenInQuery},
}, func(c *run.C) {
	r := runProtected(c, authfake.CaseGood, resourcefake.Options{})
	wantDiscovery(c, r)
	authorized := false
	for _, q := range r.Resource {
		if q.Kind != resourcefake.KindMCP {
			continue
		}
		query, _ := url.ParseQuery(q.RawQuery)
		inQuery := query.Has(mcp.QueryAccessToken) || (q.Token != "" && strings.Contains(q.RawQuery, url.QueryEscape(q.Token)))
		c.Require(!inQuery, "no token in the query string of any request", "a %s to the MCP server carried a token in its query string (?%s=%s)", q.Method, mcp.QueryAccessToken, "***")
		if q.Token != "" && q.Status/100 == 2 {
			authorized = true
			continue
		}
		c.Require(!authorized || q.Token != "", "a Bearer token in the Authorization header of every request once the client holds a token",
			"a %s %s after the client was authorized carried no bearer token (answered %d)", q.Method, strings.Join(q.Methods, ", "), q.Status)
	}
	if !authorized {
		c.Unimplemented(fmt.Sprintf("no request reached the MCP server with a token it accepted (requests: %s; authorization server: %s): the client must redeem the code for a token and send it as a Bearer token in the Authorization header",
			describeResource(r), describeAS(r.AS)))
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.auth.iss-checked",
	Title:       "an authorization response whose iss is missing where advertised, or wrong, is not redeemed",
	Requirement: "The client validates the authorization response's iss against the issuer it recorded before redeeming the code: a response without iss from a server that advertises authorization_response_iss_parameter_supported, or with another issuer's, is refused (AU-12, RFC 9207 §2.4).",
	Rules:       []string{"AU-12"},
	Eras:        []check.Era{check.Modern},
	KilledBy:    []mutant.Name{mutant.AuthIssUnchecked},
}, func(c *run.C) {
	for _, asCase := range []string{authfake.CaseIssMissing, authfake.CaseIssWrong} {
		r := runProtected(c, asCase, resourcefake.Options{})
		wantAuthorizationRequest(c, r)
		what := map[string]string{authfake.CaseIssMissing: "had no iss, though the server advertises authorization_response_iss_parameter_supported",
			authfake.CaseIssWrong: "had iss " + authfake.WrongIssuer + ", not the issuer " + r.AS.URL}[asCase]
		c.Require(len(codeRedemptions(r.AS)) == 0, "no token request for a code whose authorization response "+what,
			"the client redeemed the code (%d token request(s))", len(codeRedemptions(r.AS)))
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.auth.metadata-issuer",
	Title:       "authorization server metadata naming another issuer is not used",
	Requirement: "The client uses the authorization server metadata (AU-06) only when its issuer is the issuer identifier it was fetched for; otherwise it must not use it: no registration, authorization or token request to its endpoints (RFC 8414 §3.3).",
	Rules:       []string{"AU-06"},
	KilledBy:    []mutant.Name{mutant.AuthMetadataIssuerUnchecked},
}, func(c *run.C) {
	r := runProtected(c, authfake.CaseIssuerMismatch, resourcefake.Options{})
	wantDiscovery(c, r)
	requireVersionFrom(c, r, "2025-06-18", "AU-06")
	if len(asRequests(r.AS, authfake.EndpointMetadata))+len(asRequests(r.AS, authfake.EndpointOpenID)) == 0 {
		c.Unimplemented(fmt.Sprintf("the client did not fetch the authorization server's metadata (it saw %s): it must read it at %s", describeAS(r.AS), authfake.WellKnownAS))
	}
	var used []string
	for _, e := range []string{authfake.EndpointRegister, authfake.EndpointAuthorize, authfake.EndpointToken} {
		if n := len(asRequests(r.AS, e)); n > 0 {
			used = append(used, fmt.Sprintf("%d %s", n, e))
		}
	}
	c.Require(len(used) == 0, "no request to the endpoints of metadata whose issuer is "+authfake.WrongIssuer+", fetched for "+r.AS.URL,
		"the client used the metadata: %s request(s)", strings.Join(used, ", "))
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.auth.prm-resource",
	Title:       "Protected Resource Metadata naming another resource is not used",
	Requirement: "The client uses the Protected Resource Metadata (AU-06) only when its resource is the server it connects to; otherwise it must not use it: no request to the authorization server it lists (RFC 9728 §3.3).",
	Rules:       []string{"AU-06"},
	KilledBy:    []mutant.Name{mutant.AuthPRMResourceUnchecked},
}, func(c *run.C) {
	r := runProtected(c, authfake.CaseGood, resourcefake.Options{WrongResource: true})
	wantDiscovery(c, r)
	requireVersionFrom(c, r, "2025-06-18", "AU-06")
	if !slices.ContainsFunc(r.Resource, func(q resourcefake.Request) bool { return q.Kind == resourcefake.KindMetadata && q.Status == 200 }) {
		c.Unimplemented(fmt.Sprintf("the client did not fetch the Protected Resource Metadata (requests: %s): it must read the one the 401's resource_metadata names", describeResource(r)))
	}
	c.Require(len(r.AS.Requests) == 0, "no request to the authorization server of metadata whose resource is "+resourcefake.OtherResource+", not "+r.URL,
		"the client used the metadata: %s", describeAS(r.AS))
})

var _ = clientCheck(check.Descriptor{
	ID:    "http.client.auth.scope-selection",
	Title: "the client asks for the scope of the challenge, else the metadata's scopes_supported",
	Requirement: "From 2025-11-25, the client follows the authorization spec's scope selection (AU-01, a SHOULD): its authorization request asks for the scope of the 401's challenge, " +
		"or, when the challenge names none, the scopes_supported of the Protected Resource Metadata.",
	Rules:    []string{"AU-01"},
	KilledBy: []mutant.Name{mutant.AuthScopeIgnored},
}, func(c *run.C) {
	for _, challenged := range []bool{true, false} {
		o := resourcefake.Options{ScopesSupported: authScopes}
		want, from := authScopes, "scopes_supported of the metadata"
		if challenged {
			o.Scope, want, from = "mcp:read", []string{"mcp:read"}, "scope of the 401's challenge"
		}
		r := runProtected(c, authfake.CaseGood, o)
		authz := wantAuthorizationRequest(c, r)
		requireVersionFrom(c, r, "2025-11-25", "the scope selection")
		got := strings.Fields(first(authz[0].Query, "scope"))
		c.Require(!slices.ContainsFunc(want, func(s string) bool { return !slices.Contains(got, s) }),
			fmt.Sprintf("the first authorization request asks for %q, the %s", strings.Join(want, " "), from),
			"it asked for scope %q", strings.Join(got, " "))
	}
})

var _ = clientCheck(check.Descriptor{
	ID:    "http.client.auth.step-up-bounded",
	Title: "a client that steps up on 403 insufficient_scope asks for the scope and stops after a few tries",
	Requirement: "On a 403 with error=\"insufficient_scope\" a client may re-authorize for the scope the challenge names (step-up) or handle the error otherwise; " +
		"one that steps up asks for that scope and keeps a retry limit, so that a server that never accepts its tokens cannot keep it authorizing.",
	Rules:    []string{"AU-01"},
	Source:   check.Hardened,
	KilledBy: []mutant.Name{mutant.AuthStepUpUnbounded},
}, func(c *run.C) {
	r := runProtected(c, authfake.CaseGood, resourcefake.Options{ToolsScope: "mcp:tools", EndlessStepUp: true, StepUpCeiling: resourcefake.DefaultStepUpCeiling})
	wantAuthorizationRequest(c, r)
	firstForbidden := slices.IndexFunc(r.Resource, func(q resourcefake.Request) bool { return q.Status == 403 })
	if firstForbidden < 0 {
		c.Unimplemented(fmt.Sprintf("no tools/call reached the server with a token, so no 403 insufficient_scope was answered (requests: %s): the adapter must call the server's tool", describeResource(r)))
	}
	after := r.Resource[firstForbidden].Time
	var stepUps []authfake.Request
	for _, q := range asRequests(r.AS, authfake.EndpointAuthorize) {
		if q.Time.After(after) {
			stepUps = append(stepUps, q)
		}
	}
	if len(stepUps) == 0 {
		c.Info("the client did not step up on the 403 insufficient_scope: it handled the error otherwise, which the spec allows")
	}
	for _, q := range stepUps {
		c.RequireHardened(slices.Contains(strings.Fields(first(q.Query, "scope")), "mcp:tools"), "every step-up asks for the challenged scope mcp:tools",
			"a step-up authorization request asked for scope %q", first(q.Query, "scope"))
	}
	c.RequireHardened(len(stepUps) < resourcefake.DefaultStepUpCeiling,
		fmt.Sprintf("fewer than %d step-ups for the one tool call, whose every retry met 403 insufficient_scope", resourcefake.DefaultStepUpCeiling),
		"the client re-authorized %d times and stopped only when the server's 403 stopped naming insufficient_scope", len(stepUps))
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.auth.credentials-per-issuer",
	Title:       "after the server moves to another authorization server, the client registers there anew",
	Requirement: "The client keys the credentials it registered by the authorization server's issuer and never presents one server's client_id or secret to another: when the resource's metadata names a new authorization server, the client registers with it (AU-12).",
	Rules:       []string{"AU-12"},
	Eras:        []check.Era{check.Modern},
	KilledBy:    []mutant.Name{mutant.AuthCredentialsReused},
}, func(c *run.C) {
	r := c.RunProtectedHTTPClient(run.ProtectedSetup{AS: authfake.Options{Scopes: authScopes}, Next: &authfake.Options{Scopes: authScopes}, Resource: resourcefake.Options{}}, target.Invocation{})
	wantAuthorizationRequest(c, r)
	if len(r.AS.Registered) == 0 {
		c.NotApplicable("the client did not register dynamically with the first authorization server (it used pre-registered credentials or a client ID metadata document), so it had no credentials of one server to keep from another")
	}
	if !r.Migrated || len(r.Next.Requests) == 0 {
		c.Unimplemented(fmt.Sprintf("the client did not authorize with the second authorization server once the server's metadata named it and refused the first one's token (requests: %s): "+
			"on a 401 with the token it holds, the client must discover the authorization server again", describeResource(r)))
	}
	for _, q := range r.Next.Requests {
		id := first(q.Query, "client_id")
		if id == "" {
			id = first(q.Form, "client_id")
		}
		if user, ok := basicUser(q.Header.Get(mcp.HeaderAuthorization)); ok {
			id = user
		}
		c.Require(id == "" || !slices.Contains(r.AS.Registered, id), "no client_id registered with "+r.AS.URL+" in any request to "+r.Next.URL,
			"a request to the %s endpoint of the second authorization server carried the client_id the first one issued", q.Endpoint)
	}
})

// basicUser is the user of a Basic Authorization value, form-decoded
// (RFC 6749 §2.3.1).
func basicUser(v string) (string, bool) {
	user, _, ok := (&nethttp.Request{Header: nethttp.Header{mcp.HeaderAuthorization: {v}}}).BasicAuth()
	if u, err := url.QueryUnescape(user); err == nil {
		user = u
	}
	return user, ok
}
