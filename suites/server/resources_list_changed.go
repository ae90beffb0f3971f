package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// List-change notifications of the legacy era only for what the server
// declared: LC-11. In the 2026-07-28 era they come only on a listen stream
// that opted into them (server.subscriptions.opted-in-only).

// listChangedNotifications are the list-change notifications, each with the
// capability whose listChanged declares it.
var listChangedNotifications = map[string]string{
	"notifications/tools/list_changed":     "tools",
	"notifications/resources/list_changed": "resources",
	"notifications/prompts/list_changed":   "prompts",
}

// declaresListChanged reports whether caps declares capability with
// listChanged true.
func declaresListChanged(caps map[string]json.RawMessage, capability string) bool {
	var c struct {
		ListChanged bool `json:"listChanged"`
	}
	return json.Unmarshal(caps[capability], &c) == nil && c.ListChanged
}

var _ = serverCheck(check.Descriptor{
	ID: "server.list-changed.declared-only",
	Title: "while the check lists every tool, resource, resource template and prompt the server declares, no notifications/{tools,resources,prompts}/list_changed " +
		"arrives for a capability the server did not declare with listChanged",
	Requirement: "A server uses only the capabilities it negotiated: it sends a list_changed notification only for a capability it declared with listChanged.",
	Rules:       []string{"LC-11"},
	KilledBy:    []mutant.Name{mutant.ListChangedUndeclared},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initialize(v1125, nil)
		var undeclared []string
		for _, capability := range []string{"tools", "resources", "prompts"} {
			if r.Capabilities[capability] != nil && !declaresListChanged(r.Capabilities, capability) {
				undeclared = append(undeclared, capability)
			}
		}
		if len(undeclared) == 0 {
			c.Unimplemented("the server declares listChanged for every list it offers over " + p.transport +
				" (or offers none of tools, resources and prompts), so any list_changed it sends is permitted")
		}
		for _, l := range declaredLists(c, p, r) {
			listAll(c, p, l.method, l.field)
		}
		p.request("ping", nil) // what the server sent before its answer to ping is read
		for _, m := range p.unread {
			capability, ok := listChangedNotifications[m.Method]
			c.Require(!ok || declaresListChanged(r.Capabilities, capability),
				fmt.Sprintf("no %s, since the server does not declare %s.listChanged (%s, %s)", m.Method, capability, r.ProtocolVersion, p.transport),
				"it arrived, params %s", clip(string(m.Params)))
		}
		c.Note("judged for %s, which declare no listChanged over %s", strings.Join(undeclared, ", "), p.transport)
	})
})
