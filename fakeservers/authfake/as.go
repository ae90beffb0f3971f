package authfake

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options select and parameterise one fake authorization server (Start). A
// zero field means the default named next to it.
type Options struct {
	Case string // a case ID from Cases; "" means CaseGood
	// Scopes are the scopes_supported the metadata lists; nil means
	// DefaultScopes.
	Scopes []string
	// IssuerPath gives the issuer a path ("/tenant"), so that a client
	// must use the RFC 8414 path forms of the well-known URIs; it starts
	// with "/" and has no trailing "/". Empty: the issuer is the origin.
	IssuerPath string
	// ClientIDMetadata advertises client_id_metadata_document_supported:
	// an https client_id (a client ID metadata document's URL) is accepted
	// without registration as a public client. The document is not
	// fetched; checks judge what the client sent from the record.
	ClientIDMetadata bool
	// TokenTTL is how long issued access tokens live; 0 means DefaultTokenTTL.
	TokenTTL time.Duration
	// Clients are pre-registered clients, for clients configured with
	// credentials instead of registering.
	Clients []Client
}

// DefaultScopes are the scopes_supported of Options.Scopes left nil.
var DefaultScopes = []string{"mcp:read", "mcp:tools", "offline_access"}

// DefaultTokenTTL is the lifetime of access tokens when Options.TokenTTL is 0.
const DefaultTokenTTL = time.Hour

// Client is a registered client. A public client has AuthMethod
// AuthNone and no Secret.
type Client struct {
	ID           string
	Secret       string
	RedirectURIs []string
	AuthMethod   string // AuthBasic, AuthPost or AuthNone; "" means AuthBasic (RFC 7591's default)
}

// Token endpoint authentication methods (RFC 7591 §2).
const (
	AuthBasic = "client_secret_basic"
	AuthPost  = "client_secret_post"
	AuthNone  = "none"
)

// Paths of the fake's endpoints, below the issuer (Options.IssuerPath).
const (
	PathAuthorize = "/authorize"
	PathToken     = "/token"
	PathRegister  = "/register"
	// PathIssue mints a token directly (POST, form fields resource, scope
	// space-separated, ttl a Go duration that may be negative for an
	// expired token). It is no OAuth endpoint: it is how a certifier on
	// this machine gets tokens for the reference server (`mcpconform
	// auth-token`) without a browser or a client.
	PathIssue = "/issue"
)

// Well-known metadata paths (RFC 8414 §3, OpenID Connect Discovery).
const (
	WellKnownAS     = "/.well-known/oauth-authorization-server"
	WellKnownOpenID = "/.well-known/openid-configuration"
)

// Bounds on what the fake keeps, so a runaway client cannot exhaust memory.
const (
	maxEntries = 4096     // registered clients, outstanding codes, live tokens, records
	maxBody    = 64 << 10 // a request body the fake reads
)

// readHeaderTimeout bounds how long a client may take to send headers.
const readHeaderTimeout = 10 * time.Second

// AS is one running fake authorization server on 127.0.0.1. Close it when
// done.
type AS struct {
	o       Options
	origin  string // http://127.0.0.1:PORT
	srv     *http.Server
	serving sync.WaitGroup

	mu      sync.Mutex
	clients map[string]*Client
	codes   map[string]*code
	tokens  map[string]*Grant // access tokens
	refresh map[string]*Grant // refresh tokens
	records []Request
	minted  []string      // every secret handed out (Minted)
	dropped int           // records not kept past maxEntries
	updated chan struct{} // closed and replaced at every new record
}

// Start starts the fake of case o.Case on a random port of 127.0.0.1. An
// unknown case or invalid options are an error naming the value.
func Start(o Options) (*AS, error) {
	c, err := checkCase(o.Case)
	if err != nil {
		return nil, err
	}
	o.Case = c
	if o.IssuerPath != "" && (!strings.HasPrefix(o.IssuerPath, "/") || strings.HasSuffix(o.IssuerPath, "/")) {
		return nil, fmt.Errorf("auth fake: IssuerPath %q must start with / and not end with /", o.IssuerPath)
	}
	if o.TokenTTL < 0 {
		return nil, fmt.Errorf("auth fake: TokenTTL must be 0 or more, got %v", o.TokenTTL)
	}
	if o.Scopes == nil {
		o.Scopes = DefaultScopes
	}
	if o.TokenTTL == 0 {
		o.TokenTTL = DefaultTokenTTL
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("auth fake: listen on 127.0.0.1: %w", err)
	}
	a := &AS{
		o:       o,
		origin:  "http://" + ln.Addr().String(),
		clients: map[string]*Client{},
		codes:   map[string]*code{},
		tokens:  map[string]*Grant{},
		refresh: map[string]*Grant{},
		updated: make(chan struct{}),
	}
	for _, cl := range o.Clients {
		cl := cl
		if cl.AuthMethod == "" {
			cl.AuthMethod = AuthBasic
		}
		a.clients[cl.ID] = &cl
	}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve), ReadHeaderTimeout: readHeaderTimeout}
	a.serving.Go(func() { _ = a.srv.Serve(ln) })
	return a, nil
}

// URL is the issuer identifier: http://127.0.0.1:PORT plus
// Options.IssuerPath. It is what a protected resource lists in
// authorization_servers.
func (a *AS) URL() string { return a.origin + a.o.IssuerPath }

// Case is the case the fake plays.
func (a *AS) Case() string { return a.o.Case }

// Scopes are the scopes_supported the fake advertises.
func (a *AS) Scopes() []string { return slices.Clone(a.o.Scopes) }

// Close stops the fake, cutting off requests still in progress after a
// short grace.
func (a *AS) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := a.srv.Shutdown(ctx)
	if err != nil {
		err = a.srv.Close()
	}
	a.serving.Wait()
	return err
}

// Request is the record of one HTTP request the fake received.
type Request struct {
	Time     time.Time
	Endpoint string // EndpointMetadata, EndpointOpenID, EndpointAuthorize, EndpointToken, EndpointRegister, EndpointIssue or EndpointUnknown
	Method   string
	Path     string
	Query    map[string][]string // the URL's query parameters
	Form     map[string][]string // the form body of token and issue requests
	Header   http.Header         // a copy, Authorization included
	Body     string              // the registration request's body
	// AuthMethod is how a token request authenticated its client:
	// AuthBasic, AuthPost or AuthNone ("" for other endpoints).
	AuthMethod string
	Status     int // the status the fake answered
}

// Endpoints a Request can name.
const (
	EndpointMetadata  = "metadata" // RFC 8414 authorization server metadata
	EndpointOpenID    = "openid"   // OpenID configuration
	EndpointAuthorize = "authorize"
	EndpointToken     = "token"
	EndpointRegister  = "register"
	EndpointIssue     = "issue"
	EndpointUnknown   = "unknown"
)

// Requests returns a snapshot of the record, in arrival order. Past
// 4096 records, later requests are served but not recorded.
func (a *AS) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.records)
}

// RequestsAt returns the requests of the record to endpoint (Endpoint…),
// in arrival order.
func (a *AS) RequestsAt(endpoint string) []Request {
	var out []Request
	for _, rq := range a.Requests() {
		if rq.Endpoint == endpoint {
			out = append(out, rq)
		}
	}
	return out
}

// Changed returns a channel closed at the next new record, for waiting
// on a client's requests without sleeping.
func (a *AS) Changed() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.updated
}

// Minted returns every secret the fake has handed out so far (access and
// refresh tokens, authorization codes, client secrets), for tests that
// look for them in what the harness wrote. Past 16384 it keeps no more.
func (a *AS) Minted() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.minted)
}

// maxMinted bounds Minted's list.
const maxMinted = 4 * maxEntries

// remember adds secret to Minted's list; call it with a.mu held.
func (a *AS) remember(secret string) {
	if len(a.minted) < maxMinted {
		a.minted = append(a.minted, secret)
	}
}

// record appends rq to the record and wakes the waiters.
func (a *AS) record(rq Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.records) >= maxEntries {
		a.dropped++
		return
	}
	a.records = append(a.records, rq)
	close(a.updated)
	a.updated = make(chan struct{})
}

// Registered returns the client IDs the fake issued by dynamic
// registration, in no order: a check of a client that must not present
// one server's credentials to another compares them with what the other
// received.
func (a *AS) Registered() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ids []string
	for id := range a.clients {
		if !slices.ContainsFunc(a.o.Clients, func(c Client) bool { return c.ID == id }) {
			ids = append(ids, id)
		}
	}
	return ids
}
