package server

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Lifecycle and ping: LC-04, LC-09, PG-01, PG-02.

var _ = serverCheck(check.Descriptor{
	ID:          "server.lifecycle.initialize-result",
	Title:       "the initialize result carries protocolVersion, capabilities and serverInfo",
	Requirement: "The server answers initialize with its protocolVersion, its capabilities and serverInfo (name and version).",
	Rules:       []string{"LC-04", "LC-01"},
	KilledBy:    []mutant.Name{mutant.InitializeNoServerInfo},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initialize(v1125, nil)
		c.Require(r.ProtocolVersion != "" && r.Capabilities != nil && r.ServerInfo.Name != "" && r.ServerInfo.Version != "",
			"protocolVersion, capabilities and serverInfo {name, version} ("+p.transport+")", "%s", r)
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.lifecycle.version-negotiation",
	Title:       "a supported proposed version is echoed; an unknown one is answered with a supported version",
	Requirement: "If the server supports the proposed version it returns that same string; otherwise it returns another version it supports.",
	Rules:       []string{"LC-09", "LC-08", "LC-12"},
	KilledBy:    []mutant.Name{mutant.UnknownVersionEchoed},
}, func(c *run.C) {
	answers := map[string]map[string]string{} // transport → proposed → answered
	for _, proposed := range append(slices.Clone(legacyVersions), "1999-01-01") {
		eachTransport(c, func(p *peer) {
			if answers[p.transport] == nil {
				answers[p.transport] = map[string]string{}
			}
			answers[p.transport][proposed] = p.initialize(proposed, nil).ProtocolVersion
		})
	}
	for transport, a := range answers {
		supported := map[string]bool{}
		for _, v := range a {
			supported[v] = true
		}
		for proposed, answered := range a {
			if supported[proposed] {
				c.Require(answered == proposed, fmt.Sprintf("%s echoed: the server names it as a version it speaks (%s)", proposed, transport),
					"proposing %s got %s", proposed, answered)
			}
			c.Require(slices.Contains(legacyVersions, answered), "a version of the protocol, never the unknown proposal echoed ("+transport+")",
				"proposing %s got %q", proposed, answered)
		}
	}
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.ping.before-initialize",
	Title:       "ping before initialize gets an empty result (stdio; over HTTP a request before the session is refused, HT-55)",
	Requirement: "Either side may send ping at any time, including before initialization; the receiver answers promptly with an empty result.",
	Rules:       []string{"PG-01", "PG-02"},
	Level:       check.MUST,
	KilledBy:    []mutant.Name{mutant.NoPingBeforeInit},
}, func(c *run.C) {
	onTransports(c, false, func(p *peer) {
		m := p.request("ping", nil)
		c.Require(m.Error == nil && isEmptyObject(m.Result), "the result {} ("+p.transport+")", "%s", answered(m))
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.ping.after-initialize",
	Title:       "ping after initialize gets an empty result",
	Requirement: "The receiver answers a ping promptly with an empty result {}.",
	Rules:       []string{"PG-02"},
	KilledBy:    []mutant.Name{mutant.PingResultNotEmpty},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		m := p.request("ping", nil)
		c.Require(m.Error == nil && isEmptyObject(m.Result), "the result {} ("+p.transport+")", "%s", answered(m))
	})
})

// isEmptyObject reports whether a JSON result is {} (white space aside).
func isEmptyObject(b []byte) bool { return strings.Join(strings.Fields(string(b)), "") == "{}" }
