package server

import (
	"bytes"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// JSON-RPC batches, which only 2025-03-26 has (JR-35).

var _ = serverCheck(check.Descriptor{
	ID:          "server.jsonrpc.batch-accepted",
	Title:       "in 2025-03-26 a JSON-RPC batch of a ping, a notification and tools/list is accepted: each request gets its response",
	Requirement: "An implementation of 2025-03-26 accepts JSON-RPC batch arrays on receive: each request of the batch is answered.",
	Rules:       []string{"JR-35"},
	KilledBy:    []mutant.Name{mutant.BatchRefused},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		if r := p.initialize(v0326, nil); r.ProtocolVersion != v0326 {
			c.NotApplicable("the server answered the proposal of " + v0326 + " with " + r.ProtocolVersion + "; batches exist only in " + v0326)
		}
		ping, list := p.id(), p.id()
		var parts [][]byte
		for _, m := range []struct {
			id     jsonrpc.ID
			method string
		}{{ping, "ping"}, {jsonrpc.ID{}, "notifications/mcpconform-batched"}, {list, "tools/list"}} {
			b, err := jsonrpc.EncodeCall(m.id, m.method, nil)
			c.Require(err == nil, "the check can encode its batch", "%v", err)
			parts = append(parts, b)
		}
		p.raw(slices.Concat([]byte("["), bytes.Join(parts, []byte(",")), []byte("]")))
		for _, id := range []jsonrpc.ID{ping, list} {
			// A refusal of the whole batch has a null id: it ends the wait.
			got := p.wait(func(m *jsonrpc.Message) bool {
				return responseTo(id)(m) || m.Kind() == jsonrpc.KindError && m.ID.IsZero()
			}, p.patience())
			c.Require(got != nil && got.Kind() == jsonrpc.KindResult && got.ID.Key() == id.Key(), "a result for the request "+id.String()+" of the batch ("+p.transport+")", "%s", describe(got))
		}
	})
})
