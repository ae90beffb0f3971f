package transcript

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// Redacted replaces every credential Redact removes.
const Redacted = "[REDACTED]"

var (
	// authJSON is an Authorization header recorded as a JSON member.
	authJSON = regexp.MustCompile(`(?i)"((?:proxy-)?authorization)"\s*:\s*"(?:[^"\\]|\\.)*"`)
	// authHeader is an Authorization header as text. The value runs to the end
	// of the line, and stops at a quote or a backslash so that a header
	// quoted inside a JSON string leaves the JSON valid.
	authHeader = regexp.MustCompile(`(?i)\b((?:proxy-)?authorization)\s*:[^\r\n"\\]*`)
)

// Redact returns s with every occurrence of each secret (as written and as
// it appears inside a JSON string) replaced by [REDACTED], and the value of
// every Authorization header masked: `Authorization: [REDACTED]` as text,
// `"Authorization":"[REDACTED]"` as a JSON member. Longer secrets are
// replaced first, so a secret that contains another leaves no fragment
// behind. Empty secrets are ignored. Redact is idempotent.
func Redact(s string, secrets ...string) string {
	forms := make([]string, 0, 2*len(secrets))
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		forms = append(forms, sec)
		if quoted, err := json.Marshal(sec); err == nil {
			if esc := string(quoted[1 : len(quoted)-1]); esc != sec {
				forms = append(forms, esc)
			}
		}
	}
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, Redacted)
	}
	s = authJSON.ReplaceAllString(s, `"$1":"`+Redacted+`"`)
	return authHeader.ReplaceAllStringFunc(s, func(m string) string {
		name := authHeader.FindStringSubmatch(m)[1]
		if strings.EqualFold(name, "authorization") {
			name = "Authorization"
		}
		return name + ": " + Redacted
	})
}
