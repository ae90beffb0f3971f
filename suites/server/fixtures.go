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
// an official fixture name the server offers, else as the run's fixtures
// discovery found it, and only one the run's tool policy lets checks call;
// else the check is UNIMPLEMENTED with a message saying which tools were
// left alone and why (the tools it would call among them), or how to map
// one. A server is never failed for lacking a fixture.
func fixture(c *run.C, p *peer, role string) run.Fixture { return fixtures(c, p, role)[0] }

// fixtures is fixture, with every offered tool that shows role.
func fixtures(c *run.C, p *peer, role string) []run.Fixture {
	found, offered, left := offeredFixtures(c, p, role)
	if len(found) > 0 {
		return found
	}
	var d run.Discovery
	if slices.Contains(run.DiscoverableRoles, role) {
		d = c.Discovery()
	}
	if hints := d.HintsFor(role); len(hints)+len(left) > 0 {
		msg := fmt.Sprintf("no tool for the %q behaviour may be called: ", role)
		if len(hints) > 0 {
			names := make([]string, len(hints))
			for i, h := range hints {
				names[i] = h.Name
			}
			tried := fmt.Sprintf("none of the %d tools that may be called showed it when called", len(d.Called))
			if len(d.Called) == 0 {
				tried = "no tool that may be called was left to call"
			}
			msg += fmt.Sprintf("%s, and its checks would call %s, whose name or description suggests it; ", tried, strings.Join(names, " or "))
		}
		c.Unimplemented(msg + toolpolicy.Explain(append(left, hints...)))
	}
	var names []string
	for _, f := range officialFixtures[role] {
		names = append(names, f.Tool)
	}
	sort.Strings(offered)
	c.Unimplemented(fmt.Sprintf("no tool for the %q behaviour: the server offers none of %s (it offers: %s)%s; map one in a --fixtures file, e.g. %s: {tool: NAME, arguments: {}}",
		role, strings.Join(names, ", "), strings.Join(offered, ", "), discoveryMissed(d, role), role))
	return nil
}

// discoveryMissed says, for a message, what the fixtures discovery tried
// for role that found no tool: "" for a role it does not look for.
func discoveryMissed(d run.Discovery, role string) string {
	switch {
	case !slices.Contains(run.DiscoverableRoles, role):
		return ""
	case d.Why != "":
		return fmt.Sprintf(", and no tool was called to find one (%s)", d.Why)
	case d.NearFor(role) != "":
		return fmt.Sprintf(", and of the %d tools that may be called, called once each, %s showed it but did not end with a result: map it with other arguments", len(d.Called), d.NearFor(role))
	case len(d.Over) > 0:
		return fmt.Sprintf(", and calling the %d tools that may be called, once each, showed none (%d more were past the tool budget: %s)", len(d.Called), len(d.Over), strings.Join(d.Over, ", "))
	}
	return fmt.Sprintf(", and calling the %d tools that may be called, once each, showed none", len(d.Called))
}

// offeredFixtures are the tools that show role and that the run's tool
// policy lets checks call: the fixtures file's, else the official fixtures
// the server offers, else the one the run's fixtures discovery found
// (used as a fixtures file's, and noted in the check's message); none is
// not a failure. offered lists the server's tools when they were asked
// for; left are the tools of role the policy left alone.
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
	if len(found) > 0 || !slices.Contains(run.DiscoverableRoles, role) {
		return found, offered, left
	}
	if d, ok := c.Discovery().For(role); ok && !d.Official {
		if ok, why := c.MayCall(d.Tool); !ok {
			return nil, offered, append(left, toolpolicy.LeftAlone{Name: d.Tool.Name, Why: why})
		}
		c.Note("the %s tool %s was %s", role, d.Fixture.Tool, d.How)
		return []run.Fixture{d.Fixture}, offered, nil
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
