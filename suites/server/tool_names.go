package server

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Tool names: TL-04.

// toolName is what TL-04 allows a tool name to be.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

var _ = serverCheck(check.Descriptor{
	ID:          "server.tools.names-valid",
	Title:       "every tool name is 1–128 characters of A–Z a–z 0–9 _ - . and unique",
	Requirement: "Tool names are 1–128 characters, case-sensitive, of A–Z, a–z, 0–9, _, - and . only (no spaces, no commas), and unique within the server.",
	Rules:       []string{"TL-04"},
	KilledBy:    []mutant.Name{mutant.ToolNameWithSpace},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		names := p.toolNames()
		if len(names) == 0 {
			c.Unimplemented(fmt.Sprintf("tools/list offers no tool (%s): the rule is about tool names; offer at least one tool", p.transport))
		}
		seen := map[string]bool{}
		var bad, twice []string
		for _, n := range names {
			if !toolName.MatchString(n) {
				bad = append(bad, fmt.Sprintf("%q", n))
			}
			if seen[n] {
				twice = append(twice, fmt.Sprintf("%q", n))
			}
			seen[n] = true
		}
		c.Require(len(bad) == 0, fmt.Sprintf("every name of the %d tools matches [A-Za-z0-9_.-]{1,128} (%s)", len(names), p.transport),
			"%s", strings.Join(bad, ", "))
		c.Require(len(twice) == 0, fmt.Sprintf("no tool name is listed twice (%s)", p.transport), "listed again: %s", strings.Join(twice, ", "))
	})
})
