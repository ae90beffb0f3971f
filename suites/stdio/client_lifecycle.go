package stdio

import (
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Start-up, era probing, the server's exit and what goes to its stdin:
// NG-09, LC-13, LC-45, ST-02, ST-04.

// slowStart runs the fake that answers initialize well after the client's
// startup timeout.
func slowStart(c *run.C) (*run.ClientRun, time.Duration) {
	startup := c.ClientLimits().Startup
	r := c.RunStdioClient(fakeservers.Options{Case: "slow-start", Delay: startup + 2*time.Second}, target.Invocation{})
	return r, startup
}

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.startup.timeout",
	Title:       "a server that answers initialize too late fails the start with a timeout within the startup budget",
	Requirement: "startup_timeout covers launch until notifications/initialized is sent; a late or missing initialize reply fails the start, not a hang.",
	Rules:       []string{"NG-09", "LC-30"},
	KilledBy:    killers(mutant.NoStartupTimeout),
}, func(c *run.C) {
	r, startup := slowStart(c)
	bound := startup + c.Config().Prompt
	expected := fmt.Sprintf("the start fails within %s (startup timeout %s)", bound, startup)
	for _, call := range r.Calls {
		c.Require(!call.OK(), expected, "tool %q succeeded: the client waited for the late reply", call.Tool)
	}
	if r.Connect != nil {
		elapsed := time.Duration(r.Connect.ElapsedMS) * time.Millisecond
		c.Require(r.Connect.Outcome == target.OutcomeError && elapsed <= bound, expected,
			"the handshake ended %s after launch with outcome %s", elapsed, r.Connect.Outcome)
		return
	}
	c.Require(r.Duration <= bound+2*c.ClientLimits().ShutdownGrace, expected, "the adapter ran %s", r.Duration.Round(time.Millisecond))
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.initialize.not-cancelled",
	Title:       "initialize is never cancelled, not even when start-up times out",
	Requirement: "A client never cancels its own initialize request.",
	Rules:       []string{"LC-13"},
	KilledBy:    killers(mutant.CancelInitialize),
}, func(c *run.C) {
	r, _ := slowStart(c)
	id := requestID(c, r.Record, "initialize")
	_, cancelled := cancelledFor(r.Record, id)
	c.Require(!cancelled, "no notifications/cancelled for the initialize request", "the client cancelled initialize (id %s)", id)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.era.legacy-fallback",
	Title:       "a client that probes with server/discover falls back to initialize when a legacy server refuses it",
	Requirement: "A dual-era client treats an error to its server/discover probe as a legacy server and falls back to initialize; it never hangs or gives up.",
	Rules:       []string{"LC-45", "LC-46"},
	Eras:        []check.Era{check.Legacy, check.Modern},
	KilledBy:    killers(mutant.DiscoverNoFallback),
}, func(c *run.C) {
	r := c.RunStdioClient(fakeservers.Options{Case: "well-behaved"}, target.Invocation{})
	probed := len(r.Record.Requests("server/discover")) > 0
	inits := len(r.Record.Requests("initialize"))
	c.Require(inits > 0, "initialize after the probe (or without one)", "probed with server/discover: %v; initialize never sent", probed)
	wantAllCallsOK(c, r, 1)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.exit.detected",
	Title:       "a server that exits while a call is pending fails the call at once",
	Requirement: "When the server process exits, pending requests fail at once with a connection failure instead of waiting for their timeouts.",
	Rules:       []string{"ST-16", "LC-30"},
	KilledBy:    killers(mutant.IgnoreExit),
}, func(c *run.C) {
	r := c.RunStdioClient(fakeservers.Options{Case: "early-exit"}, target.Invocation{})
	wantCallFailedWithin(c, r, c.Config().Prompt, "the server exited")
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.stdin.only-jsonrpc",
	Title:       "nothing but one JSON-RPC message per line reaches the server's stdin",
	Requirement: "The client writes only valid JSON-RPC messages to the server's stdin, one per line, with no embedded newline.",
	Rules:       []string{"ST-04", "ST-02", "JR-01"},
	KilledBy:    killers(mutant.StdinBlankLines),
}, func(c *run.C) {
	r := c.RunStdioClient(fakeservers.Options{Case: "well-behaved"}, target.Invocation{})
	lines := r.Record.Lines()
	c.Require(len(lines) > 0, "the client writes messages", "the server received nothing")
	for i, line := range lines {
		_, err := jsonrpc.Decode([]byte(line))
		c.Require(err == nil, "every stdin line is one JSON-RPC message",
			"line %d (%d bytes) is not: %v", i+1, len(line), err)
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.ids.type-kept",
	Title:       "a reply whose id has the other JSON type (\"7\" for 7) is not taken for the call's answer",
	Requirement: "Responses are routed to their callers by id, with 2 and \"2\" distinct ids.",
	Rules:       []string{"NG-12"},
	KilledBy:    killers(mutant.IDTypeConfusion),
}, func(c *run.C) {
	r := c.RunStdioClient(fakeservers.Options{Case: "id-swap"}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.ids.concurrent-correlation",
	Title:       "concurrent calls answered out of order each get their own reply",
	Requirement: "Responses are routed to their callers by id, whatever their order.",
	Rules:       []string{"NG-12", "JR-07"},
	KilledBy:    killers(mutant.FIFOCorrelation),
}, func(c *run.C) {
	const tools = 4
	c.Unordered()
	r := c.RunStdioClient(fakeservers.Options{Case: "reverse-order", Tools: tools}, target.Invocation{Parallel: true})
	c.Require(len(r.Calls) == tools, fmt.Sprintf("%d call results", tools), "calls: %s", describeCalls(r.Calls))
	for _, call := range r.Calls {
		wantOK := call.Tool[:3] == "ok-"
		c.Require(call.OK() == wantOK, "ok-* tools succeed and err-* tools fail with their own error replies",
			"tool %q ended %s", call.Tool, call.Outcome)
	}
})
