package mutant

// Mutants of the reference client's OAuth 2.1 code (package harness/oauth).
// Each breaks one authorization rule of the client; the oauth package
// consults the active one where it keeps that rule (oauth.Config.Mutant),
// and a check of http.client.auth.* kills it (suites/http/client_auth.go).
const (
	AuthNoPKCE                  Name = "auth-no-pkce"
	AuthNoResourceParam         Name = "auth-no-resource-param"
	AuthIssUnchecked            Name = "auth-iss-unchecked"
	AuthMetadataIssuerUnchecked Name = "auth-metadata-issuer-unchecked"
	AuthScopeIgnored            Name = "auth-scope-ignored"
	AuthTokenInQuery            Name = "auth-token-in-query"
	AuthPRMResourceUnchecked    Name = "auth-prm-resource-unchecked"
	AuthStepUpUnbounded         Name = "auth-step-up-unbounded"
	AuthCredentialsReused       Name = "auth-credentials-reused"
	AuthPKCEPlain               Name = "auth-pkce-plain"
	AuthResourceMetadataIgnored Name = "auth-resource-metadata-ignored"
)

func init() { register(ClientAuth...) }

// ClientAuth lists the OAuth mutants of the reference client with the rule
// each breaks.
var ClientAuth = []Mutant{
	{AuthNoPKCE, "client", "sends no code_challenge in the authorization request and no code_verifier in the token request (AU-11)"},
	{AuthPKCEPlain, "client", "uses the plain PKCE method, and proceeds when the authorization server's metadata lacks code_challenge_methods_supported (AU-11)"},
	{AuthNoResourceParam, "client", "leaves the RFC 8707 resource parameter out of its authorization and token requests (AU-10)"},
	{AuthIssUnchecked, "client", "redeems an authorization code whose iss is missing where the AS advertised it, or differs from the recorded issuer (AU-12, RFC 9207)"},
	{AuthMetadataIssuerUnchecked, "client", "uses authorization server metadata whose issuer differs from the issuer it was fetched for (RFC 8414 §3.3)"},
	{AuthScopeIgnored, "client", "requests no scope, whatever the challenge and scopes_supported say (AU-07)"},
	{AuthTokenInQuery, "client", "also sends its access token in the query string of every MCP request (AU-08)"},
	{AuthPRMResourceUnchecked, "client", "proceeds with a protected resource metadata document whose resource is not the server it connects to (RFC 9728 §3.3)"},
	{AuthStepUpUnbounded, "client", "re-authorizes on every 403 insufficient_scope without a retry limit"},
	{AuthCredentialsReused, "client", "presents the client credentials of one authorization server to another after a migration (AU-12)"},
	{AuthResourceMetadataIgnored, "client", "ignores resource_metadata in the 401's WWW-Authenticate and looks at the well-known URIs only (AU-06)"},
}
