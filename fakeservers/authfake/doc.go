// Package authfake is a loopback OAuth 2.1 authorization server for
// certifying MCP authorization (the AU rows of the requirements): a fake
// that mcpconform starts on 127.0.0.1 itself, never a real one.
//
// It serves RFC 8414 authorization server metadata (and the OpenID
// configuration), an authorization endpoint that completes headlessly (a
// GET with the usual parameters is answered 302 to redirect_uri with code,
// state and iss, no browser, no login), a token endpoint
// (authorization_code with PKCE S256 verification, refresh_token;
// client_secret_basic, client_secret_post and none), RFC 7591 dynamic
// client registration, optionally client ID metadata documents, and RFC
// 8707 resource indicators bound into each token's audience.
//
// Tokens are opaque random strings that the process running the fake can
// introspect (Validate), so a resource server in the same process (the
// reference server under `mcpconform serve --auth`) can check them. Every
// request the fake receives is recorded (Requests), so that a check can
// judge a client: did it use PKCE, send resource, which auth method did it
// pick. Options.Case makes the fake misbehave on purpose (Cases).
//
// Records hold what clients sent, secrets included (codes, verifiers,
// client secrets, tokens): the harness that shows them redacts them.
package authfake
