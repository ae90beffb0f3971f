package httpclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The headers the client sets (canonical forms; names compare
// case-insensitively, HT-83).
const (
	headerSession     = mcp.HeaderSessionID
	headerVersion     = mcp.HeaderProtocolVersion
	headerLastEventID = mcp.HeaderLastEventID
	headerAuth        = "Authorization"

	acceptPOST = mcp.ContentTypeJSON + ", " + mcp.ContentTypeSSE
	acceptSSE  = mcp.ContentTypeSSE
)

// maxRedirects is how many redirects the client's own HTTP client follows.
const maxRedirects = 10

// newRequest builds a request to the endpoint with every header the client
// sends: Accept (HT-11, HT-30g), Content-Type, the session id once issued
// (HT-54), the negotiated protocol version after initialize (HT-70), the
// bearer token (RM-11) and the custom headers (RM-12), which never replace
// the transport's own. sess is nil for a request outside any session.
func (c *Client) newRequest(ctx context.Context, method string, body []byte, sess *session) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.cfg.URL, rd)
	if err != nil {
		return nil, err
	}
	h := req.Header
	switch method {
	case http.MethodPost:
		h.Set("Accept", acceptPOST)
		if c.cfg.Mutant == mutant.AcceptJSONOnly {
			h.Set("Accept", mcp.ContentTypeJSON)
		}
		h.Set("Content-Type", mcp.ContentTypeJSON)
	case http.MethodGet:
		h.Set("Accept", acceptSSE)
		if c.cfg.Mutant == mutant.GETAcceptJSON {
			h.Set("Accept", mcp.ContentTypeJSON)
		}
	}
	if sess != nil && sess.id != "" && (method == http.MethodPost || c.cfg.Mutant != mutant.SessionIDOnlyOnPOST) {
		h.Set(headerSession, sess.id)
	}
	if sess != nil && sess.version != "" && c.cfg.Mutant != mutant.NoProtocolVersionHeader {
		h.Set(headerVersion, sess.version)
	}
	if c.cfg.AuthHeader != "" && (method == http.MethodPost || c.cfg.Mutant != mutant.NoAuthOnGetDelete) {
		h.Set(headerAuth, "Bearer "+c.cfg.AuthHeader)
	}
	for name, v := range c.cfg.CustomHeaders {
		if !c.cfg.reserved(http.CanonicalHeaderKey(name)) {
			h.Set(name, v)
		}
	}
	return req, nil
}

// defaultHTTPClient is the client used when the config gives none: its own
// transport (so Close can release its connections) and the RM-12 redirect
// policy.
func (c *Client) defaultHTTPClient() (*http.Client, *http.Transport) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if c.cfg.Mutant == mutant.HeaderNameCaseSensitive {
		t.DialContext = caseSensitiveDial(t.DialContext)
	}
	var rt http.RoundTripper = t
	if c.cfg.Authorizer != nil {
		rt = c.cfg.Authorizer.Wrap(t)
	}
	return &http.Client{Transport: rt, CheckRedirect: c.checkRedirect}, t
}

// checkRedirect keeps every header on a redirect within the endpoint's
// origin and drops the custom headers, Authorization and the session id on a
// redirect to another origin (RM-12, HT-53). net/http drops Authorization by
// itself when the host changes; this also covers a change of scheme or port.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0]
	if sameOrigin(first.URL, req.URL) {
		return nil
	}
	req.Header.Del(headerSession)
	if c.cfg.Mutant == mutant.HeadersCrossOrigin {
		for name := range c.cfg.CustomHeaders {
			req.Header.Set(name, first.Header.Get(name))
		}
		if v := first.Header.Get(headerAuth); v != "" {
			req.Header.Set(headerAuth, v)
		}
		return nil
	}
	for name := range c.cfg.CustomHeaders {
		req.Header.Del(name)
	}
	req.Header.Del(headerAuth)
	return nil
}

// sameOrigin compares scheme, host and port (RFC 6454), with default ports
// made explicit.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
