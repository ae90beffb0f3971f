package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// officialFixtures are the tool names that show each behaviour in the
// official conformance suite's fixtures (and mcpconform's own), used when
// the fixtures file does not map the role.
var officialFixtures = map[string][]run.Fixture{
	"progress":        {{Tool: "test_tool_with_progress"}, {Tool: "progress", Arguments: map[string]any{"steps": 3}}},
	"logging":         {{Tool: "test_tool_with_logging"}},
	"sampling":        {{Tool: "test_sampling", Arguments: map[string]any{"prompt": "mcpconform probe"}}},
	"elicitation":     {{Tool: "test_elicitation", Arguments: map[string]any{"message": "mcpconform probe"}}},
	"elicitation-url": {{Tool: "elicit_url"}},
	"roots":           {{Tool: "roots"}},
	"slow":            {{Tool: "slow"}},
	"failing":         {{Tool: "test_error_handling"}},
	"input-required": {
		{Tool: "test_input_required_result_elicitation"}, {Tool: "test_input_required_result_sampling"},
		{Tool: "test_input_required_result_list_roots"}, {Tool: "test_input_required_result_request_state"},
		{Tool: "test_input_required_result_multiple_inputs"}, {Tool: "test_input_required_result_multi_round"},
		{Tool: "test_input_required_result_tampered_state"}, {Tool: "test_input_required_result_capabilities"},
	},
}

// fixture finds the tool that shows role: from the fixtures file, else by
// an official fixture name the server offers, and only one the run's tool
// policy lets checks call; else the check is UNIMPLEMENTED with a message
// saying which tools were left alone and why, or how to map one. A server
// is never failed for lacking a fixture.
func fixture(c *run.C, p *peer, role string) run.Fixture { return fixtures(c, p, role)[0] }

// fixtures is fixture, with every offered tool that shows role.
func fixtures(c *run.C, p *peer, role string) []run.Fixture {
	found, offered, left := offeredFixtures(c, p, role)
	if len(found) > 0 {
		return found
	}
	if len(left) > 0 {
		c.Unimplemented(fmt.Sprintf("no tool for the %q behaviour may be called: %s", role, toolpolicy.Explain(left)))
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

// offeredFixtures are the tools that show role and that the run's tool
// policy lets checks call: the fixtures file's, else the official fixtures
// the server offers; none is not a failure. offered lists the server's
// tools when they were asked for; left are the tools of role the policy
// left alone.
func offeredFixtures(c *run.C, p *peer, role string) (found []run.Fixture, offered []string, left []toolpolicy.LeftAlone) {
	if f, ok := c.Options().Fixtures[role]; ok {
		if ok, why := c.MayCall(mcp.Tool{Name: f.Tool}); !ok {
			return nil, nil, []toolpolicy.LeftAlone{{Name: f.Tool, Why: why}}
		}
		return []run.Fixture{f}, nil, nil
	}
	tools := p.tools()
	for _, t := range tools {
		offered = append(offered, t.Name)
	}
	for _, f := range officialFixtures[role] {
		i := slices.IndexFunc(tools, func(t mcp.Tool) bool { return t.Name == f.Tool })
		if i < 0 {
			continue
		}
		if ok, why := c.MayCall(tools[i]); ok {
			found = append(found, f)
		} else {
			left = append(left, toolpolicy.LeftAlone{Name: f.Tool, Why: why})
		}
	}
	return found, offered, left
}

// tools lists the server's tools (every page).
func (p *peer) tools() []mcp.Tool {
	var tools []mcp.Tool
	for _, raw := range listAll(p.c, p, "tools/list", "tools") {
		var t mcp.Tool
		_ = json.Unmarshal(raw, &t)
		tools = append(tools, t)
	}
	return tools
}

// callParams are tools/call params for f, with meta (when given) as _meta;
// the reports list f's tool as called.
func (p *peer) callParams(f run.Fixture, meta map[string]any) map[string]any {
	p.c.Calls(f.Tool)
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
