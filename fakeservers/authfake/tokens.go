package authfake

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"slices"
	"time"
)

// Grant is what an access or refresh token stands for.
type Grant struct {
	Issuer   string    // the fake's issuer (URL)
	Audience string    // the resource (RFC 8707) the token is bound to; "" when none was asked for
	Scopes   []string  // the scopes granted
	Expiry   time.Time // when the access token stops being valid
	ClientID string    // the client it was issued to; "" for Issue
}

// Errors of Validate.
var (
	ErrUnknownToken = errors.New("token not issued by this authorization server")
	ErrExpired      = errors.New("token expired")
)

// Issue mints an access token for resource with scopes, valid for ttl from
// now (a ttl of 0 or less gives a token already expired), as if a client
// had gone through the flow. Tests and `mcpconform auth-token` use it.
func (a *AS) Issue(resource string, scopes []string, ttl time.Duration) string {
	tok, _ := a.mint(Grant{Audience: resource, Scopes: slices.Clone(scopes)}, ttl, false)
	return tok
}

// Validate introspects token: the grant it stands for, or ErrUnknownToken,
// or ErrExpired with the grant of an expired token. The caller checks the
// audience and scopes against its own needs.
func (a *AS) Validate(token string) (Grant, error) {
	a.mu.Lock()
	g, ok := a.tokens[token]
	a.mu.Unlock()
	if !ok {
		return Grant{}, ErrUnknownToken
	}
	if !time.Now().Before(g.Expiry) {
		return *g, ErrExpired
	}
	return *g, nil
}

// mint stores g as a new access token living ttl (and, with refresh, a
// refresh token for the same grant) and returns them. A full store is
// first cleared of expired tokens; still full, it mints nothing ("").
func (a *AS) mint(g Grant, ttl time.Duration, refresh bool) (access, refreshToken string) {
	g.Issuer = a.URL()
	g.Expiry = time.Now().Add(ttl)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.tokens) >= maxEntries {
		now := time.Now()
		for t, old := range a.tokens {
			if !now.Before(old.Expiry) {
				delete(a.tokens, t)
			}
		}
		if len(a.tokens) >= maxEntries {
			return "", ""
		}
	}
	access = newSecret()
	a.tokens[access] = &g
	a.remember(access)
	if refresh && len(a.refresh) < maxEntries {
		refreshToken = newSecret()
		a.remember(refreshToken)
		r := g
		a.refresh[refreshToken] = &r
	}
	return access, refreshToken
}

// SecretPrefix starts every secret the fake hands out (access and refresh
// tokens, authorization codes, client secrets), so that a test can find
// one in any output, even one minted in another process, by this prefix
// alone: masking replaces a secret whole.
const SecretPrefix = "authfake_"

// newSecret is SecretPrefix and 32 random bytes, base64url: a token, code
// or client secret nobody can guess.
func newSecret() string { return SecretPrefix + randomText() }

// randomText is 32 random bytes, base64url.
func randomText() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}
