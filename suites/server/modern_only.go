package server

import (
	"encoding/json"
	"regexp"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A server that serves the 2026-07-28 era only (LC-48), and one that does
// not tie related operations to a connection (LC-51).

var _ = serverCheck(check.Descriptor{
	ID:          "server.version.initialize-names-versions",
	Title:       "a server that serves 2026-07-28 only names its supported versions in the error it answers initialize with",
	Requirement: "A modern-only server names its supported versions in whatever error it returns to an initialize request.",
	Rules:       []string{"LC-48"},
	Level:       check.SHOULD,
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.InitializeNamesNoVersions},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		m := p.request("initialize", initializeParams(v1125, nil))
		if m.Error == nil {
			c.NotApplicable("the server answered initialize with a result over " + p.transport + ": it serves the legacy era too, and LC-48 is about a server that serves 2026-07-28 only")
		}
		var data struct {
			Supported []string `json:"supported"`
		}
		named := json.Unmarshal(m.Error.Data, &data) == nil && len(data.Supported) > 0 || versionName.MatchString(m.Error.Message)
		c.Require(named, "the error names the versions the server supports, in data.supported or its message ("+p.transport+")", "%s", describe(m))
	})
})

// versionName is a protocol version as an error message may name it.
var versionName = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)

// pagedLists are the list methods whose cursor a fresh connection is
// asked to continue, with the capability that offers each.
var pagedLists = []struct{ method, capability string }{
	{"tools/list", "tools"}, {"resources/list", "resources"}, {"resources/templates/list", "resources"}, {"prompts/list", "prompts"},
}

var _ = serverCheck(check.Descriptor{
	ID:          "server.modern.cursor-on-fresh-connection",
	Title:       "a 2026-07-28 list's cursor from one connection is served on a fresh connection",
	Requirement: "Servers do not require related operations to reuse one connection or process: the next page of a list is served on another connection.",
	Rules:       []string{"LC-51"},
	Level:       check.SHOULD,
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.CursorBoundToConnection},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		m := p.modernRequest(mcp.MethodDiscover, mcp.ModernVersion, modernParams(mcp.ModernVersion, nil))
		var r struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		_ = json.Unmarshal(m.Result, &r)
		for _, l := range pagedLists {
			if r.Capabilities[l.capability] == nil {
				continue
			}
			first := p.modernRequest(l.method, mcp.ModernVersion, modernParams(mcp.ModernVersion, nil))
			var page struct {
				NextCursor string `json:"nextCursor"`
			}
			if first.Error != nil || json.Unmarshal(first.Result, &page) != nil || page.NextCursor == "" {
				continue
			}
			q := openPeer(c, check.Transport(p.transport))
			next := q.modernRequest(l.method, mcp.ModernVersion, modernParams(mcp.ModernVersion, map[string]any{"cursor": page.NextCursor}))
			c.Require(next.Error == nil, l.method+"'s nextCursor is served on a fresh connection ("+p.transport+")", "%s", describe(next))
			return
		}
		c.NotApplicable("no list the server declares has a second page over " + p.transport + ", so no cursor can be carried to a fresh connection")
	})
})
