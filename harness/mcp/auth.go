package mcp

// Authorization over HTTP (the AU rules): the names a protected resource
// and its clients share, spelled once.
const (
	// WellKnownPRM is the RFC 9728 well-known path of Protected Resource
	// Metadata; the path-suffixed form appends the endpoint's path
	// (/.well-known/oauth-protected-resource/mcp), the root form is the
	// path alone (AU-05).
	WellKnownPRM = "/.well-known/oauth-protected-resource"
	// HeaderAuthorization carries the bearer token (AU-08).
	HeaderAuthorization = "Authorization"
	// HeaderWWWAuthenticate carries a resource server's challenge (AU-04,
	// AU-07).
	HeaderWWWAuthenticate = "WWW-Authenticate"
	// QueryAccessToken is the query parameter RFC 6750 §2.3 once allowed
	// and OAuth 2.1 forbids (AU-08).
	QueryAccessToken = "access_token"
)
