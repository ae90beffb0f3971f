package oauth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Token endpoint authentication methods (RFC 7591 §2).
const (
	methodBasic = "client_secret_basic"
	methodPost  = "client_secret_post"
	methodNone  = "none"
)

// register returns the client's credentials with the authorization server
// of t, in the order MCP gives: pre-registered credentials, a client ID
// metadata document where the server supports them, dynamic registration.
// Credentials are kept by issuer and never presented to another server
// (AU-12).
func (a *Authorizer) register(ctx context.Context, t *target) (credentials, error) {
	key := t.issuer
	if a.is(mutant.AuthCredentialsReused) {
		key = ""
	}
	a.mu.Lock()
	c, ok := a.creds[key]
	a.mu.Unlock()
	if ok {
		return c, nil
	}
	switch {
	case a.cfg.ClientID != "":
		c = credentials{id: a.cfg.ClientID, secret: a.cfg.ClientSecret}
		c.method = a.pickMethod(t.meta, c.secret != "")
		a.logf("using the pre-registered client %s (%s)", c.id, c.method)
	case a.cfg.ClientMetadataURL != "" && t.meta.CIMDSupported:
		c = credentials{id: a.cfg.ClientMetadataURL, method: methodNone}
		a.logf("using the client ID metadata document %s as client_id", c.id)
	case t.meta.RegistrationEndpoint != "":
		var err error
		if c, err = a.registerDynamically(ctx, t); err != nil {
			return c, err
		}
	default:
		return c, a.errorf("the authorization server %s offers no registration endpoint and the client has neither pre-registered credentials (%s) nor a client ID metadata document it accepts (%s)", t.issuer, EnvClient, EnvClientMetadataURL)
	}
	a.mu.Lock()
	a.creds[key] = c
	a.mu.Unlock()
	return c, nil
}

// pickMethod is the token endpoint authentication method for a client with
// or without a secret: none without one; with one, client_secret_basic
// where the server lists it or lists nothing (RFC 8414's default), else
// client_secret_post.
func (a *Authorizer) pickMethod(m *serverMetadata, secret bool) string {
	switch {
	case !secret:
		return methodNone
	case len(m.TokenEndpointAuthMethods) == 0 || contains(m.TokenEndpointAuthMethods, methodBasic):
		return methodBasic
	case contains(m.TokenEndpointAuthMethods, methodPost):
		return methodPost
	}
	return methodBasic
}

// registerDynamically registers with the server's registration endpoint
// (RFC 7591), asking for the token endpoint authentication method the
// server supports: none where it does, else client_secret_basic, else
// client_secret_post.
func (a *Authorizer) registerDynamically(ctx context.Context, t *target) (credentials, error) {
	want := methodNone
	if ms := t.meta.TokenEndpointAuthMethods; len(ms) > 0 && !contains(ms, methodNone) {
		want = a.pickMethod(t.meta, true)
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                a.cfg.ClientName,
		"redirect_uris":              []string{a.cfg.RedirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": want,
		"application_type":           "native",
	})
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.meta.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return credentials{}, a.errorf("registration endpoint %q: %v", t.meta.RegistrationEndpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if err := a.doJSON(req, "dynamic client registration", &reg, http.StatusCreated, http.StatusOK); err != nil {
		return credentials{}, err
	}
	a.remember(reg.ClientSecret)
	if reg.ClientID == "" {
		return credentials{}, a.errorf("the registration endpoint %s returned no client_id", t.meta.RegistrationEndpoint)
	}
	c := credentials{id: reg.ClientID, secret: reg.ClientSecret, method: reg.Method}
	if c.method == "" {
		c.method = want
	}
	if c.method != methodNone && c.secret == "" {
		c.method = methodNone
	}
	a.logf("registered with %s as client %s (%s)", t.meta.RegistrationEndpoint, c.id, c.method)
	return c, nil
}

// authorize runs the authorization code grant with PKCE against the server
// of t for scope and returns the grant.
func (a *Authorizer) authorize(ctx context.Context, t *target, scope []string) (*grant, error) {
	c, err := a.register(ctx, t)
	if err != nil {
		return nil, err
	}
	verifier, state := randomString(32), randomString(16)
	a.remember(verifier)
	q := url.Values{}
	q.Set("response_type", "code")
	q.Set("client_id", c.id)
	q.Set("redirect_uri", a.cfg.RedirectURI)
	q.Set("state", state)
	switch {
	case a.is(mutant.AuthNoPKCE):
	case a.is(mutant.AuthPKCEPlain):
		q.Set("code_challenge", verifier)
		q.Set("code_challenge_method", "plain")
	default:
		sum := sha256.Sum256([]byte(verifier))
		q.Set("code_challenge", base64.RawURLEncoding.EncodeToString(sum[:]))
		q.Set("code_challenge_method", "S256")
	}
	if !a.is(mutant.AuthNoResourceParam) {
		q.Set("resource", t.resource)
	}
	if len(scope) > 0 && !a.is(mutant.AuthScopeIgnored) {
		q.Set("scope", strings.Join(scope, " "))
	}
	authURL, err := url.Parse(t.meta.AuthorizationEndpoint)
	if err != nil {
		return nil, a.errorf("authorization endpoint %q: %v", t.meta.AuthorizationEndpoint, err)
	}
	authURL.RawQuery = mergeQuery(authURL.RawQuery, q)
	code, err := a.followAuthorization(ctx, authURL.String(), state, t)
	if err != nil {
		return nil, err
	}
	form := url.Values{}
	form.Set("grant_type", "authorization_code")
	form.Set("code", code)
	form.Set("redirect_uri", a.cfg.RedirectURI)
	if !a.is(mutant.AuthNoPKCE) {
		form.Set("code_verifier", verifier)
	}
	g := &grant{issuer: t.issuer, scope: scope, tokenURL: t.meta.TokenEndpoint, resource: t.resource, creds: c}
	if err := a.redeem(ctx, g, form); err != nil {
		return nil, err
	}
	return g, nil
}

// followAuthorization fetches the authorization URL headless and returns
// the code of the redirect to the redirect URI, after checking state and
// iss (RFC 9207: a present iss must be the recorded issuer, compared as
// strings; a missing one is refused where the server advertised it).
func (a *Authorizer) followAuthorization(ctx context.Context, authURL, state string, t *target) (string, error) {
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	next := authURL
	for hop := 0; ; hop++ {
		if hop == 10 {
			return "", a.errorf("the authorization endpoint redirected 10 times without reaching the redirect URI")
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			return "", a.errorf("authorization URL: %v", err)
		}
		resp, err := a.hc.Do(req)
		if err != nil {
			return "", a.errorf("authorization request: %v", err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		_ = resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
			return "", a.errorf("the authorization endpoint answered %s instead of redirecting to the redirect URI; the reference client authorizes headless only, against an authorization server that redirects at once", describe(resp))
		}
		to, err := req.URL.Parse(loc)
		if err != nil {
			return "", a.errorf("the authorization endpoint redirected to an unreadable Location: %v", err)
		}
		a.remember(to.Query().Get("code"))
		if !a.isRedirectURI(to) {
			next = to.String()
			continue
		}
		rq := to.Query()
		if e := rq.Get("error"); e != "" {
			return "", a.errorf("the authorization server refused the authorization request: %s %s", e, rq.Get("error_description"))
		}
		if rq.Get("state") != state {
			return "", a.errorf("the authorization response's state does not match the request's; refusing it")
		}
		if !a.is(mutant.AuthIssUnchecked) {
			iss, present := rq.Get("iss"), rq.Has("iss")
			switch {
			case present && iss != t.issuer:
				return "", a.errorf("the authorization response's iss %q is not the recorded issuer %q (RFC 9207); refusing to redeem the code", iss, t.issuer)
			case !present && t.meta.ISSParameterSupported:
				return "", a.errorf("the authorization server %s advertises authorization_response_iss_parameter_supported, but its response has no iss (RFC 9207); refusing to redeem the code", t.issuer)
			}
		}
		code := rq.Get("code")
		if code == "" {
			return "", a.errorf("the authorization response has no code")
		}
		return code, nil
	}
}

// isRedirectURI reports whether u is the registered redirect URI with the
// authorization response's query: the same scheme, host and path, compared
// whole (a path that merely starts with the redirect URI's is another
// place, whose hop the client follows).
func (a *Authorizer) isRedirectURI(u *url.URL) bool {
	r, err := url.Parse(a.cfg.RedirectURI)
	return err == nil && strings.EqualFold(u.Scheme, r.Scheme) && strings.EqualFold(u.Host, r.Host) && u.EscapedPath() == r.EscapedPath()
}

// redeem posts form to the grant's token endpoint, authenticated as the
// grant's client, with the resource parameter, and stores the tokens in g.
func (a *Authorizer) redeem(ctx context.Context, g *grant, form url.Values) error {
	if !a.is(mutant.AuthNoResourceParam) {
		form.Set("resource", g.resource)
	}
	c := g.creds
	switch c.method {
	case methodPost:
		form.Set("client_id", c.id)
		form.Set("client_secret", c.secret)
	case methodBasic:
	default:
		form.Set("client_id", c.id)
	}
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return a.errorf("token endpoint %q: %v", g.tokenURL, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if c.method == methodBasic {
		// RFC 6749 §2.3.1: both form-encoded before the Basic encoding.
		req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
	}
	var tok struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := a.doJSON(req, "token request ("+form.Get("grant_type")+")", &tok, http.StatusOK); err != nil {
		return err
	}
	a.remember(tok.AccessToken, tok.RefreshToken)
	if tok.AccessToken == "" {
		return a.errorf("the token endpoint %s returned no access_token", g.tokenURL)
	}
	if tok.TokenType != "" && !strings.EqualFold(tok.TokenType, "bearer") {
		return a.errorf("the token endpoint %s returned a token of type %q; the client uses Bearer tokens only", g.tokenURL, tok.TokenType)
	}
	g.access = tok.AccessToken
	if tok.RefreshToken != "" {
		g.refresh = tok.RefreshToken
	}
	a.logf("obtained an access token from %s", g.tokenURL)
	return nil
}

// refresh redeems the grant's refresh token for a new access token.
func (a *Authorizer) refresh(ctx context.Context, g *grant) (*grant, error) {
	next := *g
	form := url.Values{}
	form.Set("grant_type", "refresh_token")
	form.Set("refresh_token", g.refresh)
	if err := a.redeem(ctx, &next, form); err != nil {
		return nil, err
	}
	return &next, nil
}

// doJSON sends req and decodes a JSON answer of one of the ok statuses into
// v; another status is an error naming the OAuth error code it carries.
func (a *Authorizer) doJSON(req *http.Request, what string, v any, ok ...int) error {
	resp, err := a.hc.Do(req)
	if err != nil {
		return a.errorf("%s: %v", what, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return a.errorf("%s: reading the answer: %v", what, err)
	}
	good := false
	for _, s := range ok {
		good = good || resp.StatusCode == s
	}
	if !good {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(body, &e) // an answer without an error object names only its status
		return a.errorf("%s at %s: %s %s %s", what, req.URL.Redacted(), describe(resp), e.Error, e.Description)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return a.errorf("%s at %s: the answer is not a JSON object: %v", what, req.URL.Redacted(), err)
	}
	return nil
}

// mergeQuery appends q to an endpoint's own query (RFC 6749 §3.1 keeps it).
func mergeQuery(raw string, q url.Values) string {
	if raw == "" {
		return q.Encode()
	}
	return raw + "&" + q.Encode()
}
