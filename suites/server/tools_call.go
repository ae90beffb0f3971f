package server

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/instance"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Calling the tools a server lists, as the tool checks do: only those the
// run's tool policy allows, with arguments their inputSchema accepts.

// maxToolCalls bounds how many listed tools a check calls in each era: a
// server may list hundreds, and the first ones show how it answers.
const maxToolCalls = 20

// toolCallBudget is the wait of the checks that call tools (callTools).
var toolCallBudget = check.Wait{What: "a tool call still unanswered when the budget passes; the call is then cancelled", Setting: check.ToolBudget}

// listedTool is one tools/list entry: the tool as read, and its JSON as
// sent.
type listedTool struct {
	mcp.Tool
	raw json.RawMessage
}

// listTools walks every page of tools/list in the era p speaks.
func listTools(c *run.C, p *peer) []listedTool {
	var out []listedTool
	for _, raw := range listAll(c, p, "tools/list", "tools") {
		t := listedTool{raw: raw}
		_ = json.Unmarshal(raw, &t.Tool)
		out = append(out, t)
	}
	return out
}

// toolResult is the result of one tools/call a check made.
type toolResult struct {
	tool   mcp.Tool
	result json.RawMessage
}

// callTools calls each of tools that the run's tool policy lets checks
// call, except the slow tool (run.SlowTools) and those the run's tool
// census found slow (run.CensusSlow), the first maxToolCalls, in
// the era p speaks (version): with the fixtures file's arguments for a tool
// it maps, else a valid instance of its inputSchema (instance.Arguments).
// It returns the results the check judges; a call answered with a JSON-RPC
// error, one asking for input (2026-07-28), and one unanswered within the
// run's tool budget (then cancelled) are noted, not returned. When no tool
// could be called the check is UNIMPLEMENTED, saying which were left alone
// and how to allow them; what names the tools wanted ("tool", "tool with an
// outputSchema").
func callTools(c *run.C, p *peer, version string, tools []mcp.Tool, what string) []toolResult {
	slow := run.SlowTools(c.Options().Fixtures)
	var left []toolpolicy.LeftAlone
	var out []toolResult
	called := 0
	for _, t := range tools {
		if ok, why := c.MayCall(t); !ok {
			left = append(left, toolpolicy.LeftAlone{Name: t.Name, Why: why})
			continue
		}
		if slices.Contains(slow, t.Name) || called == maxToolCalls {
			continue
		}
		if c.CensusSlow(check.Transport(p.transport), t.Name) {
			called++ // by the census, unanswered
			c.Note("the run's tool census found %s unanswered within the tool budget of %s (%s): not called again, its result was not judged", t.Name, c.ToolBudget(), p.transport)
			continue
		}
		called++
		if r, ok := callTool(c, p, version, t); ok {
			out = append(out, toolResult{t, r})
		}
	}
	switch {
	case called == 0 && len(left) > 0:
		c.Unimplemented(fmt.Sprintf("no listed %s may be called (%s, %s): %s", what, version, p.transport, toolpolicy.Explain(left)))
	case called == 0:
		c.Unimplemented(fmt.Sprintf("the server lists no %s that may be called (%s, %s): list one", what, version, p.transport))
	case len(left) > 0:
		c.Note("%d listed tools were not called (%s, %s): %s", len(left), version, p.transport, toolpolicy.Explain(left))
	}
	if len(out) == 0 {
		c.Unimplemented(fmt.Sprintf("no call of a listed %s returned a result to judge (%s, %s): the notes say why", what, version, p.transport))
	}
	return out
}

// callTool calls t and returns its result; false, noted, when there is
// none to judge.
func callTool(c *run.C, p *peer, version string, t mcp.Tool) (json.RawMessage, bool) {
	f := run.Fixture{Tool: t.Name, Arguments: instance.Arguments(t.InputSchema)}
	for _, mapped := range c.Options().Fixtures {
		if mapped.Tool == t.Name && mapped.Arguments != nil {
			f.Arguments = mapped.Arguments
		}
	}
	params := p.callParams(f, nil)
	if p.modern != "" {
		params = modernParams(p.modern, params)
	}
	id := p.id()
	p.message(id, "tools/call", params)
	m := p.awaitTool(id)
	p.unread = nil // the call's notifications are no check's concern here
	where := fmt.Sprintf("the call of %s with %s (%s, %s)", t.Name, clip(marshal(f.Arguments)), version, p.transport)
	if m == nil {
		p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": id, "reason": "mcpconform: no answer within the tool budget"})
		c.Note("%s got no answer within the tool budget of %s (or its HTTP reply ended without one) and was cancelled; --tool-budget waits longer", where, c.ToolBudget())
		return nil, false
	}
	if m.Error != nil {
		c.Note("%s was refused: %s; its result was not judged", where, describe(m))
		return nil, false
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(m.Result, &r)
	if r.ResultType == mcp.ResultTypeInputRequired {
		c.Note("%s asked for input; its result was not judged", where)
		return nil, false
	}
	return m.Result, true
}

// awaitTool waits for the response to the tool call id within the run's
// ToolBudget; nil when none came. Over HTTP it stops early once the call's
// reply is complete (a JSON body, or its SSE stream ended) without it.
func (p *peer) awaitTool(id jsonrpc.ID) *jsonrpc.Message {
	var ended <-chan struct{}
	if h, ok := p.conn.(*httpConn); ok {
		if h.settled() {
			return p.waitReady(responseTo(id))
		}
		ended = h.streamEnd
	}
	return p.waitUntil(responseTo(id), p.c.ToolBudget(), ended)
}
