package client

import (
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// How a client meets an initialize result whose protocolVersion it cannot
// speak (LC-10, LC-12).

var _ = clientCheck(check.Descriptor{
	ID:    "client.lifecycle.version-unspoken",
	Title: "a client whose initialize is answered with a version it cannot speak disconnects",
	Requirement: "When the server's initialize result names a protocolVersion the client does not speak, the client disconnects: " +
		"no notifications/initialized, no further request (LC-10), and the failed negotiation reported rather than taken for a session (LC-12).",
	Rules:    []string{"LC-10", "LC-12"},
	Eras:     []check.Era{check.Legacy},
	KilledBy: []mutant.Name{mutant.VersionUnchecked},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		x := runCase(c, t, "version-unspoken")
		at := slices.IndexFunc(x.Sent, func(m *jsonrpc.Message) bool {
			return m.Kind() == jsonrpc.KindRequest && m.Method == fakeservers.MethodInitialize
		})
		if at < 0 {
			c.Unimplemented(fmt.Sprintf("over %s the client sent no initialize, so there was no version to meet", t))
		}
		for _, m := range x.Sent[at+1:] {
			c.RequireRule("LC-10", m.Kind() != jsonrpc.KindRequest && m.Method != "notifications/initialized",
				fmt.Sprintf("nothing after the initialize result naming %s, a version no client speaks: the client disconnects", fakeservers.VersionUnspoken),
				"over %s the client went on with %s", t, what(m))
		}
		if x.Connect != nil {
			c.RequireRule("LC-12", x.Connect.Outcome != target.OutcomeOK, "the failed version negotiation reported",
				"over %s the adapter reports the handshake ok", t)
		}
	})
})
