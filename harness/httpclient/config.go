package httpclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// RetryPolicy says how a dropped SSE stream is resumed (HT-45, HT-29b).
type RetryPolicy struct {
	// MaxAttempts is how many reconnections are tried after a drop before
	// giving up; a reconnection that delivers a message starts the count
	// again. 0 never reconnects.
	MaxAttempts int
	// Delay is the wait before each reconnection; a retry field the server
	// sent on the stream overrides it (HT-29b).
	Delay time.Duration
}

// Config configures the reference streamable HTTP client. Zero values
// are literal (a MaxConcurrentRequests of 0 means one POST at a time, as
// RM-01 says, and a zero timeout allows no time); start from
// DefaultConfig for the seed defaults.
type Config struct {
	// URL is the MCP endpoint, an absolute http or https URL.
	URL string
	// MaxConcurrentRequests is how many ordinary POSTs may be in progress at
	// once; 0 means 1 (RM-01).
	MaxConcurrentRequests int
	// ControlRequestTimeout bounds each control POST (notifications/cancelled
	// and replies to server requests) from its start, not counting its time
	// in the queue (RM-03); it also bounds the DELETE on Close (RM-13).
	ControlRequestTimeout time.Duration
	// SessionRecoveryTimeout bounds the wait for the expired session's older
	// POSTs, and separately the new handshake (RM-05, RM-07).
	SessionRecoveryTimeout time.Duration
	// AllowStateless accepts an initialize reply without Mcp-Session-Id
	// (RM-10); rmcp, whose configuration the seed documents, defaults it
	// to true.
	AllowStateless bool
	// AuthHeader is a bare token, sent as "Authorization: Bearer <token>" on
	// every POST, GET and DELETE (RM-11). Empty sends none.
	AuthHeader string
	// Authorizer, when set, authorizes the requests of the client's own
	// HTTP client: it wraps its transport, adds the access token as
	// Authorization: Bearer and obtains one on a 401 (OAuth 2.1, package
	// oauth). It excludes AuthHeader, and a given HTTPClient is used as it
	// is, without it.
	Authorizer Authorizer
	// CustomHeaders go on every request. Headers the transport owns are
	// refused by Validate (RM-12), and none of them follows a redirect to
	// another origin.
	CustomHeaders map[string]string
	// MaxSSEEventSize is the largest SSE event accepted, in raw bytes
	// (RM-09); it also bounds a JSON response body.
	MaxSSEEventSize int
	// ReinitOnExpiredSession recovers from a 404 on a request that carried
	// a session id with a fresh handshake and one retry (RM-04 … RM-08).
	ReinitOnExpiredSession bool
	// OpenGETStream opens the server→client SSE stream with a GET once
	// notifications/initialized has been accepted (HT-30g); a 405 is fine.
	OpenGETStream bool
	// Retry is how dropped SSE streams are resumed with Last-Event-ID.
	Retry RetryPolicy
	// HTTPClient does the requests. nil means a client of its own whose
	// redirect policy keeps every header on a same-origin redirect and
	// drops CustomHeaders, Authorization and Mcp-Session-Id on a redirect
	// to another origin (RM-12). A client given here is used as it is.
	HTTPClient *http.Client
	// Mutant selects a mutant of the reference client; empty is the reference.
	Mutant mutant.Name
}

// Authorizer authorizes a client's requests by wrapping its transport
// (oauth.Authorizer is one).
type Authorizer interface {
	Wrap(http.RoundTripper) http.RoundTripper
}

// The seed defaults (SEMANTICS.md, RM rules).
const (
	DefaultMaxConcurrentRequests  = 16
	DefaultControlRequestTimeout  = 5 * time.Second
	DefaultSessionRecoveryTimeout = 5 * time.Second
	DefaultMaxSSEEventSize        = 16 << 20
	DefaultRetryAttempts          = 3
	DefaultRetryDelay             = time.Second
)

// DefaultConfig returns the seed defaults for endpoint url.
func DefaultConfig(url string) Config {
	return Config{
		URL:                    url,
		MaxConcurrentRequests:  DefaultMaxConcurrentRequests,
		ControlRequestTimeout:  DefaultControlRequestTimeout,
		SessionRecoveryTimeout: DefaultSessionRecoveryTimeout,
		AllowStateless:         true,
		MaxSSEEventSize:        DefaultMaxSSEEventSize,
		ReinitOnExpiredSession: true,
		OpenGETStream:          true,
		Retry:                  RetryPolicy{MaxAttempts: DefaultRetryAttempts, Delay: DefaultRetryDelay},
	}
}

// managedHeaders are set by net/http itself; a value given for them would be
// ignored or would corrupt the request.
var managedHeaders = map[string]bool{"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true}

// The transport's own headers in canonical form, as reserved compares them.
var (
	canonicalSession     = http.CanonicalHeaderKey(mcp.HeaderSessionID)
	canonicalVersion     = http.CanonicalHeaderKey(mcp.HeaderProtocolVersion)
	canonicalLastEventID = http.CanonicalHeaderKey(mcp.HeaderLastEventID)
)

// reserved reports whether the transport owns header (canonical form): a
// custom header of that name is refused, and never sent (RM-12).
func (c Config) reserved(header string) bool {
	if c.Mutant == mutant.CustomOverridesReserved {
		return false
	}
	switch header {
	case "Accept", "Content-Type", canonicalSession, canonicalVersion, canonicalLastEventID:
		return true
	case "Authorization":
		return c.AuthHeader != "" || c.Authorizer != nil
	}
	return false
}

// Validate checks the configuration before any request is made. Every
// problem is reported, each naming the field or header and the way out;
// header values and the token are never quoted.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("streamable client config: "+format, args...))
	}
	if u, err := url.Parse(c.URL); err != nil {
		bad("URL does not parse (%v); give the MCP endpoint, e.g. http://127.0.0.1:8080/mcp", err)
	} else if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("URL %q is not an absolute http or https URL; give the MCP endpoint, e.g. http://127.0.0.1:8080/mcp", u.Redacted())
	}
	for _, n := range []struct {
		name  string
		value int64
		zero  string
	}{
		{"MaxConcurrentRequests", int64(c.MaxConcurrentRequests), "0 runs one POST at a time"},
		{"ControlRequestTimeout", int64(c.ControlRequestTimeout), "0 allows no time"},
		{"SessionRecoveryTimeout", int64(c.SessionRecoveryTimeout), "0 allows no time"},
		{"Retry.MaxAttempts", int64(c.Retry.MaxAttempts), "0 never reconnects"},
		{"Retry.Delay", int64(c.Retry.Delay), "0 reconnects at once"},
	} {
		if n.value < 0 {
			bad("%s is negative (%d); use 0 or more (%s; DefaultConfig has the seed defaults)", n.name, n.value, n.zero)
		}
	}
	if c.MaxSSEEventSize <= 0 {
		bad("MaxSSEEventSize is %d, so no event or JSON body fits; use a positive limit (DefaultConfig uses %d)", c.MaxSSEEventSize, DefaultMaxSSEEventSize)
	}
	if strings.ContainsAny(c.AuthHeader, "\r\n\x00") {
		bad("AuthHeader contains CR, LF or NUL, which no header value can hold; give the bare token")
	} else if strings.HasPrefix(strings.ToLower(c.AuthHeader), "bearer ") {
		bad("AuthHeader starts with \"Bearer \"; give the bare token, the client adds the scheme (RM-11)")
	}
	if c.AuthHeader != "" && c.Authorizer != nil {
		bad("AuthHeader and Authorizer are both set; a static token and OAuth exclude each other, drop one")
	}
	errs = append(errs, c.validateHeaders()...)
	return errors.Join(errs...)
}

// validateHeaders applies RM-12 to CustomHeaders, in name order.
func (c Config) validateHeaders() []error {
	names := make([]string, 0, len(c.CustomHeaders))
	for name := range c.CustomHeaders {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	seen := map[string]string{}
	for _, name := range names {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("streamable client config: CustomHeaders[%q] "+format, append([]any{name}, args...)...))
		}
		if !validHeaderName(name) {
			bad("is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~ only); fix the name")
			continue
		}
		canon := http.CanonicalHeaderKey(name)
		if prev, dup := seen[canon]; dup {
			bad("and CustomHeaders[%q] name the same header; keep one", prev)
			continue
		}
		seen[canon] = name
		switch {
		case c.reserved(canon) && canon == "Authorization":
			bad("conflicts with AuthHeader or Authorizer, which set Authorization; drop one of them")
		case c.reserved(canon):
			bad("is a header the transport owns (RM-12); drop it, the client sets %s itself", canon)
		case managedHeaders[canon]:
			bad("is set by the HTTP stack; drop it")
		}
		if v := c.CustomHeaders[name]; !validHeaderValue(v) {
			bad("value contains CR, LF or another control character, which no header value can hold; remove them")
		}
	}
	return errs
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// validHeaderValue reports whether v holds no control character but tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7F {
			return false
		}
	}
	return true
}
