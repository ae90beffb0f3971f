package client

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The client's rules of the 2026-07-28 era whatever its transport: _meta on
// every request (JR-46), a resultType it does not know (JR-16). Each check
// is of the modern era alone: a client that does not claim it is N/A.

var _ = clientCheck(check.Descriptor{
	ID:    "client.modern.meta",
	Title: "every 2026-07-28 request carries _meta with the protocol version and the client's capabilities",
	Requirement: "Every request of the 2026-07-28 era carries in params._meta io.modelcontextprotocol/protocolVersion, a version the server serves, " +
		"and io.modelcontextprotocol/clientCapabilities, an object ({} for none) (JR-46), and should carry io.modelcontextprotocol/clientInfo, " +
		"the client's name and version (JR-48).",
	Rules:    []string{"JR-46", "JR-48"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ModernNoMeta, mutant.ModernNoClientInfo},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		x := runCase(c, t, "well-behaved")
		for i, m := range x.Sent {
			if m.Kind() != jsonrpc.KindRequest {
				continue
			}
			meta, _ := mcp.ModernRequest(m)
			problem := meta.Problem()
			c.Require(problem == nil, "_meta with protocolVersion and clientCapabilities on every request",
				"message %d, %s: %v", i+1, m.Method, problem)
			c.Require(slices.Contains(mcp.ModernProtocolVersions, meta.Version), fmt.Sprintf("_meta names a version the server serves (%v)", mcp.ModernProtocolVersions),
				"message %d, %s, names %q", i+1, m.Method, meta.Version)
			infoProblem := clientInfoProblem(m)
			c.RequireRule("JR-48", infoProblem == nil, "_meta carries io.modelcontextprotocol/clientInfo with the client's name and version",
				"message %d, %s: %v", i+1, m.Method, infoProblem)
		}
	})
})

var _ = clientCheck(check.Descriptor{
	ID:          "client.result-type.unknown",
	Title:       "a result whose resultType the client does not know fails the call; one that is complete does not",
	Requirement: "A client treats a result whose resultType it does not recognise as invalid, never as complete.",
	Rules:       []string{"JR-16"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.ResultTypeUnknownAccepted},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		x := runCase(c, t, "result-type-unknown")
		strange, echo := x.Call(fakeservers.ToolStrange), x.Call(fakeservers.ToolEcho)
		if strange == nil || echo == nil {
			c.Unimplemented(fmt.Sprintf("over %s the adapter reported no tool line for %s or %s (calls: %s); it must call every listed tool",
				t, fakeservers.ToolStrange, fakeservers.ToolEcho, run.DescribeCalls(x.Calls)))
		}
		if !echo.OK() {
			c.Unimplemented(fmt.Sprintf("over %s the call of %s, whose result is complete, failed too (%s), so the failure of %s says nothing of its resultType",
				t, echo.Tool, echo.Error, strange.Tool))
		}
		c.Require(!strange.OK(), fmt.Sprintf("the call whose result has resultType %q fails: the type is unknown", fakeservers.ResultTypeUnknown),
			"tool %q succeeded: the client took the result for a complete one", strange.Tool)
	})
})

// clientInfoProblem says what is wrong with the clientInfo in request m's
// _meta: absent, or not an object with a name and a version (JR-48).
func clientInfoProblem(m *jsonrpc.Message) error {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p) // no object: no _meta
	raw, ok := p.Meta[mcp.MetaClientInfo]
	if !ok {
		return fmt.Errorf("no %s", mcp.MetaClientInfo)
	}
	var info struct {
		Name    *string `json:"name"`
		Version *string `json:"version"`
	}
	if json.Unmarshal(raw, &info) != nil || info.Name == nil || *info.Name == "" || info.Version == nil {
		return fmt.Errorf("%s is %s, not an object with the name and version strings", mcp.MetaClientInfo, raw)
	}
	return nil
}

var _ = clientCheck(check.Descriptor{
	ID:    "client.subscriptions.acknowledgement",
	Title: "a subscription acknowledged with less than was asked is not taken as the one asked for",
	Requirement: "A client compares the filter the server acknowledged for its subscriptions/listen with the one it asked for: " +
		"acknowledged in full the subscription is open, acknowledged short it is not the one asked for.",
	Rules:    []string{"SB-04"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ListenNoAckCheck},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		if full := listened(c, t, "listen"); full.Outcome != target.OutcomeOK {
			c.Unimplemented(fmt.Sprintf("over %s a subscription acknowledged as asked did not open either (%s), so the failure of one acknowledged short says nothing of the comparison",
				t, full.Error))
		}
		short := listened(c, t, "listen-ack-short")
		c.Require(short.Outcome != target.OutcomeOK, "a subscription acknowledged honouring nothing of what was asked is reported failed",
			"the listen line says %s: the client took the short acknowledgement for what it asked", short.Outcome)
	})
})

// listened runs the client against listen case fakeCase over t and returns
// the adapter's listen line; without a subscription or a listen line there
// is nothing to judge.
func listened(c *run.C, t check.Transport, fakeCase string) *target.Phase {
	x := runCase(c, t, fakeCase)
	if x.count(fakeservers.MethodListen) == 0 {
		c.Unimplemented(fmt.Sprintf("over %s the client opened no subscriptions/listen, though the server declares tools.listChanged; "+
			"an adapter whose client subscribes opens one for toolsListChanged and prints a listen line", t))
	}
	if x.Listen == nil {
		c.Unimplemented(fmt.Sprintf(`over %s the adapter printed no listen line; it must print {"listen":{"outcome":"ok"|"error",…}} once its client's subscription is acknowledged or refused`, t))
	}
	return x.Listen
}
