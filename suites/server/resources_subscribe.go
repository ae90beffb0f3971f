package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Resource subscriptions of the legacy era, only where declared: RS-01,
// RS-04. The 2026-07-28 era replaced resources/subscribe with
// subscriptions/listen (RS-11), which server.subscriptions.* judge.

var _ = serverCheck(check.Descriptor{
	ID: "server.resources.subscribe-declared",
	Title: "resources/subscribe and resources/unsubscribe of a listed resource succeed when the server declares resources.subscribe, " +
		"and resources/subscribe is refused with an error when it does not",
	Requirement: "A server declares the features it offers: with resources.subscribe declared, a client may subscribe to a listed resource and unsubscribe; " +
		"a server that does not declare it offers no subscriptions.",
	Rules:      []string{"RS-01", "RS-04"},
	Capability: "resources",
	KilledBy:   []mutant.Name{mutant.SubscribeRefused, mutant.SubscribeUndeclaredServed},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initializeDeclaring("resources")
		var declared struct {
			Subscribe bool `json:"subscribe"`
		}
		_ = json.Unmarshal(r.Capabilities["resources"], &declared)
		listed := listAll(c, p, "resources/list", "resources")
		if len(listed) == 0 {
			c.Unimplemented("resources/list lists no resource over " + p.transport + "; list one to have subscriptions to it judged")
		}
		var res struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(listed[0], &res)
		uri := map[string]any{"uri": res.URI}
		m := p.request("resources/subscribe", uri)
		what := fmt.Sprintf("resources/subscribe of the listed %q (%s, %s)", res.URI, r.ProtocolVersion, p.transport)
		if !declared.Subscribe {
			c.Require(m.Error != nil, what+": an error, since the server does not declare resources.subscribe", "%s", describe(m))
			return
		}
		c.Require(m.Error == nil, what+" succeeds, since the server declares resources.subscribe", "%s", describe(m))
		u := p.request("resources/unsubscribe", uri)
		c.Require(u.Error == nil, fmt.Sprintf("resources/unsubscribe of %q (%s, %s) succeeds after its subscription", res.URI, r.ProtocolVersion, p.transport), "%s", describe(u))
		c.Note("whether notifications/resources/updated follows a change of %q was not judged: no fixture makes a resource change on request", res.URI)
	})
})
