package transcript

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	cases := []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"secret everywhere", "tok=abc123; again abc123", []string{"abc123"}, "tok=***; again ***"},
		{"longer secret first", "key=abcdef", []string{"abc", "abcdef"}, "key=***"},
		{"empty secret ignored", "nothing here", []string{""}, "nothing here"},
		{"header", "Authorization: Bearer xyz", nil, "Authorization: ***"},
		{"header any case", "POST /mcp\r\nauthorization:Basic dXNlcg==\r\nAccept: */*", nil, "POST /mcp\r\nAuthorization: ***\r\nAccept: */*"},
		{"proxy header", "Proxy-Authorization: Basic x", nil, "Proxy-Authorization: ***"},
		{"json member", `{"Authorization":"Bearer \"q\" x","a":1}`, nil, `{"Authorization":"***","a":1}`},
		{"header inside json string", `{"text":"Authorization: Bearer x","n":1}`, nil, `{"text":"Authorization: ***","n":1}`},
		{"json-escaped secret", `{"k":"a\"b"}`, []string{`a"b`}, `{"k":"***"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Redact(c.in, c.secrets...)
			if got != c.want {
				t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
			}
			if again := Redact(got, c.secrets...); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

func TestRedactKeepsJSONValid(t *testing.T) {
	in := `{"a":"Authorization: Bearer tok\\","b":"Authorization: x\"y"}`
	out := Redact(in)
	if !json.Valid([]byte(out)) {
		t.Fatalf("Redact broke the JSON: %s", out)
	}
}

func TestRedactMasksAuthorizationArraysAndURLUserinfo(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"Authorization":["Bearer x","Basic y"],"a":1}`, `{"Authorization":["***"],"a":1}`},
		{`{"header":{"authorization": [ "Bearer \"x\"" ]}}`, `{"header":{"authorization":["***"]}}`},
		{`{"Authorization":[]}`, `{"Authorization":["***"]}`},
		{`Post "http://u:***@127.0.0.1:1/mcp": refused`, `Post "http://***@127.0.0.1:1/mcp": refused`},
		{`{"url":"https://user:p%40ss@example.com/x"}`, `{"url":"https://***@example.com/x"}`},
		{"see http://example.com/@user and mailto:a@b", "see http://example.com/@user and mailto:a@b"},
	} {
		got := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
		if Redact(got) != got {
			t.Errorf("Redact(%q) is not idempotent: %q", c.in, Redact(got))
		}
		if strings.HasPrefix(c.in, "{") && !json.Valid([]byte(got)) {
			t.Errorf("Redact(%q) broke the JSON: %q", c.in, got)
		}
	}
}

func TestRedactURLMasksUserinfoAndQueryValues(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://u:SECRETPW@127.0.0.1:1/mcp?token=SECRETQ", "http://***@127.0.0.1:1/mcp?token=***"},
		{"https://only-user@h/mcp", "https://***@h/mcp"},
		{"http://h/mcp?a=1&flag&b=&c=x%20y#frag", "http://h/mcp?a=***&flag&b=&c=***#frag"},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"},
		{"http://u:***@h/p", "http://***@h/p"},
		{"http://[::1]:%zz/", Redacted},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSecretsWithURLMaskEveryFormOfItsCredentials(t *testing.T) {
	s := Secrets{}.WithURL("http://u:SECRET%40PW@127.0.0.1:1/mcp?token=SECRET%2BQ&v=1").With("PLANTED")
	for _, text := range []string{
		`Post "http://u:***@127.0.0.1:1/mcp?token=SECRET%2BQ&v=1": dial tcp: refused`,
		`{"url":"http://u:SECRET%40PW@127.0.0.1:1/mcp?token=SECRET%2BQ\u0026v=1"}`,
		`the server said: bad password SECRET@PW, bad token SECRET+Q, PLANTED`,
		`token=SECRET+Q`,
	} {
		got := s.Redact(text)
		for _, leak := range []string{"SECRET", "PLANTED"} {
			if strings.Contains(got, leak) {
				t.Errorf("Redact(%q) = %q: %s survived", text, got, leak)
			}
		}
		if s.Redact(got) != got {
			t.Errorf("Redact(%q) is not idempotent: %q then %q", text, got, s.Redact(got))
		}
	}
	// A token given as the user name is a secret wherever it appears.
	if got := (Secrets{}).WithURL("https://TOKENVALUE42@example.test/mcp").Redact("the server echoed TOKENVALUE42"); strings.Contains(got, "TOKENVALUE42") {
		t.Errorf("a user-name token survived: %q", got)
	}
	// A short value is masked after its key only, never as bare text.
	if got := s.Redact("v=1 and 1 more"); got != "v=*** and 1 more" {
		t.Errorf("short query value: %q", got)
	}
	if got := s.Redact(`Post "http://u:***@127.0.0.1:1/mcp?token=SECRET%2BQ&v=1": refused`); got != `Post "http://***@127.0.0.1:1/mcp?token=***&v=***": refused` {
		t.Errorf("net/http error: %q", got)
	}
}

func TestRedactErrorShowsTheURLRedacted(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "http://u:***@127.0.0.1:1/mcp?token=SECRETQ", Err: errors.New("connection refused")}
	got := RedactError(err)
	if want := `Post "http://***@127.0.0.1:1/mcp?token=***": connection refused`; got.Error() != want {
		t.Errorf("RedactError = %q, want %q", got, want)
	}
	if !errors.Is(got, err.Err) {
		t.Error("the redacted error lost its cause")
	}
	plain := errors.New("x")
	if RedactError(plain) != plain {
		t.Error("an error that is no *url.Error changed")
	}
}

// TestEveryDerivedFormIsMasked: a secret is masked in each form a server
// or a client may echo it in, alone or inside a longer text: URL-encoded,
// base64 in either alphabet with or without padding, inside a longer
// base64 text at any offset, and inside a JSON string once or twice
// encoded.
func TestEveryDerivedFormIsMasked(t *testing.T) {
	const secret = `PL/ANT+ED "s3cr?t"&x`
	s := Secrets{}.With(secret)
	b := []byte(secret)
	quoted := func(v string) string { q, _ := json.Marshal(v); return string(q[1 : len(q)-1]) }
	forms := map[string]string{
		"as written":         secret,
		"query-escaped":      url.QueryEscape(secret),
		"path-escaped":       url.PathEscape(secret),
		"base64":             base64.StdEncoding.EncodeToString(b),
		"base64 raw":         base64.RawStdEncoding.EncodeToString(b),
		"base64 URL":         base64.URLEncoding.EncodeToString(b),
		"base64 URL raw":     base64.RawURLEncoding.EncodeToString(b),
		"JSON":               quoted(secret),
		"JSON twice":         quoted(quoted(secret)),
		"query-escaped JSON": quoted(url.QueryEscape(secret)),
	}
	for prefix := range 3 {
		inner := base64.StdEncoding.EncodeToString(append([]byte("Bearer "[:4+prefix]), append(b, " tail"...)...))
		forms[fmt.Sprintf("inside base64, %d bytes before", 4+prefix)] = inner
		forms[fmt.Sprintf("inside URL base64, %d bytes before", 4+prefix)] = base64.URLEncoding.EncodeToString(append([]byte("Bearer "[:4+prefix]), append(b, " tail"...)...))
	}
	for name, form := range forms {
		got := s.Redact("echo: " + form + " end")
		if !strings.Contains(got, Redacted) {
			t.Errorf("%s: %q not masked: %q", name, form, got)
		}
		// What is left of a base64 text around the secret holds only the
		// bits of its neighbours.
		for _, f := range Forms(secret) {
			if strings.Contains(got, f) {
				t.Errorf("%s: form %q survived in %q", name, f, got)
			}
		}
		if s.Redact(got) != got {
			t.Errorf("%s: not idempotent: %q then %q", name, got, s.Redact(got))
		}
	}
	// A secret too short for its base64 to be told from any few letters
	// is masked as written and escaped, not as base64.
	for _, f := range Forms("ab") {
		if f != "ab" {
			t.Errorf("Forms(ab) holds %q", f)
		}
	}
}

// TestURLCredentialsAreMaskedInTheirBasicForm is the case: Go's
// client sends --url http://user:s3cret@host as Authorization: Basic
// dXNlcjpzM2NyZXQ=, and a user without a password as base64 of user:.
func TestURLCredentialsAreMaskedInTheirBasicForm(t *testing.T) {
	for _, c := range []struct{ url, basic string }{
		{"http://user:s3cret@127.0.0.1:1/mcp", "dXNlcjpzM2NyZXQ="},
		{"http://TOKENVALUE42@127.0.0.1:1/mcp", base64.StdEncoding.EncodeToString([]byte("TOKENVALUE42:"))},
		{"http://me:p%40ss%20word@h/mcp", base64.StdEncoding.EncodeToString([]byte("me:p@ss word"))},
	} {
		// What Go's client sends for the URL's userinfo (net/http's send).
		req, err := http.NewRequest(http.MethodGet, c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		pw, _ := req.URL.User.Password()
		req.SetBasicAuth(req.URL.User.Username(), pw)
		if sent := strings.TrimPrefix(req.Header.Get("Authorization"), "Basic "); sent != c.basic {
			t.Fatalf("%s: Go sends %q, the test expects %q", c.url, sent, c.basic)
		}
		s := Secrets{}.WithURL(c.url)
		for _, echo := range []string{
			`{"echoed":"` + c.basic + `"}`,
			"x-echo: Basic " + c.basic,
			"credential=" + url.QueryEscape(c.basic),
			`[["authorization","Basic ` + c.basic + `"]]`,
		} {
			if got := s.Redact(echo); strings.Contains(got, strings.TrimRight(c.basic, "=")) {
				t.Errorf("%s: the Basic credential survived in %q", c.url, got)
			}
		}
	}
}

// TestRedactMasksHeadersBeforeSecrets: a secret that is a header's name
// (an environment value such as Authorization) cannot hide the header's
// value from its mask.
func TestRedactMasksHeadersBeforeSecrets(t *testing.T) {
	s := Secrets{}.With("Authorization")
	for _, in := range []string{"Authorization: Bearer tok-planted", `{"Authorization":"Bearer tok-planted"}`} {
		if got := s.Redact(in); strings.Contains(got, "tok-planted") {
			t.Errorf("Redact(%q) = %q", in, got)
		}
	}
}

// TestRedactMasksWhatAClipLeftOfASecret: a text clipped inside a secret
// (Clip, or any excerpt ending in …) shows no start of it.
func TestRedactMasksWhatAClipLeftOfASecret(t *testing.T) {
	const secret = "PLANTEDSECRET"
	s := Secrets{}.With(secret)
	text := "the server said: " + secret + " and more"
	for cut := len("the server said: ") + minCutFragment; cut < len("the server said: ")+len(secret); cut++ {
		got := s.Redact(Clip(text, cut))
		if strings.Contains(got, secret[:minCutFragment]) || !strings.Contains(got, Redacted+ClipMark) {
			t.Errorf("clipped at %d: %q", cut, got)
		}
	}
	if got := s.Redact("versions… and PL… stay"); got != "versions… and PL… stay" {
		t.Errorf("a fragment shorter than %d or no fragment was masked: %q", minCutFragment, got)
	}
}

// TestRedactMasksTheLongestCutFragment: of two secrets whose starts both
// end a clipped text, the longer start is masked whole.
func TestRedactMasksTheLongestCutFragment(t *testing.T) {
	s := Secrets{}.With("sho-a-very-long-secret-value", "abcdefXYZ-short")
	if got := s.Redact(Clip("see abcdefXYZ-short and more", len("see abcdefXYZ-sho"))); !strings.HasPrefix(got, "see ***…") {
		t.Errorf("got %q", got)
	}
}

// TestTextFrameExcerptMasksSecrets: the excerpt of a text frame shows its
// bytes, and a secret in them, even one the excerpt cuts, is masked by the
// check's Redact.
func TestTextFrameExcerptMasksSecrets(t *testing.T) {
	const secret = "PLANTEDSECRET"
	line := strings.Repeat("x", ExcerptBytes-5) + secret + " not json"
	got := Secrets{}.With(secret).Redact(Normalise([]Entry{{ClientToServer, line}})[0])
	want := fmt.Sprintf("c2s text (%d bytes): %s***… (%d bytes cut)", len(line), strings.Repeat("x", ExcerptBytes-5), len(line)-ExcerptBytes)
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestRedactMasksOtherEncodersEscapes: a secret echoed by an encoder that
// escapes "/" (PHP) or every non-ASCII character (Python's ensure_ascii)
// is masked too.
func TestRedactMasksOtherEncodersEscapes(t *testing.T) {
	s := Secrets{}.With("pa/ss-é-wörd-😀")
	for _, echoed := range []string{
		`{"error":"bad token pa\/ss-é-wörd-😀"}`,
		`{"error":"bad token pa/ss-\u00e9-w\u00f6rd-\ud83d\ude00"}`,
		`{"error":"bad token pa\/ss-\u00e9-w\u00f6rd-\ud83d\ude00"}`,
	} {
		if got := s.Redact(echoed); strings.Contains(got, "ss-") {
			t.Errorf("%s: redacted to %s", echoed, got)
		}
	}
}
