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
var officialFixtures = map[string][]run.Fixture{
	"progress":    {{Tool: "test_tool_with_progress"}, {Tool: "progress", Arguments: map[string]any{"steps": 3}}},
	"logging":     {{Tool: "test_tool_with_logging"}},
	"sampling":    {{Tool: "test_sampling", Arguments: map[string]any{"prompt": "mcpconform probe"}}},
	"elicitation": {{Tool: "test_elicitation", Arguments: map[string]any{"message": "mcpconform probe"}}},
	"roots":       {{Tool: "roots"}},
	"slow":        {{Tool: "slow"}},
	"failing":     {{Tool: "test_error_handling"}},
}

// fixture finds the tool that shows role: from the fixtures file, else by
// an official fixture name the server offers, else the check is
// UNIMPLEMENTED with a message saying how to map one. A server is never
// failed for lacking a fixture.
func fixture(c *run.C, p *peer, role string) run.Fixture { return fixtures(c, p, role)[0] }

// fixtures is fixture, with every offered tool that shows role.
func fixtures(c *run.C, p *peer, role string) []run.Fixture {
	found, offered := offeredFixtures(c, p, role)
	if len(found) > 0 {
		return found
	}
	var names []string
	for _, f := range officialFixtures[role] {
		names = append(names, f.Tool)
	}
	sort.Strings(offered)
	c.Unimplemented(fmt.Sprintf("no tool for the %q behaviour: the server offers none of %s (it offers: %s); map one in a --fixtures file, e.g. %s: {tool: NAME, arguments: {}}",
		role, strings.Join(names, ", "), strings.Join(offered, ", "), role))
	return nil
}

// offeredFixtures are the tools that show role: the fixtures file's, else
// the official fixtures the server offers; none is not a failure. offered
// lists the server's tools when they were asked for.
func offeredFixtures(c *run.C, p *peer, role string) (found []run.Fixture, offered []string) {
	if f, ok := c.Options().Fixtures[role]; ok {
		return []run.Fixture{f}, nil
	}
	offered = p.toolNames()
	for _, f := range officialFixtures[role] {
		if slices.Contains(offered, f.Tool) {
			found = append(found, f)
		}
	}
	return found, offered
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
