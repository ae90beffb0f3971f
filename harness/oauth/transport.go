package oauth

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Wrap returns a RoundTripper that sends the Authorizer's access token as
// "Authorization: Bearer" on every request (never in the query string,
// AU-08), authorizes on a 401 and retries once, and re-authorizes with
// more scope on a 403 insufficient_scope, a bounded number of times.
func (a *Authorizer) Wrap(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{a: a, base: base}
}

type transport struct {
	a    *Authorizer
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	a := t.a
	for attempt := 0; ; attempt++ {
		token := a.Token()
		resp, err := t.base.RoundTrip(a.withToken(req, token))
		if err != nil {
			return nil, err
		}
		var retry bool
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			if attempt > 0 {
				return resp, nil // a fresh token refused too: the caller sees the 401
			}
			retry, err = a.onUnauthorized(req.Context(), resp, token)
		case http.StatusForbidden:
			retry, err = a.onForbidden(req.Context(), resp, token)
		default:
			return resp, nil
		}
		if err != nil || !retry {
			if err != nil {
				drain(resp)
				return nil, err
			}
			return resp, nil
		}
		if req.Body != nil && req.GetBody == nil {
			return resp, nil // the body cannot be sent again
		}
		drain(resp)
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, a.errorf("rewinding the request body for the retry: %v", err)
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
	}
}

// withToken returns req carrying token as a Bearer header (a clone: a
// RoundTripper must not change its request); req itself without a token,
// or when it goes to another origin than the MCP endpoint's (a redirect
// elsewhere never carries the token).
func (a *Authorizer) withToken(req *http.Request, token string) *http.Request {
	if token == "" || !sameOrigin(req.URL, a.server) {
		return req
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	if a.is(mutant.AuthTokenInQuery) {
		q := r.URL.Query()
		q.Set("access_token", token)
		r.URL.RawQuery = q.Encode()
	}
	return r
}

// onUnauthorized authorizes after a 401 to a request that carried token
// (empty: none) and reports whether to retry. A flow that another request
// already completed is not repeated.
func (a *Authorizer) onUnauthorized(ctx context.Context, resp *http.Response, token string) (bool, error) {
	ch, _ := ParseChallenge(resp.Header)
	a.flow.Lock()
	defer a.flow.Unlock()
	if cur := a.Token(); cur != "" && cur != token {
		return true, nil // another request has just obtained a new token
	}
	t, err := a.discover(ctx, ch)
	if err != nil {
		return false, err
	}
	a.mu.Lock()
	prev := a.current
	a.mu.Unlock()
	// A token refused by the same authorization server: refresh it first.
	if prev != nil && token != "" && prev.refresh != "" && prev.issuer == t.issuer && prev.resource == t.resource {
		if g, err := a.refresh(ctx, prev); err == nil {
			a.setGrant(g)
			return true, nil
		}
		a.logf("refreshing the token failed; authorizing again")
	}
	scope := a.chooseScope(t, ch.Scope)
	if prev != nil && prev.issuer == t.issuer {
		scope = scopeUnion(prev.scope, scope...)
	}
	g, err := a.authorizeCounted(ctx, t, scope)
	if err != nil {
		return false, err
	}
	a.setGrant(g)
	return true, nil
}

// onForbidden re-authorizes after a 403 insufficient_scope with the union
// of the scope held and the scope challenged (step-up), at most MaxStepUps
// times over the client's life; it reports whether to retry.
func (a *Authorizer) onForbidden(ctx context.Context, resp *http.Response, token string) (bool, error) {
	ch, ok := ParseChallenge(resp.Header)
	if !ok || ch.Error != "insufficient_scope" || token == "" {
		return false, nil
	}
	a.flow.Lock()
	defer a.flow.Unlock()
	if cur := a.Token(); cur != token {
		return true, nil
	}
	a.mu.Lock()
	prev := a.current
	exhausted := a.cfg.MaxStepUps < 0 || a.stepUps >= a.cfg.MaxStepUps
	if !exhausted || a.is(mutant.AuthStepUpUnbounded) {
		a.stepUps++
	}
	a.mu.Unlock()
	if exhausted && !a.is(mutant.AuthStepUpUnbounded) {
		a.logf("a 403 insufficient_scope after %d step-ups; not re-authorizing again", a.cfg.MaxStepUps)
		return false, nil
	}
	t, err := a.discover(ctx, ch)
	if err != nil {
		return false, err
	}
	var scope []string
	if prev != nil {
		scope = prev.scope
	}
	scope = scopeUnion(scope, ch.Scope)
	a.logf("step-up: re-authorizing for scope %q", strings.Join(scope, " "))
	g, err := a.authorizeCounted(ctx, t, scope)
	if err != nil {
		return false, err
	}
	a.setGrant(g)
	return true, nil
}

// authorizeCounted is authorize within the client's lifetime bound on
// authorizations.
func (a *Authorizer) authorizeCounted(ctx context.Context, t *target, scope []string) (*grant, error) {
	a.mu.Lock()
	a.authorizations++
	n := a.authorizations
	a.mu.Unlock()
	if n > maxAuthorizations && !a.is(mutant.AuthStepUpUnbounded) {
		return nil, a.errorf("%d authorizations already; the resource keeps refusing the tokens, giving up", maxAuthorizations)
	}
	return a.authorize(ctx, t, scope)
}

// chooseScope is the scope to request: the challenge's, else the
// resource's scopes_supported, else none (the server's default); with
// offline_access added where the authorization server lists it and grants
// refresh tokens.
func (a *Authorizer) chooseScope(t *target, challenged string) []string {
	var scope []string
	switch {
	case challenged != "":
		scope = scopeUnion(nil, challenged)
	case t.prm != nil && len(t.prm.ScopesSupported) > 0:
		scope = scopeUnion(nil, t.prm.ScopesSupported...)
	default:
		return nil
	}
	grants := t.meta.GrantTypesSupported
	if contains(t.meta.ScopesSupported, "offline_access") && (len(grants) == 0 || contains(grants, "refresh_token")) {
		scope = scopeUnion(scope, "offline_access")
	}
	return scope
}

func (a *Authorizer) setGrant(g *grant) {
	a.mu.Lock()
	a.current = g
	a.mu.Unlock()
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	_ = resp.Body.Close()
}

// sameOrigin compares scheme, host and port (RFC 6454), default ports
// made explicit.
func sameOrigin(x, y *url.URL) bool {
	return strings.EqualFold(x.Scheme, y.Scheme) && strings.EqualFold(x.Hostname(), y.Hostname()) && effectivePort(x) == effectivePort(y)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
