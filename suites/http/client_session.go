package http

import (
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Expired sessions: RM-04 … RM-08, HT-57.

// expiredOnce runs a client whose session expires after its handshake and
// tool list, so its first call meets 404.
func expiredOnce(c *run.C) *run.HTTPClientRun {
	return c.RunHTTPClient(fakeservers.HTTPOptions{Case: "expire-after", ExpireAfter: 2}, target.Invocation{})
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.reinit-after-404",
	Title:       "a call that meets 404 on an expired session succeeds after a fresh initialize",
	Requirement: "On a 404 to a request that carried a session id, the client starts a new session with a fresh initialize and retries the request.",
	Rules:       []string{"HT-57", "RM-04", "RM-05"},
	KilledBy:    killers(mutant.NoReinit, mutant.NoRetryAfterReinit),
}, func(c *run.C) {
	r := expiredOnce(c)
	c.Require(r.Count("initialize") == 2, "a second initialize", "%d initialize request(s)", r.Count("initialize"))
	// HT-57 asks for the fresh initialize only; the retry is RM-05's.
	c.RequireHardened(len(r.Calls) == 1 && r.Calls[0].OK(), "the call succeeds: it is retried on the new session (RM-05)",
		"calls: %s", describeCalls(r.Calls))
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.reinit-without-session-id",
	Title:       "the fresh initialize after a 404 carries no session id",
	Requirement: "The new handshake after session expiry is sent without any Mcp-Session-Id header.",
	Rules:       []string{"HT-57", "RM-05"},
	KilledBy:    killers(mutant.ReinitKeepsSessionID),
}, func(c *run.C) {
	r := expiredOnce(c)
	inits := initializeRequests(r)
	c.Require(len(inits) >= 2, "a second initialize", "%d initialize request(s)", len(inits))
	for i, q := range inits {
		c.Require(q.SessionID == "", "no Mcp-Session-Id on any initialize", "initialize %d carried session id %q", i+1, q.SessionID)
	}
})

// inflightExpiry has every concurrent call meet 404 at once.
func inflightExpiry(c *run.C) (*run.HTTPClientRun, int) {
	n := min(declared(c).MaxConcurrent, 3)
	c.Unordered()
	r := c.RunHTTPClient(fakeservers.HTTPOptions{Case: "expire-inflight", Tools: n, Delay: 2 * time.Second}, target.Invocation{Parallel: true})
	wantAllCallsOK(c, r, n)
	return r, n
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.one-recovery",
	Title:       "concurrent calls that meet 404 share one recovery",
	Requirement: "All ordinary POSTs that fail with session-expired in the same session share one recovery: one new initialize.",
	Rules:       []string{"RM-05"},
	KilledBy:    killers(mutant.RecoveryPerRequest, mutant.NoRetryAfterReinit),
}, func(c *run.C) {
	r, n := inflightExpiry(c)
	c.Require(r.Count("initialize") == 2, fmt.Sprintf("exactly one re-initialize for %d expired calls", n), "%d initialize request(s)", r.Count("initialize"))
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.retry-original-ids",
	Title:       "each expired call is retried once, with its original JSON-RPC id",
	Requirement: "Each ordinary POST that failed with session-expired is retried once, with its original JSON-RPC id, on the new session.",
	Rules:       []string{"RM-05"},
	KilledBy:    killers(mutant.RetryNewIDs, mutant.NoRetryAfterReinit),
}, func(c *run.C) {
	r, n := inflightExpiry(c)
	for i := 1; i <= n; i++ {
		tool := fmt.Sprintf("slow-%d", i)
		ids := callIDs(r, tool)
		c.Require(len(ids) == 2 && ids[0] == ids[1], fmt.Sprintf("tool %s sent twice with one id", tool), "ids %v", ids)
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.no-second-retry",
	Title:       "a retry that meets 404 again fails the call, without a loop",
	Requirement: "A retry that meets 404 again returns an error to the caller; there is no second retry.",
	Rules:       []string{"RM-08"},
	KilledBy:    killers(mutant.RetryTwice, mutant.NoRetryAfterReinit),
}, func(c *run.C) {
	r := c.RunHTTPClient(fakeservers.HTTPOptions{Case: "expire-again"}, target.Invocation{})
	wantCallFailed(c, r, "the session expires again")
	calls := len(callIDs(r, "echo"))
	c.Require(calls == 2, "the call is sent twice: once, and one retry", "sent %d time(s)", calls)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.recovery-timeout",
	Title:       "an old call still running when the recovery wait ends fails and is not replayed",
	Requirement: "An old POST still unfinished when the recovery wait ends fails with a recovery-timeout error and is not retried.",
	Rules:       []string{"RM-07", "RM-05"},
	KilledBy:    killers(mutant.NoRecoveryWait),
}, func(c *run.C) {
	recovery := declared(c).Recovery
	c.Unordered()
	r := c.RunHTTPClient(fakeservers.HTTPOptions{Case: "expire-old-pending", Delay: recovery + 2*time.Second}, target.Invocation{Parallel: true})
	var old *target.Call
	for i := range r.Calls {
		if r.Calls[i].Tool == "old" {
			old = &r.Calls[i]
		}
	}
	c.Require(old != nil && !old.OK(), "the old call fails", "calls: %s", describeCalls(r.Calls))
	sent := len(callIDs(r, "old"))
	c.Require(sent == 1, "the old call is never replayed (the server may have run it)", "sent %d times", sent)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.stateless",
	Title:       "an initialize reply without a session id is accepted or refused as allow_stateless says",
	Requirement: "With allow_stateless an initialize reply without a session id is accepted and later requests carry none; without it that reply is an error.",
	Rules:       []string{"RM-10"},
	KilledBy:    killers(mutant.StatelessIgnored),
}, func(c *run.C) {
	fake := fakeservers.HTTPOptions{Case: "stateless", Stateless: true}
	allow := declared(c).AllowStateless
	wantStateless(c, c.RunHTTPClient(fake, target.Invocation{}), allow)
	// The other setting too, when the adapter honours the override.
	other := map[bool]int{true: 1, false: 0}[!allow]
	r := c.RunHTTPClient(fake, target.Invocation{Limits: map[string]any{target.LimitAllowStateless: other}})
	if v, ok := r.Int(target.LimitAllowStateless); ok && v == int64(other) {
		wantStateless(c, r, !allow)
	}
})

// wantStateless judges a run against a server that issues no session id:
// accepted when allow, else refused before any call.
func wantStateless(c *run.C, r *run.HTTPClientRun, allow bool) {
	if allow {
		wantAllCallsOK(c, r, 1)
		return
	}
	refused := (r.Connect != nil && r.Connect.Outcome == target.OutcomeError) || (len(r.Calls) == 0 && r.Connect == nil)
	c.Require(refused && r.Count("tools/call") == 0, "the handshake fails (allow_stateless is off) and no call is sent",
		"connect: %+v; %d tools/call sent", r.Connect, r.Count("tools/call"))
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.close.delete",
	Title:       "closing the client ends its session with one DELETE",
	Requirement: "Closing the client ends its session with one DELETE carrying the session id.",
	Rules:       []string{"RM-13", "HT-58"},
	Level:       check.SHOULD,
	KilledBy:    killers(mutant.NoDeleteOnClose),
}, func(c *run.C) {
	r := c.RunHTTPClient(fakeservers.HTTPOptions{Case: "well-behaved"}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
	deletes := r.ByMethod("DELETE")
	c.Require(len(deletes) == 1 && deletes[0].SessionID != "", "one DELETE with the session id", "%d DELETE(s)", len(deletes))
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.no-control-retry",
	Title:       "a cancellation that meets the expired session is not retried on the new one",
	Requirement: "Control POSTs (cancellations, replies) are never retried after session expiry.",
	Rules:       []string{"RM-06", "RM-02"},
	KilledBy:    killers(mutant.RetryControl),
}, func(c *run.C) {
	// The first call meets 404 and the new handshake takes D; the call
	// times out at 0.8 D and is cancelled on the dead session. The second
	// call waits for the new session and is answered 0.2 D after it, by
	// when a client that retries control traffic has replayed the
	// cancellation.
	d := declared(c).Recovery / 2
	r := c.RunHTTPClient(fakeservers.HTTPOptions{Case: "recovery-hangs", Tools: 2, Delay: d},
		target.Invocation{CallTimeout: d * 4 / 5})
	c.Require(r.Count("notifications/cancelled") > 0, "the first call is cancelled during the recovery", "no cancellation was POSTed")
	cancels := r.Count("notifications/cancelled")
	c.Require(cancels <= 1, "at most one notifications/cancelled", "%d were POSTed", cancels)
})
