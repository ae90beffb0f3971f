package http

import (
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// SSE event size, resumption and retry: RM-09, HT-29b, HT-45.

func sseRun(c *run.C, fakeCase string, size int) *run.HTTPClientRun {
	return c.RunHTTPClient(httpfake.Options{Case: fakeCase, SSEEventSize: size}, sseInvocation(c, size))
}

// ssePerMiB is the time an SSE-size run gives the client's call for every
// MiB of the event, beyond the patience: a client without a limit reads
// the whole event before it answers, and on a loaded machine a client
// read 16 MiB in more than 5 s. A client that enforces its limit fails the
// call as soon as it is passed, so the longer timeout costs it nothing.
const ssePerMiB = time.Second

// sseCallTimeout is the call timeout of an SSE-size run of an event of
// size bytes: the patience and ssePerMiB for every MiB.
func sseCallTimeout(c *run.C, size int) time.Duration {
	return c.Options().Patience + time.Duration(size)*ssePerMiB/(1<<20)
}

// sseInvocation gives the adapter of an SSE-size run sseCallTimeout, and a
// deadline that leaves it a patience more to exit.
func sseInvocation(c *run.C, size int) target.Invocation {
	opt := c.Options()
	inv := target.Invocation{CallTimeout: sseCallTimeout(c, size)}
	if d := inv.CallTimeout + opt.Patience; d > opt.CheckDeadline {
		inv.Deadline = d
	}
	return inv
}

// wantSSEBoundary judges the call of an SSE-size run at the declared
// max_sse_event_size (Boundary): accepted, or rejected. A call that failed
// only at its timeout (sseCallTimeout) shows no rejection: a client
// without a limit still reading the event fails the same way, so the
// check is not judged rather than passed.
func wantSSEBoundary(c *run.C, r *run.HTTPClientRun, size int, accept bool) {
	wantReached(c, r)
	ok, observed := run.CallsOK(r.Output, 1)
	expected := fmt.Sprintf("an event of %d raw bytes is accepted", size)
	if !accept {
		ok, expected = len(r.Calls) > 0 && !r.Calls[0].OK(), fmt.Sprintf("an event of %d raw bytes fails the call", size)
		if len(r.Calls) > 0 && r.Calls[0].OK() {
			observed = fmt.Sprintf("tool %q succeeded: the client accepted it", r.Calls[0].Tool)
		}
		timeout := sseCallTimeout(c, size)
		if ok && time.Duration(r.Calls[0].ElapsedMS)*time.Millisecond >= timeout-c.Options().Prompt {
			c.Errorf("tool %q failed after %d ms, at its call timeout (%s: --patience and %s a MiB of the event) rather than on the event of %d bytes, and a client with no limit "+
				"still reading the event fails the same way: not judged; rerun on a less loaded machine or with a longer --patience",
				r.Calls[0].Tool, r.Calls[0].ElapsedMS, timeout, ssePerMiB, size)
		}
	}
	c.Boundary(declared(c).Declared[target.LimitMaxSSEEventSize], target.LimitMaxSSEEventSize, ok, expected, "event of %d bytes: %s", size, observed)
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.sse.exact-limit",
	Title:       "an SSE event of exactly max_sse_event_size raw bytes is accepted",
	Requirement: "One SSE event of exactly max_sse_event_size raw bytes (non-comment lines plus one byte per line break) is accepted.",
	Rules:       []string{"RM-09"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.SSELimitOffByOne},
}, func(c *run.C) {
	size := declared(c).MaxSSEEventSize
	wantSSEBoundary(c, sseRun(c, "sse-event", size), size, true)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.sse.over-limit",
	Title:       "an SSE event one byte over max_sse_event_size is rejected",
	Requirement: "One SSE event larger than max_sse_event_size raw bytes is rejected with an error.",
	Rules:       []string{"RM-09"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.NoSSELimit, mutant.NoSSECap},
}, func(c *run.C) {
	size := declared(c).MaxSSEEventSize + 1
	wantSSEBoundary(c, sseRun(c, "sse-event", size), size, false)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.sse.no-reconnect-after-oversize",
	Title:       "after rejecting an oversize event the client does not resume the stream",
	Requirement: "After an oversize SSE event the stream is not reconnected (no GET with Last-Event-ID).",
	Rules:       []string{"RM-09"},
	KilledBy:    []mutant.Name{mutant.ReconnectAfterOversize},
}, func(c *run.C) {
	r := sseRun(c, "sse-event", declared(c).MaxSSEEventSize+1)
	wantReached(c, r)
	if len(r.Calls) == 0 || r.Calls[0].OK() {
		c.Unimplemented(fmt.Sprintf("the client did not reject the oversize event (calls: %s; see http.client.sse.over-limit), so there was no oversize failure to reconnect after", describeCalls(r.Calls)))
	}
	for _, q := range r.ByMethod("GET") {
		c.Require(q.Header.Get(mcp.HeaderLastEventID) == "", "no GET with Last-Event-ID", "the client resumed with Last-Event-ID: %q", q.Header.Get(mcp.HeaderLastEventID))
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.sse.huge-event-abandoned",
	Title:       "a streamed event half again the limit (24 MiB under 16 MiB) fails the call",
	Requirement: "Memory stays bounded by max_sse_event_size: an event far past it is rejected, not read to its end.",
	Rules:       []string{"RM-09"},
	KilledBy:    []mutant.Name{mutant.NoSSELimit, mutant.NoSSECap},
}, func(c *run.C) {
	size := declared(c).MaxSSEEventSize * 3 / 2
	r := c.RunHTTPClient(httpfake.Options{Case: "sse-huge", SSEEventSize: size}, sseInvocation(c, size))
	wantSSEBoundary(c, r, size, false)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.sse.crlf-split",
	Title:       "CRLF line breaks split across reads count once, so an event of exactly the limit passes",
	Requirement: "CR, LF and CRLF each end a line, even when CR and LF arrive in different reads; one break counts one byte.",
	Rules:       []string{"RM-09"},
	KilledBy:    []mutant.Name{mutant.SSESplitCRLFTwice},
}, func(c *run.C) {
	size := declared(c).MaxSSEEventSize
	wantSSEBoundary(c, sseRun(c, "sse-crlf-split", size), size, true)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.resume.last-event-id",
	Title:       "a response stream dropped before the result is resumed with GET and Last-Event-ID",
	Requirement: "To resume a broken stream the client sends a GET with Last-Event-ID, and the result arrives there.",
	Rules:       []string{"HT-45", "HT-29a"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.NoLastEventID},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "resume", RetryMS: 100}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
})

// retryDelay is the retry field of the resume fake's priming event in
// http.client.resume.retry-delay: long enough to tell from a reconnect at once.
const retryDelay = 400 * time.Millisecond

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.resume.retry-delay",
	Title:       "the client waits the SSE retry delay before reconnecting",
	Requirement: "Before reconnecting, the client waits the number of milliseconds the server's retry field gave.",
	Rules:       []string{"HT-29b"},
	KilledBy:    []mutant.Name{mutant.IgnoreRetryField},
	Waits:       []check.Wait{{What: "the reconnect, which the retry field of the server's priming event delays", Setting: check.Scripted, Duration: retryDelay}},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "resume", RetryMS: int(retryDelay.Milliseconds())}, target.Invocation{})
	var drop, resume time.Time
	for _, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method == "tools/call" && drop.IsZero() {
				drop = q.End
			}
		}
		if q.Method == "GET" && q.Header.Get(mcp.HeaderLastEventID) != "" && resume.IsZero() {
			resume = q.Start
		}
	}
	if resume.IsZero() {
		c.Unimplemented("the client did not resume the stream (see http.client.resume.last-event-id)")
	}
	gap := resume.Sub(drop)
	c.Require(gap >= retryDelay*3/4, fmt.Sprintf("the reconnect comes at least %s after the drop", retryDelay), "it came after %s", gap.Round(time.Millisecond))
})
