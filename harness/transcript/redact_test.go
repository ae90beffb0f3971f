package transcript

import (
	"encoding/json"
	"testing"
)

func TestRedact(t *testing.T) {
	cases := []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"secret everywhere", "tok=abc123; again abc123", []string{"abc123"}, "tok=[REDACTED]; again [REDACTED]"},
		{"longer secret first", "key=abcdef", []string{"abc", "abcdef"}, "key=[REDACTED]"},
		{"empty secret ignored", "nothing here", []string{""}, "nothing here"},
		{"header", "Authorization: Bearer xyz", nil, "Authorization: [REDACTED]"},
		{"header any case", "POST /mcp\r\nauthorization:Basic dXNlcg==\r\nAccept: */*", nil, "POST /mcp\r\nAuthorization: [REDACTED]\r\nAccept: */*"},
		{"proxy header", "Proxy-Authorization: Basic x", nil, "Proxy-Authorization: [REDACTED]"},
		{"json member", `{"Authorization":"Bearer \"q\" x","a":1}`, nil, `{"Authorization":"[REDACTED]","a":1}`},
		{"header inside json string", `{"text":"Authorization: Bearer x","n":1}`, nil, `{"text":"Authorization: [REDACTED]","n":1}`},
		{"json-escaped secret", `{"k":"a\"b"}`, []string{`a"b`}, `{"k":"[REDACTED]"}`},
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
