package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mcp"
)

// What a client of a protected resource reads: the Bearer challenge of a
// 401 and the Protected Resource Metadata (RFC 6750 §3, RFC 9728), for
// the auth checks and the run's own token (RunTokenTransport).

// Challenge is a parsed Bearer challenge of WWW-Authenticate (RFC 6750
// §3): present when the header names the Bearer scheme.
type Challenge struct {
	Present bool
	Params  map[string]string // auth-params, names lower-cased
}

// ParseBearerChallenge finds the Bearer challenge among the challenges of
// the WWW-Authenticate values (RFC 9110 §11.6.1) and reads its
// auth-params, quoted or not.
func ParseBearerChallenge(values []string) Challenge {
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
				return Challenge{Present: true, Params: params}
			}
		}
	}
	return Challenge{}
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

// Describe renders the challenge for a message.
func (ch Challenge) Describe() string {
	if !ch.Present {
		return "no Bearer challenge in WWW-Authenticate"
	}
	return fmt.Sprintf("a Bearer challenge with %v", ch.Params)
}

// PRM is Protected Resource Metadata as the checks read it (RFC 9728 §2).
type PRM struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// MetadataURLs are where the Protected Resource Metadata of endpoint may
// be, in the order a client looks (AU-06): the challenge's
// resource_metadata, the path-suffixed well-known URI, the root one.
func MetadataURLs(endpoint string, ch Challenge) []string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	var out []string
	if rm := ch.Params["resource_metadata"]; rm != "" {
		out = append(out, rm)
	}
	if path := strings.TrimSuffix(u.Path, "/"); path != "" {
		out = append(out, origin+mcp.WellKnownPRM+path)
	}
	return append(out, origin+mcp.WellKnownPRM)
}

// maxMetadata bounds what a check reads of a metadata document.
const maxMetadata = 1 << 20

// FetchMetadata GETs the Protected Resource Metadata at u with client:
// the document, or nil and why not.
func FetchMetadata(ctx context.Context, client *http.Client, u string) (*PRM, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err.Error()
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Sprintf("status %d", resp.StatusCode)
	}
	var doc PRM
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(&doc); err != nil {
		return nil, "no JSON object: " + err.Error()
	}
	return &doc, ""
}
