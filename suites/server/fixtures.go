package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/suites/run"
)

// officialFixtures are the tool names that show each behaviour in the
// official conformance suite's fixtures (and mcpconform's own), used when
// the fixtures file does not map the role.
var officialFixtures = map[string][]string{
	"progress":    {"test_tool_with_progress", "progress"},
	"logging":     {"test_tool_with_logging"},
	"sampling":    {"test_sampling"},
	"elicitation": {"test_elicitation"},
	"roots":       {"roots"},
	"slow":        {"slow"},
	"failing":     {"test_error_handling"},
}

// fixture finds the tool that shows role: from the fixtures file, else by
// an official fixture name the server offers, else the check is
// UNIMPLEMENTED with a message saying how to map one. A server is never
// failed for lacking a fixture.
func fixture(c *run.C, p *peer, role string) run.Fixture {
	if f, ok := c.Config().Fixtures[role]; ok {
		return f
	}
	offered := p.toolNames()
	for _, name := range officialFixtures[role] {
		if slices.Contains(offered, name) {
			return run.Fixture{Tool: name, Arguments: map[string]any{}}
		}
	}
	sort.Strings(offered)
	c.Unimplemented(fmt.Sprintf("no tool for the %q behaviour: the server offers none of %s (it offers: %s); map one in a --fixtures file, e.g. %s: {tool: NAME, arguments: {}}",
		role, strings.Join(officialFixtures[role], ", "), strings.Join(offered, ", "), role))
	return run.Fixture{}
}

// toolNames lists the server's tools (every page).
func (p *peer) toolNames() []string {
	var names []string
	for _, raw := range listAll(p.c, p, "tools/list", "tools") {
		var t struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(raw, &t)
		names = append(names, t.Name)
	}
	return names
}

// callParams are tools/call params for f, with meta (when given) as _meta.
func callParams(f run.Fixture, meta map[string]any) map[string]any {
	args := f.Arguments
	if args == nil {
		args = map[string]any{}
	}
	params := map[string]any{"name": f.Tool, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	return params
}
