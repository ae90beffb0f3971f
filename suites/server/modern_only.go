package server

import (
	"encoding/json"
	"regexp"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A server that serves the 2026-07-28 era only (LC-48).

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
