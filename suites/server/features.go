package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Tools, pagination of every list, and logging, reached by discovery:
// PA-01, PA-03, JR-23, LG-01, LG-06.

// listAll walks method's pages and returns every item's raw JSON.
func listAll(c *run.C, p *peer, method, field string) []json.RawMessage {
	return c.Pages(method, field, func(cursor string) json.RawMessage {
		var m *jsonrpc.Message
		if p.modern != "" {
			var extra map[string]any
			if cursor != "" {
				extra = map[string]any{"cursor": cursor}
			}
			m = p.modernRequest(method, p.modern, modernParams(p.modern, extra))
		} else {
			m = p.request(method, run.CursorParams(cursor))
		}
		c.Require(m.Error == nil, method+" succeeds ("+p.transport+")", "%s", describe(m))
		return m.Result
	})
}

// paginatedList is a list PA-01 paginates: its method, the result field of
// its items, the field that names an item, and the capability that offers it.
type paginatedList struct{ method, field, key, capability string }

var paginatedLists = []paginatedList{
	{"tools/list", "tools", "name", "tools"},
	{"resources/list", "resources", "uri", "resources"},
	{"resources/templates/list", "resourceTemplates", "uriTemplate", "resources"},
	{"prompts/list", "prompts", "name", "prompts"},
}

// declaredLists are the paginated lists whose capability r declares and
// that the server serves: a server may offer resources without templates,
// and answer resources/templates/list with -32601. Without any, the check
// is UNIMPLEMENTED.
func declaredLists(c *run.C, p *peer, r initResult) []paginatedList {
	var out []paginatedList
	for _, l := range paginatedLists {
		if r.Capabilities[l.capability] == nil {
			continue
		}
		if m := p.request(l.method, nil); m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		c.Unimplemented("the server declares none of the tools, resources and prompts capabilities, or serves none of their lists")
	}
	return out
}

var _ = serverCheck(check.Descriptor{
	ID:          "server.pagination.walk-complete",
	Title:       "following nextCursor through every list the server declares (tools, resources, resource templates, prompts) ends, with no item listed twice",
	Requirement: "Paginated lists return nextCursor while more remain; cursors are stable, so a walk ends and lists each item once.",
	Rules:       []string{"PA-01", "PA-03"},
	KilledBy:    []mutant.Name{mutant.PaginationRepeats, mutant.PromptsCursorIgnored},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		for _, l := range declaredLists(c, p, p.initialize(v1125, nil)) {
			seen := map[string]bool{}
			for _, raw := range listAll(c, p, l.method, l.field) {
				var item map[string]any
				_ = json.Unmarshal(raw, &item)
				name := fmt.Sprint(item[l.key])
				c.Require(!seen[name], fmt.Sprintf("each item of %s once (%s)", l.method, p.transport), "%s %q is listed twice", l.key, name)
				seen[name] = true
			}
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.pagination.invalid-cursor",
	Title:       "an invalid cursor gets -32602 on every list the server declares (tools, resources, resource templates, prompts)",
	Requirement: "Invalid cursors are handled gracefully, normally with -32602 (Invalid params).",
	Rules:       []string{"PA-03", "JR-23"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.InvalidCursorAccepted, mutant.PromptsCursorIgnored},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		for _, l := range declaredLists(c, p, p.initialize(v1125, nil)) {
			m := p.request(l.method, map[string]any{"cursor": "mcpconform-not-a-cursor"})
			c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams, fmt.Sprintf("%s: error -32602 (%s)", l.method, p.transport), "%s", describe(m))
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.tools.unknown-tool",
	Title:       "calling a tool the server does not offer gets a JSON-RPC error",
	Requirement: "A tools/call naming an unknown tool is a protocol error (-32602), not a tool result.",
	Rules:       []string{"TL-08", "JR-23"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.UnknownToolNotError},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initializeDeclaring("tools")
		m := p.request("tools/call", map[string]any{"name": "mcpconform-no-such-tool", "arguments": map[string]any{}})
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams, "error -32602 ("+p.transport+")", "%s", describe(m))
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.logging.invalid-level",
	Serial:      true, // the log level is session state
	Title:       "logging/setLevel with a level that is not one of the eight gets -32602",
	Requirement: "An invalid log level is answered with -32602.",
	Rules:       []string{"LG-06", "LG-02"},
	Level:       check.SHOULD,
	Capability:  "logging",
	KilledBy:    []mutant.Name{mutant.InvalidLevelAccepted},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initializeDeclaring("logging")
		m := p.request("logging/setLevel", map[string]any{"level": "mcpconform-loud"})
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams, "error -32602 ("+p.transport+")", "%s", describe(m))
		ok := p.request("logging/setLevel", map[string]any{"level": "warning"})
		c.Require(ok.Error == nil, "a valid level is accepted ("+p.transport+")", "%s", describe(ok))
	})
})
