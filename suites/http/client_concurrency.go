package http

import (
	"cmp"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Request concurrency and the control queue: RM-01 … RM-03.

// slowCall is how long the slow fakes hold each call: long enough for every
// concurrent call to be in flight at once.
const slowCall = 300 * time.Millisecond

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.concurrency.limit",
	Title:       "concurrent calls never exceed max_concurrent_requests ordinary POSTs, and reach it",
	Requirement: "At most max_concurrent_requests ordinary POSTs are in progress at once.",
	Rules:       []string{"RM-01"},
	KilledBy:    []mutant.Name{mutant.NoConcurrencyLimit, mutant.NoConcurrencyCap},
	Waits: []check.Wait{{What: "the calls the fake holds, max_concurrent_requests at a time: two rounds (more for a limit below 3)",
		Setting: check.Scripted, Duration: slowCall, Times: 2}},
}, func(c *run.C) {
	l := declared(c)
	limit := l.MaxConcurrent
	c.Unordered()
	r := c.RunHTTPClient(httpfake.Options{Case: "slow-calls", Tools: limit + 3, Delay: slowCall}, target.Invocation{Parallel: true})
	wantAllCallsOK(c, r, limit+3)
	wantParallel(c, r, slowCall)
	c.Boundary(l.Declared[target.LimitMaxConcurrent], target.LimitMaxConcurrent, r.MaxConcurrent == limit,
		fmt.Sprintf("a peak of exactly %d POSTs in progress", limit), "a peak of %d POSTs in progress for %d concurrent calls", r.MaxConcurrent, limit+3)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.concurrency.zero-means-one",
	Title:       "max_concurrent_requests 0 runs POSTs one at a time",
	Requirement: "A max_concurrent_requests of 0 means 1.",
	Rules:       []string{"RM-01"},
	KilledBy:    []mutant.Name{mutant.ConcurrencyZeroUnlimited},
	Waits:       []check.Wait{{What: "the three calls the fake holds, one at a time", Setting: check.Scripted, Duration: slowCall / 3, Times: 3}},
}, func(c *run.C) {
	c.Unordered()
	r := c.RunHTTPClient(httpfake.Options{Case: "slow-calls", Tools: 3, Delay: slowCall / 3},
		target.Invocation{Parallel: true, Limits: map[string]any{target.LimitMaxConcurrent: 0}})
	if v, ok := r.Int(target.LimitMaxConcurrent); !ok || v != 0 {
		c.Unimplemented(fmt.Sprintf("the adapter does not honour %s {%q: 0}", target.EnvLimits, target.LimitMaxConcurrent))
	}
	wantAllCallsOK(c, r, 3)
	wantParallel(c, r, slowCall/3)
	c.Require(r.MaxConcurrent == 1, "one POST in progress at a time", "a peak of %d", r.MaxConcurrent)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.concurrency.sse-releases-slot",
	Title:       "a POST whose response turns into SSE stops counting against the limit",
	Requirement: "A POST stops counting when its response headers say text/event-stream.",
	Rules:       []string{"RM-01"},
	KilledBy:    []mutant.Name{mutant.SSEHoldsSlot},
	Waits:       []check.Wait{{What: "the results of the calls, which the fake sends a while after their streams open", Setting: check.Scripted, Duration: slowCall}},
}, func(c *run.C) {
	l := declared(c)
	limit := l.MaxConcurrent
	c.Unordered()
	tools := limit + 2
	r := c.RunHTTPClient(httpfake.Options{Case: "sse-early", Tools: tools, Delay: slowCall}, target.Invocation{Parallel: true})
	wantAllCallsOK(c, r, tools)
	wantParallel(c, r, slowCall)
	c.Boundary(l.Declared[target.LimitMaxConcurrent], target.LimitMaxConcurrent, r.MaxConcurrent == tools,
		fmt.Sprintf("all %d calls open at once (their responses stream)", tools), "a peak of %d of %d calls open at once (the limit is %d)", r.MaxConcurrent, tools, limit)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.control.bypass",
	Title:       "replies to server requests do not wait behind ordinary POSTs at capacity",
	Requirement: "Control traffic (cancellations, replies to server requests) uses a separate queue with one extra slot and never waits behind ordinary POSTs.",
	Rules:       []string{"RM-02", "HT-21"},
	KilledBy:    []mutant.Name{mutant.ControlWaitsBehindPOSTs},
}, func(c *run.C) {
	// One call more than the limit: the fake holds the others, headers
	// unsent, until the first call's server request is answered, so every
	// ordinary slot is busy when the reply must go out.
	l := declared(c)
	tools := l.MaxConcurrent + 1
	hold := 2 * time.Second
	c.Unordered()
	r := c.RunHTTPClient(httpfake.Options{Case: "server-request", Tools: tools, Delay: hold}, target.Invocation{Parallel: true})
	c.Require(len(r.Calls) == tools, fmt.Sprintf("%d call results", tools), "calls: %s", describeCalls(r.Calls))
	if r.MaxConcurrent < min(l.MaxConcurrent, tools) {
		c.Unimplemented(fmt.Sprintf("a peak of %d POSTs in progress: the ordinary slots (%d) were never all busy, so the reply had nothing to wait behind; %s",
			r.MaxConcurrent, l.MaxConcurrent, run.ParallelAsked))
	}
	late := ""
	for _, call := range r.Calls {
		if !call.OK() || time.Duration(call.ElapsedMS)*time.Millisecond >= hold {
			late = fmt.Sprintf("tool %q ended %s after %d ms", call.Tool, call.Outcome, call.ElapsedMS)
			break
		}
	}
	c.Boundary(l.Declared[target.LimitMaxConcurrent], target.LimitMaxConcurrent, late == "",
		fmt.Sprintf("every call completes before the fake's %s fallback (its reply to the server's request came at once)", hold),
		"%s (%d calls, a peak of %d POSTs in progress)", cmp.Or(late, "every call completed at once"), tools, r.MaxConcurrent)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.control.timeout",
	Title:       "a cancellation POST that hangs is given up after control_request_timeout",
	Requirement: "A control POST runs at most control_request_timeout after it starts; the call that timed out is cancelled with one (LC-31, a SHOULD).",
	Rules:       []string{"RM-03"},
	KilledBy:    []mutant.Name{mutant.NoControlTimeout, mutant.NoCancelNotification},
	Waits: []check.Wait{
		{What: "the two calls the fake never answers, for the control_request_timeout_ms in each call's timeout",
			Setting: check.ClientLimit, Limit: target.LimitControlRequestMS, Times: 2},
		{What: "the two calls the fake never answers, for the prompt the check adds to each call's timeout", Setting: check.Prompt, Times: 2},
	},
}, func(c *run.C) {
	// Two calls time out one after the other; a cancellation POST that is
	// never given up runs on until the client closes, a call timeout later.
	l := declared(c)
	control := l.Control
	callTimeout := control + c.Options().Prompt
	r := c.RunHTTPClient(httpfake.Options{Case: "control-hang", Tools: 2}, target.Invocation{CallTimeout: callTimeout})
	wantCancelSent(c, r, callTimeout)
	var cancels []httpfake.Request
	for _, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method == "notifications/cancelled" {
				cancels = append(cancels, q)
			}
		}
	}
	first := cancels[0]
	took := first.End.Sub(first.Start)
	bound := control + c.Options().Prompt/4
	c.Boundary(l.Declared[target.LimitControlRequestMS], target.LimitControlRequestMS, first.Aborted && took <= bound,
		fmt.Sprintf("the cancellation POST is abandoned within %s (control_request_timeout %s)", bound, control),
		"the cancellation POST ran %s (abandoned by the client: %v)", took.Round(time.Millisecond), first.Aborted)
})
