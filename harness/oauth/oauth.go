// Package oauth is the reference client's OAuth 2.1 authorization as MCP
// specifies it (AU-06, AU-08, AU-10, AU-11, AU-12): on a 401 it reads the
// Bearer challenge, discovers the protected resource metadata (RFC 9728)
// and the authorization server's metadata (RFC 8414, OpenID configuration,
// and the 2025-03-26 fallbacks), registers (pre-registered credentials, a
// client ID metadata document, or dynamic registration, RFC 7591), runs
// the authorization code grant with PKCE S256 (RFC 7636) and the resource
// parameter (RFC 8707), checks iss (RFC 9207), and sends the token as a
// Bearer header on every request of the MCP endpoint. A 403
// insufficient_scope re-authorizes with the union of the scopes, a
// bounded number of times.
//
// The authorization step runs headless: the client fetches the
// authorization URL itself and takes the code from the redirect to its
// redirect URI, which is never contacted. That is what loopback test
// authorization servers (mcpconform's, the official suite's) allow; an
// authorization server that wants a user to log in is refused with an
// error saying so.
//
// Every secret the flow sees or mints (access and refresh tokens, client
// secrets, authorization codes, code verifiers) is added to the
// Authorizer's secrets, and its errors are redacted with them; callers mask
// their own output with Redact.
package oauth

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// Environment variables of the reference adapter (not of the adapter
// contract): what a client would have been given out of band.
const (
	// EnvClient is a JSON object with a pre-registered client_id and, for a
	// confidential client, client_secret. Other members are ignored, so
	// the official suite's MCP_CONFORMANCE_CONTEXT can be passed as it is.
	EnvClient = "MCPCONFORM_OAUTH_CLIENT"
	// EnvClientMetadataURL is the URL of the client's client ID metadata
	// document, used as client_id where the authorization server advertises
	// client_id_metadata_document_supported.
	EnvClientMetadataURL = "MCPCONFORM_OAUTH_CLIENT_METADATA_URL"
)

// DefaultRedirectURI is the redirect URI the client registers. It is never
// contacted: the client reads the code from the redirect's Location.
const DefaultRedirectURI = "http://127.0.0.1/mcpconform/oauth/callback"

// DefaultMaxStepUps is how many times the client re-authorizes for a 403
// insufficient_scope over its life: with the first authorization, at most
// three authorization requests.
const DefaultMaxStepUps = 2

// maxAuthorizations bounds the authorizations of a client over its life, so
// that a resource that refuses every token cannot keep it in a loop.
const maxAuthorizations = 8

// requestTimeout bounds each request of the flow whose context has no
// deadline of its own.
const requestTimeout = 10 * time.Second

// maxBody is the largest metadata, registration or token response read.
const maxBody = 1 << 20

// Config configures an Authorizer.
type Config struct {
	// ServerURL is the MCP endpoint the tokens are for.
	ServerURL string
	// ClientID and ClientSecret are pre-registered credentials; empty
	// ClientID means none. They are used with every authorization server
	// (a pre-registration is out of band, so its scope is the caller's).
	ClientID, ClientSecret string
	// ClientMetadataURL is the client's client ID metadata document URL;
	// empty means the client has none.
	ClientMetadataURL string
	// RedirectURI is the registered redirect URI; empty means
	// DefaultRedirectURI.
	RedirectURI string
	// ClientName goes into a dynamic registration.
	ClientName string
	// MaxStepUps bounds re-authorizations for insufficient_scope; 0 means
	// DefaultMaxStepUps, a negative value none.
	MaxStepUps int
	// HTTPClient does the flow's requests (metadata, registration, the
	// authorization URL, the token endpoint); nil means a client of the
	// Authorizer's own. Its redirect policy is replaced by one that follows
	// none.
	HTTPClient *http.Client
	// Mutant selects a mutant of the flow (harness/mutant, client_auth.go).
	Mutant mutant.Name
	// Log, when set, receives one line per step of the flow, redacted.
	Log func(string)
}

// credentials are a client's registration with one authorization server.
type credentials struct {
	id, secret string
	method     string // token endpoint authentication method
}

// grant is the token the client holds, with what it was obtained for.
type grant struct {
	issuer   string
	access   string
	refresh  string
	scope    []string // the scope requested
	tokenURL string
	resource string
	creds    credentials
}

// Authorizer holds one client's authorization state for one MCP endpoint.
// Its methods are safe for concurrent use; one flow runs at a time.
type Authorizer struct {
	cfg    Config
	server *url.URL // cfg.ServerURL parsed
	hc     *http.Client
	flow   sync.Mutex // held during a flow

	mu             sync.Mutex
	secrets        transcript.Secrets
	current        *grant
	creds          map[string]credentials // by issuer (AU-12)
	stepUps        int
	authorizations int
}

// New returns an Authorizer for cfg.
func New(cfg Config) (*Authorizer, error) {
	u, err := url.Parse(cfg.ServerURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("oauth: server URL %q is not an absolute http or https URL", cfg.ServerURL)
	}
	if cfg.RedirectURI == "" {
		cfg.RedirectURI = DefaultRedirectURI
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "mcpconform reference client"
	}
	if cfg.MaxStepUps == 0 {
		cfg.MaxStepUps = DefaultMaxStepUps
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		hc = &c
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	a := &Authorizer{cfg: cfg, server: u, hc: hc, creds: map[string]credentials{}}
	a.remember(cfg.ClientSecret)
	return a, nil
}

// Redact masks every secret the Authorizer knows in s, and Authorization
// headers.
func (a *Authorizer) Redact(s string) string {
	a.mu.Lock()
	sec := a.secrets
	a.mu.Unlock()
	return sec.Redact(s)
}

// Token returns the access token the client holds; empty before the
// first authorization.
func (a *Authorizer) Token() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.current == nil {
		return ""
	}
	return a.current.access
}

// remember adds secrets to the redaction set.
func (a *Authorizer) remember(values ...string) {
	a.mu.Lock()
	a.secrets = a.secrets.With(values...)
	a.mu.Unlock()
}

// errorf returns an error whose text is redacted.
func (a *Authorizer) errorf(format string, args ...any) error {
	return errors.New(a.Redact("oauth: " + fmt.Sprintf(format, args...)))
}

func (a *Authorizer) logf(format string, args ...any) {
	if a.cfg.Log != nil {
		a.cfg.Log(a.Redact("oauth: " + fmt.Sprintf(format, args...)))
	}
}

func (a *Authorizer) is(m mutant.Name) bool { return a.cfg.Mutant == m }

// randomString is n random bytes in unpadded base64url: 32 bytes make a
// 43-character PKCE verifier (RFC 7636 §4.1).
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}

// scopeUnion returns the scopes of a followed by those of b it lacks.
func scopeUnion(a []string, b ...string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		for _, f := range strings.Fields(s) {
			if !contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
