package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/usage"
)

var badgeHelp = usage.Help{
	Command:  "mcpconform badge",
	Synopsis: []string{"REPORT.json [-o FILE]"},
	About: `
Writes an SVG badge (shields style) from a JSON report of mcpconform client,
server or the default run: the spec MUST checks passed, the profile, and the
roles and transports that ran. Green when no spec check failed, red
otherwise. Without -o the SVG goes to standard output.`,
	Examples: []string{"mcpconform server --json r.json -- ./my-server && mcpconform badge r.json -o badge.svg"},
}

func badgeCommand(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("badge")
	out := fs.String("o", "", "write the SVG to `FILE`")
	rest, err := badgeHelp.ParseInterspersed(fs, args, stdout)
	if err != nil {
		return exitFor(err, stderr)
	}
	if len(rest) != 1 {
		return exitFor(errUsage{errors.New("badge: name one JSON report, e.g. mcpconform badge r.json -o badge.svg")}, stderr)
	}
	b, err := report.ReadInput("badge: the JSON report", rest[0], 64<<20)
	if err != nil {
		return exitFor(errUsage{err}, stderr)
	}
	var ix report.Index
	if err := json.Unmarshal(b, &ix); err != nil || ix.Tool.Name == "" {
		return exitFor(errUsage{fmt.Errorf("badge: %s is not a JSON report of mcpconform (%v); write one with --json", rest[0], err)}, stderr)
	}
	svg := badgeSVG(&ix)
	if *out == "" {
		_, err = stdout.Write(svg)
	} else {
		err = report.WriteFileAtomic(*out, svg)
	}
	if err != nil {
		return exitFor(err, stderr)
	}
	return 0
}

// badgeText is the badge's right side: "spec 38/38 MUST · hardened ·
// server stdio+http", and whether it is green (no spec check failed).
func badgeText(ix *report.Index) (string, bool) {
	var roles, transports []string
	specFailed := false
	for _, c := range ix.Checks {
		if c.Outcome == check.Skipped || c.Outcome == check.NotApplicable {
			continue
		}
		if r := string(c.Role); !slices.Contains(roles, r) {
			roles = append(roles, r)
		}
		if t := string(c.Transport); t != string(check.Any) && !slices.Contains(transports, t) {
			transports = append(transports, t)
		}
		specFailed = specFailed || c.Outcome == check.Fail || c.Outcome == check.Stale || c.Outcome == check.Error
	}
	slices.Sort(roles)
	slices.Sort(transports)
	parts := []string{fmt.Sprintf("spec %d/%d MUST", ix.Scores.SpecMust.Pass, ix.Scores.SpecMust.Total)}
	if ix.Profile != "" {
		parts = append(parts, string(ix.Profile))
	}
	if len(roles) > 0 {
		parts = append(parts, strings.TrimSpace(strings.Join(roles, "+")+" "+strings.Join(transports, "+")))
	}
	return strings.Join(parts, " · "), !specFailed && !ix.Interrupted
}

// badgeSVG draws a flat shields-style badge; the widths follow the text
// at about 6.5 px a character of 11 px Verdana.
func badgeSVG(ix *report.Index) []byte {
	const label = "mcpconform"
	msg, ok := badgeText(ix)
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
