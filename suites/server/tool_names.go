package server

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Tool names: TL-04. That they are unique is server.pagination.walk-complete's.

// toolName is what TL-04 allows a tool name to be.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

var _ = serverCheck(check.Descriptor{
	ID:          "server.tools.names-valid",
	Title:       "every tool name is 1–128 characters of A–Z a–z 0–9 _ - .",
	Requirement: "Tool names are 1–128 characters, case-sensitive, of A–Z, a–z, 0–9, _, - and . only (no spaces, no commas).",
	Rules:       []string{"TL-04", "LM-05"},
	KilledBy:    []mutant.Name{mutant.ToolNameWithSpace},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initializeDeclaring("tools")
		if r.ProtocolVersion < v1125 {
			// TL-04 binds from 2025-11-25 on.
			c.NotApplicable(fmt.Sprintf("the server negotiated %s (%s); tool names are constrained from 2025-11-25 on (TL-04)", r.ProtocolVersion, p.transport))
		}
		tools := p.tools()
		if len(tools) == 0 {
			c.Unimplemented(fmt.Sprintf("tools/list offers no tool (%s): the rule is about tool names; offer at least one tool", p.transport))
		}
		var bad []string
		for _, t := range tools {
			if !toolName.MatchString(t.Name) {
				bad = append(bad, fmt.Sprintf("%q", t.Name))
			}
		}
		c.Require(len(bad) == 0, fmt.Sprintf("every name of the %d tools matches [A-Za-z0-9_.-]{1,128} (%s, %s)", len(tools), r.ProtocolVersion, p.transport),
			"%s", strings.Join(bad, ", "))
	})
})
