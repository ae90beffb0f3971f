package client

import (
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

// A 2026-07-28 conversation from end to end (LC-40): against a conformant
// fake of that era alone, which refuses initialize, a request without the
// version in _meta or naming one it does not serve, and over HTTP headers
// that do not mirror the body, the client opens with server/discover or a
// request naming its version, lists the tools and calls them, each
// request answered and the calls succeeding.

var _ = clientCheck(check.Descriptor{
	ID:    "client.modern.conversation",
	Title: "a 2026-07-28 client completes a basic conversation with a conformant server of that era: discover or a versioned first request, tools/list, tools/call",
	Requirement: "Every implementation supports the base protocol, versioning and the message patterns (LC-40): against a server of 2026-07-28 alone, " +
		"the client opens with server/discover or a request naming its protocol version in _meta, lists the tools and calls each, every request answered " +
		"and the list and the calls succeeding.",
	Rules:    []string{"LC-40"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ModernCompleteRefused},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		x := runCase(c, t, "well-behaved")
		first := slices.IndexFunc(x.Sent, func(m *jsonrpc.Message) bool { return m.Kind() == jsonrpc.KindRequest })
		c.Require(first >= 0, "requests from the client", "over %s it sent none", t)
		c.Require(opensModern(x.Sent[first]), "the first request is server/discover or names its 2026-07-28 version in _meta",
			"over %s the first is %s", t, what(x.Sent[first]))
		if x.List != nil {
			c.Require(x.List.Outcome == target.OutcomeOK, "tools/list succeeds", "over %s the adapter reports it failed: %s", t, x.List.Error)
		}
		for _, method := range []string{fakeservers.MethodToolsList, fakeservers.MethodToolsCall} {
			c.Require(x.count(method) > 0, fmt.Sprintf("a %s request", method),
				"over %s the client sent none; it sent %d messages, the adapter reports connect %s, list %s", t, len(x.Sent), phase(x.Connect), phase(x.List))
		}
		c.WantAllCallsOK(x.Output, 1)
	})
})

// opensModern reports whether request m may open a 2026-07-28
// conversation: server/discover, or a request naming its version in _meta.
func opensModern(m *jsonrpc.Message) bool {
	meta, _ := mcp.ModernRequest(m)
	return m.Method == mcp.MethodDiscover || meta.HasVersion
}

// phase is an adapter's connect or list line as the failure shows it.
func phase(p *target.Phase) string {
	switch {
	case p == nil:
		return "no line"
	case p.Error != "":
		return p.Outcome + " (" + p.Error + ")"
	}
	return p.Outcome
}
