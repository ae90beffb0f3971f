package authfake

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// code is an authorization code waiting to be redeemed.
type code struct {
	clientID    string
	redirectURI string // as the authorization request gave it ("" if it gave none)
	challenge   string
	resource    string
	scopes      []string
	expiry      time.Time
}

// codeTTL is how long an authorization code may wait to be redeemed.
const codeTTL = 5 * time.Minute

// lookupClient finds a registered client or, with client ID metadata
// documents supported, makes a public one of an https client_id.
func (a *AS) lookupClient(id string) (*Client, bool) {
	a.mu.Lock()
	c, ok := a.clients[id]
	a.mu.Unlock()
	if ok {
		return c, true
	}
	if a.o.ClientIDMetadata && strings.HasPrefix(id, "https://") {
		return &Client{ID: id, AuthMethod: AuthNone}, true
	}
	return nil, false
}

// authorize completes an authorization request headlessly: it answers 302
// to redirect_uri with code, state and iss (as the case has it), or with
// an error; an unknown client or redirect URI gets 400 and no redirect
// (RFC 6749 §4.1.2.1).
func (a *AS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c, ok := a.lookupClient(q.Get("client_id"))
	if !ok {
		http.Error(w, "unknown client_id; register first", http.StatusBadRequest)
		return
	}
	redirect := q.Get("redirect_uri")
	switch {
	case redirect == "" && len(c.RedirectURIs) == 1:
		redirect = c.RedirectURIs[0]
	case redirect == "" || (len(c.RedirectURIs) > 0 && !slices.Contains(c.RedirectURIs, redirect)):
		http.Error(w, "redirect_uri missing or not registered for this client", http.StatusBadRequest)
		return
	}
	to, err := url.Parse(redirect)
	if err != nil || !to.IsAbs() {
		http.Error(w, "redirect_uri is not an absolute URL", http.StatusBadRequest)
		return
	}
	answer := url.Values{}
	if s := q.Get("state"); s != "" {
		answer.Set("state", s)
	}
	switch a.o.Case {
	case CaseIssMissing:
	case CaseIssWrong:
		answer.Set("iss", WrongIssuer)
	default:
		answer.Set("iss", a.URL())
	}
	switch {
	case q.Get("response_type") != "code":
		answer.Set("error", "unsupported_response_type")
	case a.o.Case != CaseNoPKCE && (q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256"):
		answer.Set("error", "invalid_request")
		answer.Set("error_description", "PKCE with code_challenge_method S256 is required")
	default:
		k := newSecret()
		a.mu.Lock()
		if len(a.codes) >= maxEntries {
			a.mu.Unlock()
			answer.Set("error", "temporarily_unavailable")
			break
		}
		a.remember(k)
		a.codes[k] = &code{
			clientID:    c.ID,
			redirectURI: q.Get("redirect_uri"),
			challenge:   q.Get("code_challenge"),
			resource:    q.Get("resource"),
			scopes:      scopes(q.Get("scope")),
			expiry:      time.Now().Add(codeTTL),
		}
		a.mu.Unlock()
		answer.Set("code", k)
	}
	merged := to.Query()
	for k, v := range answer {
		merged[k] = v
	}
	to.RawQuery = merged.Encode()
	w.Header().Set("Location", to.String())
	w.WriteHeader(http.StatusFound)
}

// authenticate identifies the client of a token request and how it
// authenticated (RFC 6749 §2.3.1): the client, the method, or an OAuth
// error code.
func (a *AS) authenticate(r *http.Request) (*Client, string, string) {
	id, secret, basic := r.BasicAuth()
	method := AuthBasic
	if basic {
		// RFC 6749 §2.3.1: both are form-urlencoded before Basic encoding.
		if u, err := url.QueryUnescape(id); err == nil {
			id = u
		}
		if u, err := url.QueryUnescape(secret); err == nil {
			secret = u
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		method = AuthPost
		if secret == "" {
			method = AuthNone
		}
	}
	c, ok := a.lookupClient(id)
	if !ok {
		return nil, method, "invalid_client"
	}
	if a.o.Case == CaseAuthMethodMismatch {
		if method == demanded(c) {
			return c, method, ""
		}
		return nil, method, "invalid_client"
	}
	switch {
	case c.AuthMethod == AuthNone && method == AuthNone:
		return c, method, ""
	case c.AuthMethod != AuthNone && method != AuthNone && subtle.ConstantTimeCompare([]byte(secret), []byte(c.Secret)) == 1:
		return c, method, ""
	}
	return nil, method, "invalid_client"
}

// demanded is the method CaseAuthMethodMismatch demands of client c: not
// the one it registered.
func demanded(c *Client) string {
	if c.AuthMethod == AuthBasic {
		return AuthPost
	}
	return AuthBasic
}

// token serves the token endpoint and returns how the client
// authenticated.
func (a *AS) token(w http.ResponseWriter, r *http.Request) string {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", "the token endpoint takes POST")
		return ""
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body is no form")
		return ""
	}
	c, method, failure := a.authenticate(r)
	if failure != "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="authfake"`)
		oauthError(w, http.StatusUnauthorized, failure, "client authentication failed")
		return method
	}
	f := r.PostForm
	switch f.Get("grant_type") {
	case "authorization_code":
		a.redeem(w, c, f)
	case "refresh_token":
		a.refreshGrant(w, c, f)
	case "client_credentials":
		if c.AuthMethod == AuthNone {
			oauthError(w, http.StatusBadRequest, "unauthorized_client", "a public client cannot use client_credentials")
			return method
		}
		a.grant(w, Grant{ClientID: c.ID, Audience: f.Get("resource"), Scopes: scopes(f.Get("scope"))}, false)
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code, refresh_token or client_credentials")
	}
	return method
}

// redeem exchanges an authorization code, verifying PKCE (RFC 7636 §4.6).
func (a *AS) redeem(w http.ResponseWriter, c *Client, f url.Values) {
	a.mu.Lock()
	k, ok := a.codes[f.Get("code")]
	delete(a.codes, f.Get("code")) // a code is used once, whatever comes of it
	a.mu.Unlock()
	switch {
	case !ok || k.clientID != c.ID || !time.Now().Before(k.expiry):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code, or issued to another client")
		return
	case k.redirectURI != "" && f.Get("redirect_uri") != k.redirectURI:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
		return
	case k.challenge != "" && s256(f.Get("code_verifier")) != k.challenge:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
		return
	}
	resource := k.resource
	if r := f.Get("resource"); r != "" {
		resource = r
	}
	a.grant(w, Grant{ClientID: c.ID, Audience: resource, Scopes: k.scopes}, true)
}

// refreshGrant serves grant_type=refresh_token, rotating the refresh token.
func (a *AS) refreshGrant(w http.ResponseWriter, c *Client, f url.Values) {
	a.mu.Lock()
	g, ok := a.refresh[f.Get("refresh_token")]
	if ok && g.ClientID == c.ID {
		delete(a.refresh, f.Get("refresh_token"))
	}
	a.mu.Unlock()
	if !ok || g.ClientID != c.ID {
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token, or issued to another client")
		return
	}
	next := *g
	if s := scopes(f.Get("scope")); len(s) > 0 {
		for _, one := range s {
			if !slices.Contains(g.Scopes, one) {
				oauthError(w, http.StatusBadRequest, "invalid_scope", "a refresh cannot widen the scope")
				return
			}
		}
		next.Scopes = s
	}
	if r := f.Get("resource"); r != "" {
		next.Audience = r
	}
	a.grant(w, next, true)
}

// grant mints tokens for g (bound to OtherResource in CaseOtherResource)
// and answers the token response.
func (a *AS) grant(w http.ResponseWriter, g Grant, refresh bool) {
	if a.o.Case == CaseOtherResource {
		g.Audience = OtherResource
	}
	access, rt := a.mint(g, a.o.TokenTTL, refresh)
	if access == "" {
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the fake holds too many tokens")
		return
	}
	resp := map[string]any{
		"access_token": access,
		"token_type":   "Bearer",
		"expires_in":   int(a.o.TokenTTL / time.Second),
	}
	if len(g.Scopes) > 0 {
		resp["scope"] = strings.Join(g.Scopes, " ")
	}
	if rt != "" {
		resp["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, resp)
}

// s256 is the S256 code challenge of verifier (RFC 7636 §4.2).
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// register serves RFC 7591 dynamic client registration and returns the
// body it read.
func (a *AS) register(w http.ResponseWriter, r *http.Request) string {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", "registration takes POST")
		return ""
	}
	body, err := readBody(r)
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body could not be read")
		return body
	}
	if a.o.Case == CaseRegistrationRefused {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "this authorization server refuses every registration")
		return body
	}
	var m struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		GrantTypes   []string `json:"grant_types"`
		ClientName   string   `json:"client_name"`
		Scope        string   `json:"scope"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is no JSON object")
		return body
	}
	if m.AuthMethod == "" {
		m.AuthMethod = AuthBasic
	}
	if len(m.GrantTypes) == 0 {
		m.GrantTypes = []string{"authorization_code"}
	}
	switch {
	case !slices.Contains([]string{AuthBasic, AuthPost, AuthNone}, m.AuthMethod):
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "token_endpoint_auth_method must be client_secret_basic, client_secret_post or none")
		return body
	case slices.Contains(m.GrantTypes, "authorization_code") && len(m.RedirectURIs) == 0:
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required for authorization_code")
		return body
	}
	c := &Client{ID: "client-" + randomText()[:16], RedirectURIs: m.RedirectURIs, AuthMethod: m.AuthMethod}
	if m.AuthMethod != AuthNone {
		c.Secret = newSecret()
	}
	a.mu.Lock()
	full := len(a.clients) >= maxEntries
	if !full {
		a.clients[c.ID] = c
		if c.Secret != "" {
			a.remember(c.Secret)
		}
	}
	a.mu.Unlock()
	if full {
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the fake holds too many clients")
		return body
	}
	resp := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        time.Now().Unix(),
		"redirect_uris":              c.RedirectURIs,
		"token_endpoint_auth_method": c.AuthMethod,
		"grant_types":                m.GrantTypes,
		"response_types":             []string{"code"},
	}
	if m.ClientName != "" {
		resp["client_name"] = m.ClientName
	}
	if c.Secret != "" {
		resp["client_secret"] = c.Secret
		resp["client_secret_expires_at"] = 0
	}
	writeJSON(w, http.StatusCreated, resp)
	return body
}

// issue serves PathIssue: a token minted without a flow, for the
// certifier of the reference server.
func (a *AS) issue(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", "issue takes POST")
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body is no form")
		return
	}
	ttl := a.o.TokenTTL
	if s := r.PostForm.Get("ttl"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", "ttl is no Go duration (1h, -1m)")
			return
		}
		ttl = d
	}
	tok := a.Issue(r.PostForm.Get("resource"), scopes(r.PostForm.Get("scope")), ttl)
	if tok == "" {
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the fake holds too many tokens")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(ttl / time.Second)})
}
