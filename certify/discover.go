package certify

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// printDiscovery prints, on the verbose console of a run that certifies a
// server, what its fixtures discovery learnt: which tool serves which
// behaviour and how it was found, and the tools left alone a behaviour's
// checks would call.
func printDiscovery(w io.Writer, roles []check.Role, verbose bool) {
	if !verbose || !slices.Contains(roles, check.Server) {
		return
	}
	for _, line := range DiscoveryLines(run.DiscoverFixtures()) {
		fmt.Fprintln(w, "mcpconform: fixtures: "+line)
	}
}

// DiscoveryLines says what a fixtures discovery learnt, a line per
// behaviour it found a tool for or has a hint of, and a line for the tools
// it called (or why it called none).
func DiscoveryLines(d run.Discovery) []string {
	var lines []string
	for _, f := range d.Found {
		lines = append(lines, fmt.Sprintf("%s: %s (%s)", f.Role, f.Fixture.Tool, f.How))
	}
	for _, role := range run.DiscoverableRoles {
		if near := d.NearFor(role); near != "" {
			lines = append(lines, fmt.Sprintf("%s: shown by %s, without a result: map it in a fixtures file with other arguments", role, near))
		}
		if hints := d.HintsFor(role); len(hints) > 0 {
			lines = append(lines, fmt.Sprintf("%s: no tool that may be called showed it; its checks would call a tool left alone: %s", role, toolpolicy.Grouped(hints)))
		}
	}
	switch {
	case d.Why != "":
		lines = append(lines, "no tool was called to find the others: "+d.Why)
	case len(d.Called) > 0:
		line := fmt.Sprintf("found by calling %d tool(s) once each over %s: %s", len(d.Called), d.Transport, strings.Join(d.Called, ", "))
		if len(d.Unanswered) > 0 {
			line += fmt.Sprintf("; unanswered within --patience: %s", strings.Join(d.Unanswered, ", "))
		}
		if len(d.Over) > 0 {
			line += fmt.Sprintf("; past the tool budget, not called: %s", strings.Join(d.Over, ", "))
		}
		lines = append(lines, line)
	}
	return lines
}
