package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// resourceMetadata is a protected resource metadata document (RFC 9728 §2).
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is authorization server metadata (RFC 8414 §2), with the
// members the client uses.
type serverMetadata struct {
	Issuer                        string   `json:"issuer"`
	AuthorizationEndpoint         string   `json:"authorization_endpoint"`
	TokenEndpoint                 string   `json:"token_endpoint"`
	RegistrationEndpoint          string   `json:"registration_endpoint"`
	ScopesSupported               []string `json:"scopes_supported"`
	GrantTypesSupported           []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethods      []string `json:"token_endpoint_auth_methods_supported"`
	CIMDSupported                 bool     `json:"client_id_metadata_document_supported"`
	// ISSParameterSupported is authorization_response_iss_parameter_supported
	// (RFC 9207 §3).
	ISSParameterSupported bool `json:"authorization_response_iss_parameter_supported"`
	// fallback is true for the 2025-03-26 default endpoints, used when no
	// metadata document exists.
	fallback bool
}

// target is what discovery found: the resource and its authorization
// server.
type target struct {
	resource string            // the resource parameter (RFC 8707)
	prm      *resourceMetadata // nil: none found (the 2025-03-26 fallback)
	issuer   string            // the authorization server's issuer identifier
	meta     *serverMetadata
}

// discover finds the protected resource metadata and the authorization
// server's metadata for the challenge ch.
func (a *Authorizer) discover(ctx context.Context, ch Challenge) (*target, error) {
	server, _ := url.Parse(a.cfg.ServerURL)
	prm, prmURL, err := a.findResourceMetadata(ctx, server, ch)
	if err != nil {
		return nil, err
	}
	t := &target{prm: prm}
	var asURL string
	if prm == nil {
		// 2025-03-26: no protected resource metadata; the authorization
		// server is the MCP server's origin.
		origin := &url.URL{Scheme: server.Scheme, Host: server.Host}
		asURL = origin.String()
		t.resource = canonicalResource(server)
		a.logf("no protected resource metadata; the authorization server is the server's origin %s (2025-03-26)", asURL)
	} else {
		if !a.is(mutant.AuthPRMResourceUnchecked) && !resourceMatches(prm.Resource, server) {
			return nil, a.errorf("the protected resource metadata at %s names resource %q, which is not the server %s (RFC 9728 §3.3); not proceeding", prmURL, prm.Resource, canonicalResource(server))
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, a.errorf("the protected resource metadata at %s lists no authorization server (authorization_servers)", prmURL)
		}
		asURL = prm.AuthorizationServers[0]
		t.resource = prm.Resource
		if t.resource == "" || a.is(mutant.AuthPRMResourceUnchecked) {
			t.resource = canonicalResource(server)
		}
	}
	meta, err := a.findServerMetadata(ctx, asURL, prm == nil)
	if err != nil {
		return nil, err
	}
	t.meta, t.issuer = meta, meta.Issuer
	if !meta.fallback && !a.is(mutant.AuthPKCEPlain) && !contains(meta.CodeChallengeMethodsSupported, "S256") {
		return nil, a.errorf("the authorization server %s does not advertise PKCE S256 in code_challenge_methods_supported (%v); refusing to proceed (AU-11)", asURL, meta.CodeChallengeMethodsSupported)
	}
	return t, nil
}

// findResourceMetadata fetches the protected resource metadata: from the
// challenge's resource_metadata, else the path-suffixed well-known URI, else
// the root one (AU-06). It returns nil without error when none exists.
func (a *Authorizer) findResourceMetadata(ctx context.Context, server *url.URL, ch Challenge) (*resourceMetadata, string, error) {
	var candidates []string
	if ch.ResourceMetadata != "" && !a.is(mutant.AuthResourceMetadataIgnored) {
		candidates = append(candidates, ch.ResourceMetadata)
	}
	origin := server.Scheme + "://" + server.Host
	if p := strings.TrimSuffix(server.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	for _, u := range candidates {
		var prm resourceMetadata
		found, err := a.getJSON(ctx, u, &prm)
		if err != nil {
			return nil, "", err
		}
		if found {
			a.logf("protected resource metadata from %s", u)
			return &prm, u, nil
		}
	}
	return nil, "", nil
}

// findServerMetadata fetches the metadata of the authorization server with
// issuer identifier issuer: RFC 8414's well-known URI with the issuer's
// path appended, then OpenID Connect discovery in both of its forms; at a
// root issuer, the two root documents. Metadata whose issuer is not issuer
// is refused (RFC 8414 §3.3). legacy allows the 2025-03-26 fallback to the
// default endpoints when no document exists.
func (a *Authorizer) findServerMetadata(ctx context.Context, issuer string, legacy bool) (*serverMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, a.errorf("the authorization server %q is not an https or http URL without query or fragment", issuer)
	}
	if err := a.secure("authorization server", issuer); err != nil {
		return nil, err
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	var candidates []string
	if path == "" {
		candidates = []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	} else {
		candidates = []string{
			origin + "/.well-known/oauth-authorization-server" + path,
			origin + "/.well-known/openid-configuration" + path,
			origin + path + "/.well-known/openid-configuration",
		}
	}
	for _, c := range candidates {
		var m serverMetadata
		found, err := a.getJSON(ctx, c, &m)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		if m.Issuer != issuer && m.Issuer != strings.TrimSuffix(issuer, "/") && !a.is(mutant.AuthMetadataIssuerUnchecked) {
			return nil, a.errorf("the authorization server metadata at %s names issuer %q, not %q, the issuer it was fetched for (RFC 8414 §3.3); not using it", c, m.Issuer, issuer)
		}
		if m.AuthorizationEndpoint == "" || m.TokenEndpoint == "" {
			return nil, a.errorf("the authorization server metadata at %s lacks authorization_endpoint or token_endpoint", c)
		}
		for _, e := range [][2]string{{"authorization_endpoint", m.AuthorizationEndpoint}, {"token_endpoint", m.TokenEndpoint}, {"registration_endpoint", m.RegistrationEndpoint}} {
			if err := a.secure(e[0], e[1]); e[1] != "" && err != nil {
				return nil, err
			}
		}
		if m.Issuer == "" {
			m.Issuer = issuer
		}
		a.logf("authorization server metadata from %s", c)
		return &m, nil
	}
	if !legacy {
		return nil, a.errorf("the authorization server %s publishes no metadata (tried %s)", issuer, strings.Join(candidates, ", "))
	}
	a.logf("no authorization server metadata at %s; using the default endpoints /authorize, /token and /register (2025-03-26)", origin)
	return &serverMetadata{
		Issuer:                issuer,
		AuthorizationEndpoint: origin + "/authorize",
		TokenEndpoint:         origin + "/token",
		RegistrationEndpoint:  origin + "/register",
		fallback:              true,
	}, nil
}

// getJSON fetches u into v: found is false for a 4xx answer (the document
// is not there), an error for a 5xx or a body that is not a JSON object.
func (a *Authorizer) getJSON(ctx context.Context, u string, v any) (found bool, err error) {
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, a.errorf("metadata URL %q: %v", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.hc.Do(req)
	if err != nil {
		return false, a.errorf("fetching %s: %v", u, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, a.errorf("fetching %s: HTTP %d", u, resp.StatusCode)
	case err != nil:
		return false, a.errorf("reading %s: %v", u, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, a.errorf("%s is not a JSON metadata document: %v", u, err)
	}
	return true, nil
}

// canonicalResource is the server's canonical URI (RFC 8707 §2, MCP's
// canonical server URI): lower-case scheme and host, no fragment, no
// trailing slash.
func canonicalResource(u *url.URL) string {
	c := *u
	c.Scheme, c.Host, c.Fragment, c.RawFragment = strings.ToLower(u.Scheme), strings.ToLower(u.Host), "", ""
	s := c.String()
	if c.RawQuery == "" {
		s = strings.TrimSuffix(s, "/")
	}
	return s
}

// resourceMatches reports whether the metadata's resource identifies the
// server: the same origin, and a path that is the server's or one of its
// parents (a root document names the origin).
func resourceMatches(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" || !strings.EqualFold(r.Scheme, server.Scheme) || !strings.EqualFold(r.Host, server.Host) {
		return false
	}
	rp, sp := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(server.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}

// secure refuses an authorization server URL that is neither https nor
// http on a loopback host: OAuth 2.1 §1.5 serves every authorization server
// endpoint over https, and a client's credentials, codes and tokens never
// cross a network in the clear. Loopback http stays allowed for test
// servers (mcpconform's, the official suite's).
func (a *Authorizer) secure(what, raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return a.errorf("the %s %q is not an absolute https URL", what, raw)
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		return a.errorf("the %s %s is plain http on a host that is not loopback; refusing to send credentials over it (OAuth 2.1 §1.5: https; http only on 127.0.0.1, ::1 or localhost)", what, u.Redacted())
	}
	return nil
}

// loopbackHost reports whether a host name (no port, no brackets) is
// localhost or a loopback IP address.
func loopbackHost(name string) bool {
	ip := net.ParseIP(name)
	return strings.EqualFold(name, "localhost") || (ip != nil && ip.IsLoopback())
}

// withTimeout bounds ctx by requestTimeout when it has no deadline.
func withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, requestTimeout)
}

// describe names an HTTP answer without its body.
func describe(resp *http.Response) string {
	return fmt.Sprintf("HTTP %d", resp.StatusCode)
}
