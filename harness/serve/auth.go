package serve

import (
	"errors"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/harness/httpserver"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// Scopes of the reference server as a protected resource: every request
// needs ScopeRead, a tools/call needs ScopeTools besides, so that a client
// can be made to step up (AU-07).
const (
	ScopeRead  = "mcp:read"
	ScopeTools = "mcp:tools"
)

// StartAuth serves the reference server as a protected resource (Start
// with o.Auth): it starts a well-behaved loopback authorization server
// (authfake) and the endpoint behind httpserver.Protection, whose metadata
// lists that server. It returns the endpoint's URL, the authorization
// server (for Issue, Validate and its URL) and a stop function that stops
// both.
func StartAuth(o Options) (url string, as *authfake.AS, stop func() error, err error) {
	as, err = authfake.Start(authfake.Options{Scopes: []string{ScopeRead, ScopeTools}, Clients: o.AuthClients})
	if err != nil {
		return "", nil, nil, err
	}
	t, err := o.transport()
	if err != nil {
		as.Close()
		return "", nil, nil, err
	}
	p := httpserver.Protection{
		AuthorizationServers: []string{as.URL()},
		ScopesSupported:      []string{ScopeRead, ScopeTools},
		Scope:                ScopeRead,
		ToolsScope:           ScopeTools,
		Introspect: func(token string) (httpserver.TokenInfo, bool) {
			g, err := as.Validate(token)
			if err != nil && !errors.Is(err, authfake.ErrExpired) {
				return httpserver.TokenInfo{}, false
			}
			return httpserver.TokenInfo{Audience: g.Audience, Scopes: slices.Clone(g.Scopes), Expired: err != nil}, true
		},
		Mutant: o.Mutant,
	}
	url, stopServer, err := httpserver.ListenProtected(o.addr(), t, p)
	if err != nil {
		as.Close()
		return "", nil, nil, err
	}
	return url, as, func() error { return errors.Join(stopServer(), as.Close()) }, nil
}

// TokenCommand is the shell command line that prints a token of the
// authorization server at asURL (`mcpconform auth-token --as URL`), as
// `mcpconform server --auth-token-command` takes it.
func TokenCommand(asURL string) string {
	argv := selfexec.Command(AuthTokenCommand, "--as", asURL)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

// shellQuote quotes s for sh when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
