package mcp

import (
	"net/url"
	"strings"
)

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

// SameResource reports whether a and b name the same resource (RFC 8707,
// AU-03, AU-09), compared as URIs compare: scheme and host without regard
// to case, a trailing slash of the path aside. An empty or unparsable
// identifier names none.
func SameResource(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return a != "" && b != "" && errA == nil && errB == nil && strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimSuffix(ua.Path, "/") == strings.TrimSuffix(ub.Path, "/") && ua.RawQuery == ub.RawQuery
}
