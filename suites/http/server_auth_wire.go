package http

import (
	"encoding/json"
	"fmt"
	"io"
	nethttp "net/http"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// What the checks of the server as a protected resource share: the
// challenge of its 401, its Protected Resource Metadata, and requests
// made with a token.

// challenge is a parsed Bearer challenge of WWW-Authenticate (RFC 6750
// §3): present when the header names the Bearer scheme.
type challenge struct {
	present bool
	params  map[string]string // auth-params, names lower-cased
}

// parseBearerChallenge finds the Bearer challenge among the challenges of
// the WWW-Authenticate values (RFC 9110 §11.6.1) and reads its
// auth-params, quoted or not.
func parseBearerChallenge(values []string) challenge {
	for _, v := range values {
		lx := &lexer{s: v}
		for !lx.done() {
			scheme := lx.token()
			if scheme == "" {
				lx.skip() // not a challenge: skip a character and go on
				continue
			}
			params := lx.params()
			if strings.EqualFold(scheme, "Bearer") {
				return challenge{present: true, params: params}
			}
		}
	}
	return challenge{}
}

// lexer reads the challenges of one WWW-Authenticate value.
type lexer struct {
	s string
	i int
}

func (l *lexer) done() bool { return l.i >= len(l.s) }
func (l *lexer) skip()      { l.i++ }

func (l *lexer) spaces() {
	for !l.done() && (l.s[l.i] == ' ' || l.s[l.i] == '\t' || l.s[l.i] == ',') {
		l.i++
	}
}

// token reads an RFC 9110 token after any blanks and commas.
func (l *lexer) token() string {
	l.spaces()
	start := l.i
	for !l.done() && strings.IndexByte("!#$%&'*+-.^_`|~", l.s[l.i]) >= 0 || !l.done() && isAlnum(l.s[l.i]) {
		l.i++
	}
	return l.s[start:l.i]
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// params reads name=value pairs until the next challenge's scheme (a token
// not followed by '=') or the end; a token68 is skipped.
func (l *lexer) params() map[string]string {
	out := map[string]string{}
	for {
		save := l.i
		name := l.token()
		l.blanks()
		if name == "" || l.done() || l.s[l.i] != '=' {
			l.i = save // the next challenge's scheme, or the end
			return out
		}
		l.i++                             // '='
		if !l.done() && l.s[l.i] == '=' { // token68 padding: not a parameter
			for !l.done() && l.s[l.i] == '=' {
				l.i++
			}
			continue
		}
		l.blanks()
		out[strings.ToLower(name)] = l.value()
	}
}

func (l *lexer) blanks() {
	for !l.done() && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
}

// value reads a quoted-string (with its escapes) or a token.
func (l *lexer) value() string {
	if l.done() || l.s[l.i] != '"' {
		return l.token()
	}
	l.i++
	var b strings.Builder
	for !l.done() && l.s[l.i] != '"' {
		if l.s[l.i] == '\\' && l.i+1 < len(l.s) {
			l.i++
		}
		b.WriteByte(l.s[l.i])
		l.i++
	}
	l.i++ // the closing quote
	return b.String()
}

// describe renders the challenge for a message.
func (ch challenge) describe() string {
	if !ch.present {
		return "no Bearer challenge in WWW-Authenticate"
	}
	return fmt.Sprintf("a Bearer challenge with %v", ch.params)
}

// authFrame is what a check of a protected server starts from: the server
// answered a request without a token 401 (protectedServer).
type authFrame struct {
	p         *probe
	challenge challenge
	header    string // the WWW-Authenticate values, joined
}

// protectedServer POSTs initialize without a token. A 401 makes the
// server a protected resource, whose checks go on; anything else ends the
// check N/A for an open server, or FAIL when the run was told the server
// is protected (--fixtures protected: true) (AU-02, AU-09).
func protectedServer(c *run.C) *authFrame {
	p := newProbe(c)
	id := p.id()
	r := p.post(p.message(id, "initialize", initializeParams()), nil, id, 0)
	if r.Status != nethttp.StatusUnauthorized {
		if c.Protected() {
			c.Failf("a protected server answers a request without a token 401 Unauthorized", "%s", r.describe())
		}
		c.NotApplicable(fmt.Sprintf("the server answered initialize without a token with status %d, not 401: it is no protected resource "+
			"(if it should be, say protected: true in the --fixtures file)", r.Status))
	}
	values := r.Header.Values(mcp.HeaderWWWAuthenticate)
	return &authFrame{p: p, challenge: parseBearerChallenge(values), header: strings.Join(values, ", ")}
}

// initializeParams are the params of the checks' initialize.
func initializeParams() map[string]any {
	return map[string]any{"protocolVersion": latestLegacy, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpconform-probe", "version": "1"}}
}

// prm is Protected Resource Metadata as the checks read it (RFC 9728 §2).
type prm struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// metadataURLs are where the Protected Resource Metadata may be, in the
// order a client looks (AU-06): the challenge's resource_metadata, the
// path-suffixed well-known URI, the root one.
func (f *authFrame) metadataURLs() []string {
	u, err := url.Parse(f.p.url)
	if err != nil {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	var out []string
	if rm := f.challenge.params["resource_metadata"]; rm != "" {
		out = append(out, rm)
	}
	if path := strings.TrimSuffix(u.Path, "/"); path != "" {
		out = append(out, origin+mcp.WellKnownPRM+path)
	}
	return append(out, origin+mcp.WellKnownPRM)
}

// metadata fetches the Protected Resource Metadata from the first place
// of metadataURLs that serves a JSON object; nil and what each place
// answered when none does.
func (f *authFrame) metadata() (*prm, string, []string) {
	var tried []string
	for _, u := range f.metadataURLs() {
		doc, why := f.fetchMetadata(u)
		if doc != nil {
			return doc, u, nil
		}
		tried = append(tried, u+": "+why)
	}
	return nil, "", tried
}

// maxMetadata bounds what a check reads of a metadata document.
const maxMetadata = 1 << 20

func (f *authFrame) fetchMetadata(u string) (*prm, string) {
	req, err := nethttp.NewRequestWithContext(f.p.c.Ctx, nethttp.MethodGet, u, nil)
	if err != nil {
		return nil, err.Error()
	}
	resp, err := f.p.client.Do(req)
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != nethttp.StatusOK {
		return nil, fmt.Sprintf("status %d", resp.StatusCode)
	}
	var doc prm
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(&doc); err != nil {
		return nil, "no JSON object: " + err.Error()
	}
	return &doc, ""
}

// scope is the scope a token for the checks asks for: the challenge's, or
// else every scope the metadata lists, or else none.
func (f *authFrame) scope() string {
	if s := f.challenge.params["scope"]; s != "" {
		return s
	}
	if doc, _, _ := f.metadata(); doc != nil {
		return strings.Join(doc.ScopesSupported, " ")
	}
	return ""
}

// otherResource is the audience of a token for another server.
const otherResource = "https://other-resource.invalid/mcp"

// validToken gets a token for this server with the checks' scope and
// makes sure the server accepts it: a check that sees a bad token refused
// must know a good one is not.
func (f *authFrame) validToken() string {
	scope := f.scope()
	tok := f.p.c.Token(target.TokenRequest{Resource: f.p.url, Scope: scope}, "token for this server")
	r := f.initialize(headers{mcp.HeaderAuthorization: "Bearer " + tok}, "")
	if r.Status/100 != 2 {
		f.p.c.Unimplemented(fmt.Sprintf("the server refused the token the command gave for %s with scope %q (%s), "+
			"so a refusal of a bad token would show nothing; make the command print a token this server accepts", f.p.url, scope, r.describe()))
	}
	return tok
}

// initialize POSTs initialize with h (and query as the URL's query) and
// ends any session it opens (with both) when the check ends.
func (f *authFrame) initialize(h headers, query string) *reply {
	id := f.p.id()
	req := f.p.request(f.p.message(id, "initialize", initializeParams()), h)
	if query != "" {
		req.URL.RawQuery = query
	}
	r := f.p.do(req, id, 0)
	if sid := r.Header.Get(mcp.HeaderSessionID); sid != "" && r.Status/100 == 2 {
		f.p.c.Cleanup(func() { f.endSession(sid, h, query) })
	}
	return r
}

// endSession ends a session opened with a token (in h or query), with
// DELETE.
func (f *authFrame) endSession(sid string, h headers, query string) {
	req := f.p.request(nil, h)
	req.URL.RawQuery = query
	req.Method, req.Body, req.ContentLength = nethttp.MethodDelete, nethttp.NoBody, 0
	req.Header.Set(mcp.HeaderSessionID, sid)
	if resp, err := f.p.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// refused reports whether a reply refuses its request: a 4xx status and
// no JSON-RPC result.
func refused(r *reply) bool {
	if r.Status < 400 || r.Status >= 500 {
		return false
	}
	for _, m := range r.Messages {
		if m.Kind() == jsonrpc.KindResult {
			return false
		}
	}
	return true
}
