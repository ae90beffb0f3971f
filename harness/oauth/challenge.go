package oauth

import (
	"net/http"
	"strings"
)

// Challenge is the Bearer challenge of a WWW-Authenticate header (RFC 6750
// §3, RFC 9728 §5.1): the parameters the client acts on.
type Challenge struct {
	// ResourceMetadata is the URL of the protected resource metadata
	// document (RFC 9728 §5.1); empty when the header names none.
	ResourceMetadata string
	// Scope is the space-separated scope the resource asks for (AU-07).
	Scope string
	// Error is the error code, e.g. invalid_token or insufficient_scope.
	Error string
}

// ParseChallenge reads the Bearer challenge of h's WWW-Authenticate
// headers; ok is false when there is none. Parameter names compare
// case-insensitively, values may be tokens or quoted strings, and a header
// may hold several challenges (RFC 9110 §11.6.1): only the Bearer one
// counts.
func ParseChallenge(h http.Header) (c Challenge, ok bool) {
	for _, v := range h.Values("WWW-Authenticate") {
		for _, ch := range splitChallenges(v) {
			if !strings.EqualFold(ch.scheme, "bearer") {
				continue
			}
			ok = true
			for k, val := range ch.params {
				switch strings.ToLower(k) {
				case "resource_metadata":
					c.ResourceMetadata = val
				case "scope":
					c.Scope = val
				case "error":
					c.Error = val
				}
			}
		}
	}
	return c, ok
}

type challenge struct {
	scheme string
	params map[string]string
}

// splitChallenges parses one WWW-Authenticate value into its challenges:
// a scheme token, then comma-separated auth-params (name=token or
// name="quoted string"). A token68 credential is skipped.
func splitChallenges(s string) []challenge {
	var out []challenge
	p := &lexer{s: s}
	for {
		p.skip(" \t,")
		if p.done() {
			return out
		}
		scheme := p.token()
		if scheme == "" {
			p.i++ // not a token character: step over it
			continue
		}
		ch := challenge{scheme: scheme, params: map[string]string{}}
		for {
			p.skip(" \t,")
			save := p.i
			name := p.token()
			p.skip(" \t")
			if name == "" || p.done() || p.s[p.i] != '=' {
				// The next challenge's scheme, or the end.
				p.i = save
				break
			}
			p.i++ // '='
			p.skip(" \t")
			if p.done() || p.s[p.i] == '=' || p.s[p.i] == ',' {
				// A token68 (name==…) or an empty value: skip it.
				p.skip("=")
				continue
			}
			if p.s[p.i] == '"' {
				ch.params[name] = p.quoted()
			} else {
				ch.params[name] = p.tokenValue()
			}
		}
		out = append(out, ch)
	}
}

type lexer struct {
	s string
	i int
}

func (p *lexer) done() bool { return p.i >= len(p.s) }

func (p *lexer) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

func isTokenChar(b byte) bool {
	return b > 0x20 && b < 0x7f && !strings.ContainsRune("\"(),/:;<=>?@[\\]{}", rune(b))
}

func (p *lexer) token() string {
	start := p.i
	for !p.done() && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// tokenValue is an unquoted parameter value: everything up to a comma or
// white space (URLs in the wild come unquoted, with '/' and ':').
func (p *lexer) tokenValue() string {
	start := p.i
	for !p.done() && p.s[p.i] != ',' && p.s[p.i] != ' ' && p.s[p.i] != '\t' {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *lexer) quoted() string {
	var b strings.Builder
	p.i++ // opening quote
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
