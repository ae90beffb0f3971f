package transcript

import (
	"encoding/json"
	"errors"
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
