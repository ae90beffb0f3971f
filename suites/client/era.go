package client

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Where the eras meet: LC-43, LC-45, LC-46, HT-92.

var _ = eraChoiceCheck(check.Descriptor{
	ID:    "client.era.fallback",
	Title: "a client of both eras left to choose reaches a legacy-only server; a legacy client is refused clearly by a modern-only one",
	Requirement: "A client that claims both eras, left to choose (MCPCONFORM_ERA unset), falls back to initialize and completes its calls " +
		"when a legacy server refuses its server/discover probe, whatever the error (LC-45, LC-46, HT-92); a client speaking the legacy era " +
		"to a server of 2026-07-28 alone fails to connect, without hanging, and says which versions the server serves (LC-43).",
	Rules:    []string{"LC-45", "LC-46", "HT-92", "LC-43"},
	Eras:     []check.Era{check.Legacy, check.Modern},
	KilledBy: []mutant.Name{mutant.RefusalUnexplained, mutant.NoEraFallback},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		wantClearRefusal(c, t)
		wantFallback(c, t)
	})
})

// wantClearRefusal runs the client told the legacy era against a fake of
// 2026-07-28 alone, which refuses initialize with -32022 naming the version
// it serves (LC-48): the client's start must fail, saying so.
func wantClearRefusal(c *run.C, t check.Transport) {
	if !c.ClaimsEra(t, check.Legacy) {
		c.Note("over %s the client claims no legacy era, so it was not run against a server of 2026-07-28 alone", t)
		return
	}
	x := runOver(c, t, fake{Case: "well-behaved", Era: fakeservers.Modern}, target.Invocation{Era: target.EraLegacy})
	wantReached(c, t, x)
	if x.count(mcp.MethodDiscover) > 0 && slices.ContainsFunc(x.Calls, target.Call.OK) {
		c.Note("over %s the client, told %s=%s, spoke 2026-07-28 all the same, so the refusal of a legacy client was not exercised", t, target.EnvEra, target.EraLegacy)
		return
	}
	step, text := failure(x.Output)
	if step == "" {
		c.Unimplemented(fmt.Sprintf(`over %s the adapter reported no failed step (no connect line, no tool line), so the refusal was not seen; it must print {"connect":{"outcome":"error","error":…}} when its client cannot connect`, t))
	}
	c.Require(step != "ok", "the start fails: a server of 2026-07-28 alone serves no legacy client",
		"told %s=%s, the client's calls succeeded against a server that refuses initialize", target.EnvEra, target.EraLegacy)
	c.RequireHardened(strings.Contains(text, mcp.ModernVersion),
		fmt.Sprintf("the failure says which versions the server serves (%s, from its -32022 answer to initialize)", mcp.ModernVersion),
		"the %s failed with %q", step, text)
}

// failure says which step of the adapter's run failed first and with what:
// "connect" or "list" with its error, "tool" with the first failed call's,
// "ok" when every step it reported succeeded, "" when it reported none.
func failure(o target.Output) (step, text string) {
	if name, p := o.Failed(); p != nil {
		return name, p.Error
	}
	for _, call := range o.Calls {
		if !call.OK() {
			return "tool", call.Error
		}
	}
	if len(o.Calls) > 0 || o.Connect != nil {
		return "ok", ""
	}
	return "", ""
}

// wantFallback runs a client that claims both eras, left to choose,
// against a legacy fake that refuses whatever comes before initialize with
// -32600 (over HTTP, 400 with that error: no 2026-07-28 one): the client
// must fall back to initialize and complete its calls.
func wantFallback(c *run.C, t check.Transport) {
	if !c.ClaimsEra(t, check.Legacy) || !c.ClaimsEra(t, check.Modern) {
		c.Note("over %s the client does not claim both eras, so its fallback from the modern era to the legacy one (LC-45) was not asked for", t)
		return
	}
	x := runOver(c, t, fake{Case: "well-behaved", StrictInit: true}, target.Invocation{})
	wantReached(c, t, x)
	probes := x.count(mcp.MethodDiscover)
	c.Require(x.count("initialize") > 0, "initialize after the refused server/discover probe (-32600, not -32601: the fallback is never keyed to one code)",
		"the client sent %d server/discover probe(s) and no initialize", probes)
	c.WantAllCallsOK(x.Output, 1)
	if x.Connect != nil && x.Connect.Era != "" {
		c.Require(x.Connect.Era == target.EraLegacy, "the connect line says the client chose the legacy era",
			"it says %q", x.Connect.Era)
	}
}

// wantReached ends the check as the adapter's harness error when the fake
// over t received nothing: its client never reached the server it was given.
func wantReached(c *run.C, t check.Transport, x *exchange) {
	if !x.Reached && x.Breach() == "" {
		what := target.EnvServerCommand
		if t == check.HTTP {
			what = target.EnvServerURL
		}
		c.Errorf("over %s the server in %s received nothing (the adapter exited %d): the adapter must connect its client to it", t, what, x.ExitCode)
	}
}
