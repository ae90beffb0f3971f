package transcript

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Redacted replaces every credential Redact removes.
const Redacted = "***"

// minBareSecret is the length from which a password or query value of a
// URL is masked wherever it appears, not only where its URL shows it: a
// shorter one (the 1 of ?v=1) would mask unrelated text. --secret masks a
// value of any length everywhere.
const minBareSecret = 6

// minBase64Form is the shortest base64 form of a secret that is masked (its
// whole encoding, or the part of it that shows inside a longer base64
// text): a shorter one could be any few letters of a base64 text. The
// base64 of a secret of 4 bytes or more is at least this long.
const minBase64Form = 8

// minCutFragment is the shortest start of a secret masked where a clip
// (Clip's "…") cut the secret short: the few characters the cut left of it
// before the mark.
const minCutFragment = 3

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
// appears in any of the forms Forms derives from it. Empty values are
// ignored.
func (s Secrets) With(values ...string) Secrets {
	out := Secrets{forms: slices.Clone(s.forms)}
	for _, v := range values {
		out.addSecret(v)
	}
	return out.sorted()
}

// WithURL returns s with the credentials of rawURL added: its user name and
// password (each when it is at least minBareSecret long; its userinfo is
// masked whole inside any URL anyway); the Basic credential Go's client
// sends for them (Authorization: Basic base64(user:password), base64 of
// user: without a password), with the forms of user:password from
// minBareSecret on; and each query value, masked where it follows its key
// (token=***) and, from minBareSecret on, wherever it appears. Every bare
// credential is masked in all its forms (Forms). A rawURL that does not
// parse is a secret as a whole.
func (s Secrets) WithURL(rawURL string) Secrets {
	u, err := url.Parse(rawURL)
	if err != nil {
		return s.With(rawURL)
	}
	out := Secrets{forms: slices.Clone(s.forms)}
	if u.User != nil {
		// A token is often the user name alone (https://TOKEN@host/).
		user := u.User.Username()
		out.addBare(user)
		pw, _ := u.User.Password()
		out.addBare(pw)
		if _, esc, _ := strings.Cut(u.User.String(), ":"); esc != pw {
			out.addBare(esc)
		}
		if basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + pw)); len(basic) >= minBase64Form {
			out.add(basic, Redacted)
		}
		out.addBare(user + ":" + pw)
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

// Forms returns every way a secret is written where a run may show it,
// the one place they are derived: as written; URL-encoded as a query value
// (url.QueryEscape) and as a path segment (url.PathEscape); in base64, the
// standard and URL alphabets each with and without padding; and the part
// of its base64 that is the same wherever the secret sits inside a longer
// base64 text (a Basic credential, a token, an encoded dump), at each of
// the three offsets a byte string can start at. Base64 forms shorter than
// minBase64Form are left out. Redact masks each form also as it appears
// inside a JSON string, once or twice encoded.
func Forms(secret string) []string {
	if secret == "" {
		return nil
	}
	out := []string{secret, url.QueryEscape(secret), url.PathEscape(secret)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		raw := enc.WithPadding(base64.NoPadding)
		encoded := []string{enc.EncodeToString([]byte(secret)), raw.EncodeToString([]byte(secret))}
		for shift := range 3 {
			encoded = append(encoded, embeddedBase64(raw, secret, shift))
		}
		for _, f := range encoded {
			if len(f) >= minBase64Form {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// embeddedBase64 is the base64 of secret as it shows inside a longer base64
// text that holds shift bytes before it (modulo 3): the characters that
// carry only the secret's bits. The first ones also carry bits of the bytes
// before it (none at shift 0, two characters at 1, three at 2), and the
// last one, unless the secret ends a group of three bytes, bits of the byte
// after it.
func embeddedBase64(enc *base64.Encoding, secret string, shift int) string {
	e := enc.EncodeToString(append(make([]byte, shift), secret...))
	start, end := [3]int{0, 2, 3}[shift], len(e)
	if (shift+len(secret))%3 != 0 {
		end--
	}
	return e[min(start, end):end]
}

// addSecret adds every form of v (Forms), masked as ***.
func (s *Secrets) addSecret(v string) {
	for _, f := range Forms(v) {
		s.add(f, Redacted)
	}
}

// add adds text and the forms it takes inside a JSON string, once and
// twice encoded (a JSON text quoted in a JSON string), all replaced by mask.
func (s *Secrets) add(text, mask string) {
	if text == "" {
		return
	}
	s.forms = append(s.forms, secretForm{text, mask})
	for range 2 {
		quoted, err := json.Marshal(text)
		if err != nil {
			return
		}
		text = string(quoted[1 : len(quoted)-1])
		// Go's escapes, and those other encoders add: "\/" (some
		// JavaScript), "\u00e9" for every non-ASCII character (Python's
		// ensure_ascii), or both (PHP). sorted drops the ones that repeat.
		slashed := strings.ReplaceAll(text, "/", `\/`)
		for _, f := range []string{text, slashed, asciiEscaped(text), asciiEscaped(slashed)} {
			s.forms = append(s.forms, secretForm{f, mask})
		}
	}
}

// asciiEscaped is text with every non-ASCII character written as a JSON
// \u escape (a surrogate pair past U+FFFF), as an ensure_ascii encoder does.
func asciiEscaped(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// addBare adds a credential of a URL on its own, in all its forms, when it
// is long enough.
func (s *Secrets) addBare(text string) {
	if len(text) >= minBareSecret {
		s.addSecret(text)
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

// Redact returns text with the value of every Authorization header
// masked (`Authorization: ***` as text, `"Authorization":"***"` as a JSON
// member, `["***"]` for an array) and the userinfo of every URL
// (http://***@host), then every form of every secret of s, then what a
// clip (Clip) left of a secret before its "…". A text already redacted is
// left as it is.
func (s Secrets) Redact(text string) string {
	// The patterns run only on a text that can hold what they match: most
	// lines hold neither an Authorization header nor a URL's userinfo, and
	// the regular expressions cost far more than these scans.
	if mayHoldAuthorization(text) {
		text = maskAuthorization(text)
	}
	if strings.Contains(text, "://") && strings.Contains(text, "@") {
		text = userinfo.ReplaceAllString(text, "${1}"+Redacted+"@")
	}
	for _, f := range s.forms {
		text = strings.ReplaceAll(text, f.text, f.mask)
	}
	return s.maskCutFragments(text)
}

// mayHoldAuthorization reports whether text holds "authorization" in any
// case, without copying it.
func mayHoldAuthorization(text string) bool {
	const word = "authorization"
	for i := strings.IndexAny(text, "aA"); i >= 0 && len(text)-i >= len(word); {
		if strings.EqualFold(text[i:i+len(word)], word) {
			return true
		}
		next := strings.IndexAny(text[i+1:], "aA")
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// maskAuthorization masks the values of Authorization headers in text, as
// JSON members and as header lines.
func maskAuthorization(text string) string {
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
	return text
}

// maskCutFragments masks, before each ClipMark in text, the start of a
// secret's form that a clip cut short (at least minCutFragment bytes of
// it): the longest such start of any form.
func (s Secrets) maskCutFragments(text string) string {
	if len(s.forms) == 0 || !strings.Contains(text, ClipMark) {
		return text
	}
	parts := strings.Split(text, ClipMark)
	for i, head := range parts[:len(parts)-1] {
		cut, mask := 0, ""
		for _, f := range s.forms {
			if k := cutFragment(head, f.text); k > cut {
				cut, mask = k, f.mask
			}
		}
		parts[i] = head[:len(head)-cut] + mask
	}
	return strings.Join(parts, ClipMark)
}

// cutFragment is the length of the longest proper start of form, at least
// minCutFragment long, that head ends with; 0 when there is none.
func cutFragment(head, form string) int {
	for k := min(len(form)-1, len(head)); k >= minCutFragment; k-- {
		if strings.HasSuffix(head, form[:k]) {
			return k
		}
	}
	return 0
}

// Redact returns s with every occurrence of each secret (in each of its
// Forms, and as it appears inside a JSON string) replaced by ***, and the
// Authorization headers and URL userinfo masked as Secrets.Redact does.
// Longer secrets are replaced first, so a secret that contains another
// leaves no fragment behind. Empty secrets are ignored. Redact is
// idempotent.
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
