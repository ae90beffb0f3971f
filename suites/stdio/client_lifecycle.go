package stdio

import (
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Start-up, era probing, the server's exit and what goes to its stdin:
// NG-09, LC-13, LC-45, ST-02, ST-04.

// slowStartWait is the wait of the checks that run slowStart.
var slowStartWait = check.Wait{What: "the late initialize reply, until the client's startup timeout fails the start",
	Setting: check.ClientLimit, Limit: target.LimitStartupMS}

// slowStart runs the fake that answers initialize well after the client's
// startup timeout.
func slowStart(c *run.C) (*run.ClientRun, time.Duration) {
	startup := c.ClientLimits().Startup
	r := c.RunStdioClient(stdiofake.Options{Case: "slow-start", Delay: startup + 2*time.Second}, target.Invocation{})
	return r, startup
}

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.startup.timeout",
	Title:       "a server that answers initialize too late fails the start with a timeout within the startup budget",
	Requirement: "startup_timeout covers launch until notifications/initialized is sent; a late or missing initialize reply fails the start, not a hang.",
	Rules:       []string{"NG-09", "LC-30"},
	KilledBy:    []mutant.Name{mutant.NoStartupTimeout},
	Waits:       []check.Wait{slowStartWait},
}, func(c *run.C) {
	r, startup := slowStart(c)
	wantHandshakeStarted(c, r)
	failed, after, observed := startFailure(c, r)
	bound := startup + c.Options().Prompt
	c.Boundary(c.ClientLimits().Declared[target.LimitStartupMS], target.LimitStartupMS, failed && after <= bound,
		fmt.Sprintf("the start fails within %s (startup timeout %s)", bound, startup), "%s", observed)
})

// startFailure says whether the client's start against slow-start failed,
// how long after launch, and what was observed.
func startFailure(c *run.C, r *run.ClientRun) (failed bool, after time.Duration, observed string) {
	for _, call := range r.Calls {
		if call.OK() {
			return false, r.Duration, fmt.Sprintf("tool %q succeeded: the client waited for the late initialize reply (the adapter ran %s)",
				call.Tool, r.Duration.Round(time.Millisecond))
		}
	}
	if r.Connect != nil {
		elapsed := ms(r.Connect.ElapsedMS)
		return r.Connect.Outcome == target.OutcomeError, elapsed, fmt.Sprintf("the handshake ended %s after launch with outcome %s", elapsed, r.Connect.Outcome)
	}
	// Without a connect line, the adapter's run less its close.
	after = max(0, r.Duration-2*c.ClientLimits().ShutdownGrace)
	return true, after, fmt.Sprintf("the start failed; the adapter ran %s", r.Duration.Round(time.Millisecond))
}

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.initialize.not-cancelled",
	Title:       "initialize is never cancelled, not even when start-up times out",
	Requirement: "A client never cancels its own initialize request.",
	Rules:       []string{"LC-13", "CN-02"},
	KilledBy:    []mutant.Name{mutant.CancelInitialize},
	Waits:       []check.Wait{slowStartWait},
}, func(c *run.C) {
	r, _ := slowStart(c)
	started := wantHandshakeStarted(c, r)
	inits := r.Record.Requests("initialize")
	if len(inits) == 0 {
		c.Unimplemented(fmt.Sprintf("the client sent %s but no initialize, so it had no initialize to cancel", started))
	}
	if failed, _, observed := startFailure(c, r); !failed {
		c.Unimplemented(observed + "; no start-up timeout fired that could have cancelled initialize (a client that declares startup_timeout_ms is tested below it)")
	}
	id := inits[0].ID
	_, cancelled := cancelledFor(r.Record, id)
	c.Require(!cancelled, "no notifications/cancelled for the initialize request", "the client cancelled initialize (id %s)", id)
})

var _ = eraChoiceCheck(check.Descriptor{
	ID:          "stdio.client.era.legacy-fallback",
	Title:       "a client that probes with server/discover falls back to initialize when a legacy server refuses it",
	Requirement: "A dual-era client treats an error to its server/discover probe as a legacy server and falls back to initialize; it never hangs or gives up.",
	Rules:       []string{"LC-45", "LC-46"},
	Eras:        []check.Era{check.Legacy, check.Modern},
	KilledBy:    []mutant.Name{mutant.DiscoverNoFallback},
}, func(c *run.C) {
	r := c.RunStdioClient(stdiofake.Options{Case: "well-behaved"}, target.Invocation{})
	wantHandshakeStarted(c, r)
	if len(r.Record.Requests("server/discover")) == 0 {
		c.NotApplicable(run.NoDiscoverProbe)
	}
	c.Require(len(r.Record.Requests("initialize")) > 0, "initialize after the refused probe", "the client probed with server/discover and never sent initialize")
	wantAllCallsOK(c, r, 1)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.exit.detected",
	Title:       "a server that exits while a call is pending fails the call at once",
	Requirement: "When the server process exits, pending requests fail at once with a connection failure instead of waiting for their timeouts.",
	Rules:       []string{"ST-16", "LC-30"},
	KilledBy:    []mutant.Name{mutant.IgnoreExit},
}, func(c *run.C) {
	r := c.RunStdioClient(stdiofake.Options{Case: "early-exit"}, target.Invocation{})
	callID(c, r.Record) // the fake exits on the call: without one it never did
	failed, after, observed := callFailure(c, r)
	patience, prompt := c.Options().Patience, c.Options().Prompt
	c.Require(failed && after <= patience+prompt, fmt.Sprintf("the call fails, by its %s timeout at the latest (LC-30)", patience), "%s", observed)
	c.RequireHardened(after <= prompt, fmt.Sprintf("the call fails within %s of the exit, not at its timeout", prompt), "%s", observed)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.stdin.only-jsonrpc",
	Title:       "nothing but one JSON-RPC message per line reaches the server's stdin",
	Requirement: "The client writes only valid JSON-RPC messages to the server's stdin, one per line, with no embedded newline.",
	Rules:       []string{"ST-04", "ST-02", "JR-01", "ST-10"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.StdinBlankLines},
}, func(c *run.C) {
	r := c.RunStdioClient(stdiofake.Options{Case: "well-behaved"}, target.Invocation{})
	wantRead(c, r)
	for i, line := range r.Record.Lines() {
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
	KilledBy:    []mutant.Name{mutant.IDTypeConfusion},
}, func(c *run.C) {
	r := c.RunStdioClient(stdiofake.Options{Case: "id-swap"}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.ids.concurrent-correlation",
	Title:       "concurrent calls answered out of order each get their own reply",
	Requirement: "Responses are routed to their callers by id, whatever their order.",
	Rules:       []string{"NG-12"},
	KilledBy:    []mutant.Name{mutant.FIFOCorrelation},
}, func(c *run.C) {
	const tools = 4
	c.Unordered()
	r := c.RunStdioClient(stdiofake.Options{Case: "reverse-order", Tools: tools}, target.Invocation{Parallel: true})
	if n := callsBeforeFirstAnswer(r.Record); n < tools {
		c.Unimplemented(fmt.Sprintf("only %d of the %d calls were pending together, so the fake could not answer them out of order; %s", n, tools, run.ParallelAsked))
	}
	c.Require(len(r.Calls) == tools, fmt.Sprintf("%d call results", tools), "calls: %s", describeCalls(r.Calls))
	for _, call := range r.Calls {
		wantOK := call.Tool[:3] == "ok-"
		c.Require(call.OK() == wantOK, "ok-* tools succeed and err-* tools fail with their own error replies",
			"tool %q ended %s", call.Tool, call.Outcome)
	}
})

// callsBeforeFirstAnswer counts the tools/call requests the fake received
// before it wrote its first answer to one.
func callsBeforeFirstAnswer(rec *stdiofake.Record) int {
	n, calls := 0, map[string]bool{}
	for _, e := range rec.Events {
		m, err := jsonrpc.Decode([]byte(e.Line))
		if err != nil {
			continue
		}
		switch {
		case e.Type == stdiofake.EventRecv && m.Method == "tools/call":
			n++
			calls[m.ID.Key()] = true
		case e.Type == stdiofake.EventSend && m.Method == "" && calls[m.ID.Key()]:
			return n
		}
	}
	return n
}
