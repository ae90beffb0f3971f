package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Tools, pagination and logging, reached by discovery: PA-01, PA-03,
// JR-23, LG-01, LG-06.

// maxPages bounds a walk through a paginated list.
const maxPages = 100

// listAll walks method's pages and returns every item's raw JSON.
func listAll(c *run.C, p *peer, method, field string) []json.RawMessage {
	var items []json.RawMessage
	cursor := ""
	for page := 0; page < maxPages; page++ {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		m := p.request(method, params)
		c.Require(m.Error == nil, method+" succeeds ("+p.transport+")", "%s", describe(m))
		var r map[string]json.RawMessage
		_ = json.Unmarshal(m.Result, &r)
		var pageItems []json.RawMessage
		_ = json.Unmarshal(r[field], &pageItems)
		items = append(items, pageItems...)
		next := ""
		_ = json.Unmarshal(r["nextCursor"], &next)
		if next == "" {
			return items
		}
		cursor = next
	}
	c.Failf(fmt.Sprintf("%s ends within %d pages", method, maxPages), "it did not")
	return nil
}

var _ = serverCheck(check.Descriptor{
	ID:          "server.pagination.walk-complete",
	Title:       "following nextCursor through tools/list ends, with no tool listed twice",
	Requirement: "Paginated lists return nextCursor while more remain; cursors are stable, so a walk ends and lists each item once.",
	Rules:       []string{"PA-01", "PA-03"},
	KilledBy:    killers(mutant.PaginationRepeats),
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initialize(v1125, nil)
		if r.Capabilities["tools"] == nil {
			c.Unimplemented("the server declares no tools capability")
		}
		seen := map[string]bool{}
		for _, raw := range listAll(c, p, "tools/list", "tools") {
			var t struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(raw, &t)
			c.Require(!seen[t.Name], "each tool once ("+p.transport+")", "tool %q is listed twice", t.Name)
			seen[t.Name] = true
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.pagination.invalid-cursor",
	Title:       "an invalid cursor gets -32602",
	Requirement: "Invalid cursors are handled gracefully, normally with -32602 (Invalid params).",
	Rules:       []string{"PA-03", "JR-23"},
	Level:       check.SHOULD,
	KilledBy:    killers(mutant.InvalidCursorAccepted),
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initialize(v1125, nil)
		if r.Capabilities["tools"] == nil {
			c.Unimplemented("the server declares no tools capability")
		}
		m := p.request("tools/list", map[string]any{"cursor": "mcpconform-not-a-cursor"})
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams, "error -32602 ("+p.transport+")", "%s", describe(m))
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.tools.unknown-tool",
	Title:       "calling a tool the server does not offer gets a JSON-RPC error",
	Requirement: "A tools/call naming an unknown tool is a protocol error (-32602), not a tool result.",
	Rules:       []string{"TL-08", "JR-23"},
	Level:       check.SHOULD,
	KilledBy:    killers(mutant.UnknownToolNotError),
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initialize(v1125, nil)
		if r.Capabilities["tools"] == nil {
			c.Unimplemented("the server declares no tools capability")
		}
		m := p.request("tools/call", map[string]any{"name": "mcpconform-no-such-tool", "arguments": map[string]any{}})
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams, "error -32602 ("+p.transport+")", "%s", describe(m))
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.logging.invalid-level",
	Title:       "logging/setLevel with a level that is not one of the eight gets -32602",
	Requirement: "An invalid log level is answered with -32602.",
	Rules:       []string{"LG-06", "LG-02"},
	Level:       check.SHOULD,
	Capability:  "logging",
	KilledBy:    killers(mutant.InvalidLevelAccepted),
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initialize(v1125, nil)
		if r.Capabilities["logging"] == nil {
			c.Unimplemented("the server declares no logging capability")
		}
		m := p.request("logging/setLevel", map[string]any{"level": "mcpconform-loud"})
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams, "error -32602 ("+p.transport+")", "%s", describe(m))
		ok := p.request("logging/setLevel", map[string]any{"level": "warning"})
		c.Require(ok.Error == nil, "a valid level is accepted ("+p.transport+")", "%s", describe(ok))
	})
})
