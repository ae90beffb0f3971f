package http

import (
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Cancellation over HTTP: HT-26, CN-01, CN-03, CN-06.

// cancelTimeout is the call timeout of the cancellation check: the fake
// answers the first call only once it is cancelled.
const cancelTimeout = 300 * time.Millisecond

var _ = clientCheck(check.Descriptor{
	ID:    "http.client.cancel.notification",
	Title: "a timed-out call is cancelled with a notifications/cancelled POST naming its id, and its late answer is ignored",
	Requirement: "A client that gives up a call POSTs notifications/cancelled for it, rather than only dropping the connection; every cancel names, in requestId, " +
		"a request the client itself sent earlier; an answer to the cancelled request that still arrives is ignored, so the next call succeeds.",
	Rules:    []string{"HT-26", "LC-31", "CN-01", "CN-03", "CN-06"},
	Level:    check.SHOULD,
	KilledBy: []mutant.Name{mutant.NoCancelNotification, mutant.CancelUnissuedID, mutant.CancelNoRequestID},
	Waits: []check.Wait{
		{What: "the answer to the call the fake answers only once it is cancelled, until the call timeout the check gives the client", Setting: check.Scripted, Duration: cancelTimeout},
		{What: "the cancel, then the late answer, the fake waits for before it answers the next call", Setting: check.Prompt, Times: 2},
	},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "cancel-then-echo", Delay: c.Options().Prompt}, target.Invocation{CallTimeout: cancelTimeout})
	wantReached(c, r)
	slow, ok := firstCall(r, "slow")
	c.Require(ok, "a tools/call of slow, the first tool", "calls: %s", describeCalls(r.Calls))
	if r.Count("notifications/cancelled") == 0 && slow.Aborted && len(r.Calls) > 0 && !r.Calls[0].OK() {
		c.RequireRule("HT-26", false, "the call the client gave up is cancelled with a notifications/cancelled POST: a dropped connection is not a cancellation",
			"the client dropped the POST of the call (after %s) and POSTed no notifications/cancelled (calls: %s)", slow.End.Sub(slow.Start).Round(time.Millisecond), describeCalls(r.Calls))
	}
	wantCancelSent(c, r, cancelTimeout)
	c.RequireCancelsOwnRequests("http", sentMessages(r))
	if slow.Status == 200 && !slow.Aborted {
		c.Require(len(r.Calls) > 1, "a call of echo after the cancelled one", "calls: %s", describeCalls(r.Calls))
		c.RequireLateAnswerIgnored("http", r.Calls[1])
		return
	}
	c.Note("the client left the POST of the call it cancelled, so the fake's late answer never reached it: whether it ignores one (CN-06) was not observed")
})

// firstCall is the record of the first POST carrying a tools/call of tool.
func firstCall(r *run.HTTPClientRun, tool string) (httpfake.Request, bool) {
	for _, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method == "tools/call" && toolName(m) == tool {
				return q, true
			}
		}
	}
	return httpfake.Request{}, false
}

// sentMessages is every message the client POSTed, in the order the POSTs
// arrived.
func sentMessages(r *run.HTTPClientRun) []*jsonrpc.Message {
	var out []*jsonrpc.Message
	for _, q := range r.Requests {
		out = append(out, q.Messages...)
	}
	return out
}
