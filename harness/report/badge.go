package report

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
)

// BadgeSVG draws the badge of a run, flat and shields-style: "mcpconform"
// beside "spec 38/38 MUST · hardened · server http+stdio" (BadgeText), green
// when no check failed the run and it was not interrupted, red otherwise.
// The widths follow the text at about 6.5 px a character of 11 px Verdana.
func BadgeSVG(ix *Index) []byte {
	const label = "mcpconform"
	msg, ok := BadgeText(ix)
	color := "#4c1"
	if !ok {
		color = "#e05d44"
	}
	w := func(s string) int { return 10 + len([]rune(s))*13/2 }
	lw, mw := w(label), w(msg)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">`, lw+mw, label, html.EscapeString(msg))
	fmt.Fprintf(&b, `<title>%s: %s</title>`, label, html.EscapeString(msg))
	b.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(&b, `<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`, lw+mw)
	fmt.Fprintf(&b, `<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>`, lw, lw, mw, color, lw+mw)
	b.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">`)
	fmt.Fprintf(&b, `<text x="%d" y="14">%s</text><text x="%d" y="14">%s</text></g></svg>`, lw/2, label, lw+mw/2, html.EscapeString(msg))
	b.WriteString("\n")
	return []byte(b.String())
}

// BadgeText is the badge's right side, "spec 38/38 MUST · hardened · server
// http+stdio" (the spec MUST score, the profile, the roles and transports
// that ran), and whether it is green: the run passed (Index.Verdict: no
// check failed it, it was not interrupted, and some check was judged).
func BadgeText(ix *Index) (string, bool) {
	parts := []string{fmt.Sprintf("spec %d/%d MUST", ix.Scores.SpecMust.Pass, ix.Scores.SpecMust.Total)}
	if ix.Profile != "" {
		parts = append(parts, string(ix.Profile))
	}
	if s := ix.Scope(); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, " · "), ix.Verdict() == VerdictPassed
}

// Scope names the roles and the transports that ran, "client+server
// http+stdio": those of the checks neither SKIPPED nor N/A, a check of
// transport any counting the transports it was judged on; "" when no check
// ran.
func (ix *Index) Scope() string {
	var roles, transports []string
	for _, c := range ix.Checks {
		if c.Outcome == check.Skipped || c.Outcome == check.NotApplicable {
			continue
		}
		if r := string(c.Role); !slices.Contains(roles, r) {
			roles = append(roles, r)
		}
		for _, t := range c.Seen() {
			if t != check.Any && !slices.Contains(transports, string(t)) {
				transports = append(transports, string(t))
			}
		}
	}
	slices.Sort(roles)
	slices.Sort(transports)
	return strings.TrimSpace(strings.Join(roles, "+") + " " + strings.Join(transports, "+"))
}
