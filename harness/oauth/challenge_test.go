package oauth

import (
	"net/http"
	"testing"
)

func TestParseChallenge(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string // WWW-Authenticate header values
		want   Challenge
		ok     bool
	}{
		{"quoted parameters", []string{`Bearer resource_metadata="https://rs.example/.well-known/oauth-protected-resource", scope="mcp:read mcp:tools", error="insufficient_scope"`},
			Challenge{ResourceMetadata: "https://rs.example/.well-known/oauth-protected-resource", Scope: "mcp:read mcp:tools", Error: "insufficient_scope"}, true},
		{"token values, URL unquoted", []string{`Bearer resource_metadata=https://rs.example/prm, scope=mcp:read, error=invalid_token`},
			Challenge{ResourceMetadata: "https://rs.example/prm", Scope: "mcp:read", Error: "invalid_token"}, true},
		{"names compare case-insensitively", []string{`bearer Resource_Metadata="u", SCOPE="s"`},
			Challenge{ResourceMetadata: "u", Scope: "s"}, true},
		{"escapes and commas inside a quoted string", []string{`Bearer error_description="say \"no\", scope=x", scope="s\"t", error="invalid_token"`},
			Challenge{Scope: `s"t`, Error: "invalid_token"}, true},
		{"no space after commas, spaces around =", []string{`Bearer realm="r",scope = "a b",error=invalid_token`},
			Challenge{Scope: "a b", Error: "invalid_token"}, true},
		{"Bearer after another challenge", []string{`Basic realm="x", scope="not-bearer", Bearer scope="s", error="invalid_token"`},
			Challenge{Scope: "s", Error: "invalid_token"}, true},
		{"Bearer before another challenge", []string{`Bearer scope="s", DPoP algs="ES256", error="use_dpop_nonce"`},
			Challenge{Scope: "s"}, true},
		{"a token68 challenge first", []string{`Negotiate YIIB==, Bearer resource_metadata="u"`},
			Challenge{ResourceMetadata: "u"}, true},
		{"several header fields", []string{`Basic realm="x"`, `Bearer scope="s"`},
			Challenge{Scope: "s"}, true},
		{"empty values", []string{`Bearer scope="", error=, resource_metadata="u"`},
			Challenge{ResourceMetadata: "u"}, true},
		{"a Bearer challenge without parameters", []string{`Bearer`}, Challenge{}, true},
		{"no Bearer challenge", []string{`Basic realm="x", charset="UTF-8"`}, Challenge{}, false},
		{"no header", nil, Challenge{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.values {
				h.Add("WWW-Authenticate", v)
			}
			got, ok := ParseChallenge(h)
			if got != tc.want || ok != tc.ok {
				t.Errorf("ParseChallenge(%q) = %+v, %v; want %+v, %v", tc.values, got, ok, tc.want, tc.ok)
			}
		})
	}
}
