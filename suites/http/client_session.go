package http

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Expired sessions: RM-04 … RM-08, HT-57.

// expiredOnce runs a client whose session expires after its handshake and
// tool list, so its first call meets 404.
func expiredOnce(c *run.C) *run.HTTPClientRun {
	return c.RunHTTPClient(httpfake.Options{Case: "expire-after", ExpireAfter: 2}, target.Invocation{})
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.reinit-after-404",
	Title:       "a call that meets 404 on an expired session succeeds after a fresh initialize",
	Requirement: "On a 404 to a request that carried a session id, the client starts a new session with a fresh initialize (HT-57); the seed's recovery also retries the request on it (RM-05).",
	Rules:       []string{"HT-57", "RM-04", "RM-05"},
	KilledBy:    []mutant.Name{mutant.NoReinit, mutant.NoRetryAfterReinit},
}, func(c *run.C) {
	r := expiredOnce(c)
	wantExpiry(c, r)
	inits := r.Count("initialize")
	c.Require(inits >= 2, "a fresh initialize after the 404", "%d initialize request(s)", inits)
	if !declared(c).Reinit {
		return // the client declares it does not retry (reinit_on_expired_session 0): RM-05 does not apply
	}
	ok, observed := run.CallsOK(r.Output, 1)
	c.RequireHardened(ok, "the call is retried on the new session and succeeds (RM-05)", "%s", observed)
	c.RequireHardened(inits == 2, "exactly one re-initialize (RM-05, RM-08)", "%d initialize request(s)", inits)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.reinit-without-session-id",
	Title:       "the fresh initialize after a 404 carries no session id",
	Requirement: "The new handshake after session expiry is sent without any Mcp-Session-Id header.",
	Rules:       []string{"HT-57", "RM-05"},
	KilledBy:    []mutant.Name{mutant.ReinitKeepsSessionID},
}, func(c *run.C) {
	r := expiredOnce(c)
	wantExpiry(c, r)
	inits := initializeRequests(r)
	if len(inits) < 2 {
		// The missing handshake is HT-57's failure, which
		// http.client.session.reinit-after-404 reports; the header of a
		// handshake that never came was not observed.
		c.NotApplicable(fmt.Sprintf("the client sent %d initialize request(s) and no fresh one after the 404, so there was no second initialize to carry or omit the session id (the missing handshake is http.client.session.reinit-after-404's failure)", len(inits)))
	}
	for i, q := range inits {
		c.Require(q.SessionID == "", "no Mcp-Session-Id on any initialize", "initialize %d carried session id %q", i+1, q.SessionID)
	}
})

// inflightExpiry has every concurrent call meet 404 at once.
func inflightExpiry(c *run.C) (*run.HTTPClientRun, int) {
	requireRecovery(c)
	n := min(declared(c).MaxConcurrent, 3)
	c.Unordered()
	r := c.RunHTTPClient(httpfake.Options{Case: "expire-inflight", Tools: n, Delay: 2 * time.Second}, target.Invocation{Parallel: true})
	wantExpiry(c, r)
	wantAllCallsOK(c, r, n)
	if n > 1 {
		wantParallel(c, r, 2*time.Second)
	}
	return r, n
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.one-recovery",
	Title:       "concurrent calls that meet 404 share one recovery",
	Requirement: "All ordinary POSTs that fail with session-expired in the same session share one recovery: one new initialize.",
	Rules:       []string{"RM-05"},
	KilledBy:    []mutant.Name{mutant.RecoveryPerRequest, mutant.NoRetryAfterReinit},
}, func(c *run.C) {
	r, n := inflightExpiry(c)
	c.Require(r.Count("initialize") == 2, fmt.Sprintf("exactly one re-initialize for %d expired calls", n), "%d initialize request(s)", r.Count("initialize"))
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.retry-original-ids",
	Title:       "each expired call is retried once, with its original JSON-RPC id",
	Requirement: "Each ordinary POST that failed with session-expired is retried once, with its original JSON-RPC id, on the new session.",
	Rules:       []string{"RM-05"},
	KilledBy:    []mutant.Name{mutant.RetryNewIDs, mutant.NoRetryAfterReinit},
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
	KilledBy:    []mutant.Name{mutant.RetryTwice},
}, func(c *run.C) {
	requireRecovery(c)
	r := c.RunHTTPClient(httpfake.Options{Case: "expire-again"}, target.Invocation{})
	wantExpiry(c, r)
	wantCallFailed(c, r, "the session expires again")
	calls := len(callIDs(r, "echo"))
	if calls == 1 {
		// No retry at all cannot loop; the missing retry is RM-05's, which
		// http.client.session.reinit-after-404 judges.
		c.Unimplemented("the client did not retry the call after the 404, so there was no retry to meet 404 again (the retry itself is judged by http.client.session.reinit-after-404)")
	}
	c.Require(calls == 2, "the call is sent twice: once, and one retry", "sent %d time(s)", calls)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.recovery-timeout",
	Title:       "an old call still running when the recovery wait ends fails and is not replayed",
	Requirement: "An old POST still unfinished when the recovery wait ends fails with a recovery-timeout error and is not retried.",
	Rules:       []string{"RM-07", "RM-05"},
	KilledBy:    []mutant.Name{mutant.NoRecoveryWait},
	Waits: []check.Wait{{What: "the old call the fake holds past the recovery wait, until session_recovery_timeout_ms fails it",
		Setting: check.ClientLimit, Limit: target.LimitSessionRecoveryMS}},
}, func(c *run.C) {
	requireRecovery(c)
	l := declared(c)
	c.Unordered()
	r := c.RunHTTPClient(httpfake.Options{Case: "expire-old-pending", Delay: l.Recovery + 2*time.Second}, target.Invocation{Parallel: true})
	wantExpiry(c, r)
	if !oldPendingAtExpiry(r) {
		c.Unimplemented("the old call was not in progress when the other call met the expired session, so no recovery had to wait for it; " + run.ParallelAsked)
	}
	sent := len(callIDs(r, "old"))
	c.Require(sent == 1, "the old call is never replayed (the server may have run it)", "sent %d times", sent)
	var old *target.Call
	for i := range r.Calls {
		if r.Calls[i].Tool == "old" {
			old = &r.Calls[i]
		}
	}
	c.Boundary(l.Declared[target.LimitSessionRecoveryMS], target.LimitSessionRecoveryMS, old != nil && !old.OK(),
		fmt.Sprintf("the old call fails once the recovery wait (%s) ends", l.Recovery), "calls: %s", describeCalls(r.Calls))
})

// oldPendingAtExpiry reports whether the "old" call's POST was in progress
// when another request met 404 (was answered with it).
func oldPendingAtExpiry(r *run.HTTPClientRun) bool {
	var old *httpfake.Request
	for i, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method == "tools/call" && toolName(m) == "old" && old == nil {
				old = &r.Requests[i]
			}
		}
	}
	if old == nil {
		return false
	}
	for _, q := range r.Requests {
		if q.Status == 404 && q.End.After(old.Start) && (old.End.IsZero() || old.End.After(q.End)) {
			return true
		}
	}
	return false
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.stateless",
	Title:       "an initialize reply without a session id is accepted or refused as allow_stateless says",
	Requirement: "With allow_stateless an initialize reply without a session id is accepted and later requests carry none; without it that reply is an error.",
	Rules:       []string{"RM-10"},
	KilledBy:    []mutant.Name{mutant.StatelessIgnored},
}, func(c *run.C) {
	l := declared(c)
	fake := httpfake.Options{Case: "stateless", Stateless: true}
	wantStateless(c, c.RunHTTPClient(fake, target.Invocation{}), l.AllowStateless, l.Declared[target.LimitAllowStateless])
	// The other setting too, when the adapter honours the override.
	other := map[bool]int{true: 1, false: 0}[!l.AllowStateless]
	r := c.RunHTTPClient(fake, target.Invocation{Limits: map[string]any{target.LimitAllowStateless: other}})
	if v, ok := r.Int(target.LimitAllowStateless); ok && v == int64(other) {
		wantStateless(c, r, !l.AllowStateless, true)
	}
})

// wantStateless judges a run against a server that issues no session id:
// accepted when allow, else refused before any call. The spec lets a
// server issue no session id (HT-50): a client that accepts one is right by
// it; refusing is the seed's allow_stateless 0, judged as declared.
func wantStateless(c *run.C, r *run.HTTPClientRun, allow, declared bool) {
	wantReached(c, r)
	accepted, observed := run.CallsOK(r.Output, 1)
	if accepted {
		observed = "the client accepted the reply without a session id and its call succeeded"
		for _, q := range r.Requests {
			c.Require(q.SessionID == "", "later requests carry no session id", "a %s carried %q", q.Method, q.SessionID)
		}
	}
	refused := !accepted && r.Count("tools/call") == 0
	want, expected := refused, "the handshake fails (allow_stateless is off) and no call is sent"
	if allow {
		want, expected = accepted, "the reply without a session id is accepted and the call succeeds (allow_stateless is on)"
	}
	c.Boundary(declared, target.LimitAllowStateless, want, expected, "%s; %d tools/call sent", observed, r.Count("tools/call"))
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.close.delete",
	Title:       "closing the client ends its session with one DELETE",
	Requirement: "Closing the client ends its session with one DELETE carrying the session id.",
	Rules:       []string{"RM-13", "HT-58"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.NoDeleteOnClose},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "well-behaved"}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
	deletes := r.ByMethod("DELETE")
	withID := slices.ContainsFunc(deletes, func(q httpfake.Request) bool { return q.SessionID != "" })
	c.Require(withID, "a DELETE with the session id (HT-58)", "%d DELETE(s), none with the session id", len(deletes))
	c.RequireHardened(len(deletes) == 1, "exactly one DELETE (RM-13)", "%d DELETE(s)", len(deletes))
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.no-control-retry",
	Title:       "a cancellation that meets the expired session is not retried on the new one",
	Requirement: "Control POSTs (cancellations, replies) are never retried after session expiry; the call that timed out is cancelled with one (LC-31, a SHOULD).",
	Rules:       []string{"RM-06", "RM-02"},
	KilledBy:    []mutant.Name{mutant.RetryControl, mutant.NoCancelNotification},
	Waits: []check.Wait{
		{What: "the new handshake, which the fake delays by half session_recovery_timeout_ms",
			Setting: check.ClientLimit, Limit: target.LimitSessionRecoveryMS, Times: 0.5},
		{What: "the second call on the new session, which the fake answers a fifth of that later",
			Setting: check.ClientLimit, Limit: target.LimitSessionRecoveryMS, Times: 0.1},
	},
}, func(c *run.C) {
	// The first call meets 404 and the new handshake takes D; the call
	// times out at 0.8 D and is cancelled on the dead session. The second
	// call waits for the new session and is answered 0.2 D after it, by
	// when a client that retries control traffic has replayed the
	// cancellation.
	requireRecovery(c)
	d := declared(c).Recovery / 2
	timeout := d * 4 / 5
	r := c.RunHTTPClient(httpfake.Options{Case: "recovery-hangs", Tools: 2, Delay: d},
		target.Invocation{CallTimeout: timeout})
	wantCancelSent(c, r, timeout)
	cancels := r.Count("notifications/cancelled")
	c.Require(cancels <= 1, "at most one notifications/cancelled", "%d were POSTed", cancels)
})
