package mutant

// Mutants of the reference server as a protected resource (`mcpconform
// serve --auth`, httpserver.Protection): each breaks one rule of the
// resource server's side of authorization, which a check of
// http.server.auth.* must catch. They change nothing without --auth.
const (
	AuthAcceptsAnyAudience    Name = "auth-accepts-any-audience"
	AuthNoResourceMetadata    Name = "auth-no-resource-metadata"
	AuthTokenInQueryAccepted  Name = "auth-token-in-query-accepted"
	AuthExpiredAccepted       Name = "auth-expired-accepted"
	AuthNoWWWAuthenticate     Name = "auth-no-www-authenticate"
	AuthInsufficientScope401  Name = "auth-insufficient-scope-401"
	AuthMalformedAccepted     Name = "auth-malformed-accepted"
	AuthPRMWrongResource      Name = "auth-prm-wrong-resource"
	AuthPRMNoServers          Name = "auth-prm-no-authorization-servers"
	AuthInsufficientScopeBare Name = "auth-insufficient-scope-bare"
	AuthNoTokenAccepted       Name = "auth-no-token-accepted"
)

func init() {
	register(
		Mutant{AuthAcceptsAnyAudience, "server", "accepts a token issued for another resource: no audience check (AU-09)"},
		Mutant{AuthNoResourceMetadata, "server", "serves no Protected Resource Metadata and names none in WWW-Authenticate (AU-04, AU-05)"},
		Mutant{AuthTokenInQueryAccepted, "server", "accepts a token in the access_token query parameter (AU-08, OAuth 2.1 §5.1)"},
		Mutant{AuthExpiredAccepted, "server", "accepts an expired token (AU-09)"},
		Mutant{AuthNoWWWAuthenticate, "server", "answers a request without a token 401 with no WWW-Authenticate header (AU-07)"},
		Mutant{AuthInsufficientScope401, "server", "answers a valid token lacking a scope with 401 instead of 403 (AU-09)"},
		Mutant{AuthMalformedAccepted, "server", "takes the first word of a malformed Authorization header as the token and accepts it (AU-09)"},
		Mutant{AuthPRMWrongResource, "server", "publishes Protected Resource Metadata whose resource is another server (AU-03)"},
		Mutant{AuthPRMNoServers, "server", "publishes Protected Resource Metadata with an empty authorization_servers (AU-03)"},
		Mutant{AuthNoTokenAccepted, "server", "serves a request without a token as if it were authorized, instead of answering 401 (AU-02, AU-09)"},
		Mutant{AuthInsufficientScopeBare, "server", "answers an insufficient scope 403 without error=\"insufficient_scope\" and scope in WWW-Authenticate (AU-07)"},
	)
}

// OfServerAuth reports whether n mutates the reference server as a
// protected resource: the self-test serves it with --auth.
func OfServerAuth(n Name) bool {
	switch n {
	case AuthAcceptsAnyAudience, AuthNoResourceMetadata, AuthTokenInQueryAccepted, AuthExpiredAccepted, AuthNoWWWAuthenticate,
		AuthInsufficientScope401, AuthMalformedAccepted, AuthPRMWrongResource, AuthPRMNoServers, AuthInsufficientScopeBare, AuthNoTokenAccepted:
		return true
	}
	return false
}
