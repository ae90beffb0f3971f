package transcript

import (
	"cmp"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces every credential Redact removes.
const Redacted = "***"

// minBareSecret is the length from which a password or query value of a
// URL is masked wherever it appears, not only where its URL shows it: a
// shorter one (the 1 of ?v=1) would mask unrelated text. --secret masks a
// value of any length everywhere.
const minBareSecret = 6

var (
	// authJSON is an Authorization header recorded as a JSON member: a
	// string, or an array of strings as Go's http.Header encodes it.
	authJSON = regexp.MustCompile(`(?i)"((?:proxy-)?authorization)"\s*:\s*(?:"(?:[^"\\]|\\.)*"|\[\s*(?:"(?:[^"\\]|\\.)*"\s*,?\s*)*\])`)
	// authHeader is an Authorization header as text. The value runs to the end
	// of the line, and stops at a quote or a backslash so that a header
	// quoted inside a JSON string leaves the JSON valid.
	authHeader = regexp.MustCompile(`(?i)\b((?:proxy-)?authorization)\s*:[^\r\n"\\]*`)
	// userinfo is the userinfo of a URL written in text, scheme://userinfo@,
	// which stops where a host, a path or a quote would begin.
	userinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#@"\\<>]*@`)
)

// Secrets are the credentials a run must never show, each with the text
// that replaces it. The zero value holds none; its Redact still masks
// Authorization headers and the userinfo of every URL. A Secrets is a
// value: With and WithURL return a new one, so goroutines can share it.
type Secrets struct {
	forms []secretForm // longest text first
}

// secretForm is one way a secret is written, and its mask.
type secretForm struct{ text, mask string }

// With returns s with values added, each masked as *** wherever it
// appears, as written and as it appears inside a JSON string. Empty values
// are ignored.
func (s Secrets) With(values ...string) Secrets {
	out := Secrets{forms: slices.Clone(s.forms)}
	for _, v := range values {
		out.add(v, Redacted)
	}
	return out.sorted()
}

// WithURL returns s with the credentials of rawURL added: its user name and
// password (each when it is at least minBareSecret long; its userinfo is masked whole
// inside any URL anyway), and each query value, masked where it follows
// its key (token=***) and, from minBareSecret on, wherever it appears. A
// rawURL that does not parse is a secret as a whole.
func (s Secrets) WithURL(rawURL string) Secrets {
	u, err := url.Parse(rawURL)
	if err != nil {
		return s.With(rawURL)
	}
	out := Secrets{forms: slices.Clone(s.forms)}
	if u.User != nil {
		// A token is often the user name alone (https://TOKEN@host/).
		out.addBare(u.User.Username())
	}
	if pw, ok := u.User.Password(); ok {
		out.addBare(pw)
		if _, esc, _ := strings.Cut(u.User.String(), ":"); esc != pw {
			out.addBare(esc)
		}
	}
	for _, pair := range strings.Split(u.RawQuery, "&") {
		key, value, ok := strings.Cut(pair, "=")
		if !ok || value == "" {
			continue
		}
		out.add(pair, key+"="+Redacted)
		out.addBare(value)
		dk, errK := url.QueryUnescape(key)
		dv, errV := url.QueryUnescape(value)
		if errK == nil && errV == nil {
			out.add(dk+"="+dv, dk+"="+Redacted)
			out.addBare(dv)
		}
	}
	return out.sorted()
}

// add adds text and its JSON-escaped form, both replaced by mask.
func (s *Secrets) add(text, mask string) {
	if text == "" {
		return
	}
	s.forms = append(s.forms, secretForm{text, mask})
	if quoted, err := json.Marshal(text); err == nil {
		if esc := string(quoted[1 : len(quoted)-1]); esc != text {
			s.forms = append(s.forms, secretForm{esc, mask})
		}
	}
}

// addBare adds a credential of a URL on its own, when it is long enough.
func (s *Secrets) addBare(text string) {
	if len(text) >= minBareSecret {
		s.add(text, Redacted)
	}
}

// sorted orders the forms longest first, so that a secret that contains
// another leaves no fragment behind, and drops repeats.
func (s Secrets) sorted() Secrets {
	slices.SortStableFunc(s.forms, func(a, b secretForm) int {
		return cmp.Or(len(b.text)-len(a.text), strings.Compare(a.text, b.text))
	})
	s.forms = slices.CompactFunc(s.forms, func(a, b secretForm) bool { return a.text == b.text })
	return s
}

// Redact returns text with every secret of s masked, then the value of
// every Authorization header (`Authorization: ***` as text,
// `"Authorization":"***"` as a JSON member, `["***"]` for an array) and the
// userinfo of every URL (http://***@host). A text already redacted is left
// as it is.
func (s Secrets) Redact(text string) string {
	for _, f := range s.forms {
		text = strings.ReplaceAll(text, f.text, f.mask)
	}
	text = authJSON.ReplaceAllStringFunc(text, func(m string) string {
		sub := authJSON.FindStringSubmatch(m)
		if strings.HasSuffix(m, "]") {
			return `"` + sub[1] + `":["` + Redacted + `"]`
		}
		return `"` + sub[1] + `":"` + Redacted + `"`
	})
	text = authHeader.ReplaceAllStringFunc(text, func(m string) string {
		name := authHeader.FindStringSubmatch(m)[1]
		if strings.EqualFold(name, "authorization") {
			name = "Authorization"
		}
		return name + ": " + Redacted
	})
	return userinfo.ReplaceAllString(text, "${1}"+Redacted+"@")
}

// Redact returns s with every occurrence of each secret (as written and as
// it appears inside a JSON string) replaced by ***, and the Authorization
// headers and URL userinfo masked as Secrets.Redact does. Longer secrets
// are replaced first, so a secret that contains another leaves no fragment
// behind. Empty secrets are ignored. Redact is idempotent.
func Redact(s string, secrets ...string) string {
	return Secrets{}.With(secrets...).Redact(s)
}

// RedactURL returns rawURL as it may be shown: its userinfo masked whole
// and the value of every query parameter masked, the keys kept so that a
// user sees what was sent: http://***@127.0.0.1:8080/mcp?token=***. A
// rawURL that does not parse is masked whole.
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Redacted
	}
	hasUser, query, fragment := u.User != nil, u.RawQuery, u.EscapedFragment()
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	out := u.String()
	if hasUser && strings.HasPrefix(out, u.Scheme+"://") {
		out = u.Scheme + "://" + Redacted + "@" + strings.TrimPrefix(out, u.Scheme+"://")
	}
	if query != "" {
		out += "?" + RedactQuery(query)
	}
	if fragment != "" {
		out += "#" + fragment
	}
	return out
}

// RedactQuery masks the value of every parameter of a raw query
// (token=abc&v=1 becomes token=***&v=***), keeping the keys and the
// parameters without a value.
func RedactQuery(rawQuery string) string {
	pairs := strings.Split(rawQuery, "&")
	for i, pair := range pairs {
		if key, value, ok := strings.Cut(pair, "="); ok && value != "" {
			pairs[i] = key + "=" + Redacted
		}
	}
	return strings.Join(pairs, "&")
}

// RedactError returns err, when it is the *url.Error a net/http client
// returns, with its URL shown as RedactURL shows it: net/http masks a URL's
// password in its errors, but neither the user name nor the query. Any
// other error is returned as it is.
func RedactError(err error) error {
	ue, ok := err.(*url.Error)
	if !ok {
		return err
	}
	return &url.Error{Op: ue.Op, URL: RedactURL(ue.URL), Err: ue.Err}
}
