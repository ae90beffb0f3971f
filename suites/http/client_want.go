package http

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/httpclient"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Client-role helpers, named after what they expect.

// httpLimits are the HTTP client's declared limits (seed defaults where it
// declares none).
type httpLimits struct {
	MaxConcurrent   int
	MaxSSEEventSize int
	Recovery        time.Duration
	Control         time.Duration
	AllowStateless  bool
	Reinit          bool // reinit_on_expired_session
	Declared        map[string]bool
}

// limitsOf reads the limits from the config line of a run.
func limitsOf(o target.Output) httpLimits {
	d := httpclient.DefaultConfig("") // the seed defaults, for what the client does not declare
	l := httpLimits{MaxConcurrent: d.MaxConcurrentRequests, MaxSSEEventSize: d.MaxSSEEventSize, Recovery: d.SessionRecoveryTimeout,
		Control: d.ControlRequestTimeout, AllowStateless: d.AllowStateless, Reinit: d.ReinitOnExpiredSession, Declared: map[string]bool{}}
	if v, ok := o.Int(target.LimitMaxConcurrent); ok {
		l.MaxConcurrent, l.Declared[target.LimitMaxConcurrent] = int(max(v, 1)), true
	}
	if v, ok := o.Int(target.LimitMaxSSEEventSize); ok {
		l.MaxSSEEventSize, l.Declared[target.LimitMaxSSEEventSize] = int(v), true
	}
	if v, ok := o.Int(target.LimitSessionRecoveryMS); ok {
		l.Recovery, l.Declared[target.LimitSessionRecoveryMS] = time.Duration(v)*time.Millisecond, true
	}
	if v, ok := o.Int(target.LimitControlRequestMS); ok {
		l.Control, l.Declared[target.LimitControlRequestMS] = time.Duration(v)*time.Millisecond, true
	}
	if v, ok := o.Int(target.LimitAllowStateless); ok {
		l.AllowStateless, l.Declared[target.LimitAllowStateless] = v != 0, true
	}
	if v, ok := o.Int(target.LimitReinitOnExpired); ok {
		l.Reinit, l.Declared[target.LimitReinitOnExpired] = v != 0, true
	}
	return l
}

// requireRecovery ends a check of the seed's session recovery (RM-05 …
// RM-08) UNIMPLEMENTED for a client that declares it does not recover.
func requireRecovery(c *run.C) {
	if !declared(c).Reinit {
		c.Unimplemented("the client declares " + target.LimitReinitOnExpired + " 0: it does not recover expired sessions, which the rule is about")
	}
}

// wantReached ends the check ERROR when the fake received no HTTP request:
// the adapter did not connect its client to the URL it was given.
func wantReached(c *run.C, r *run.HTTPClientRun) {
	if len(r.Requests) == 0 {
		c.Errorf("the server at %s received no HTTP request (the adapter exited %d): the adapter must connect its client to that URL", target.EnvServerURL, r.ExitCode)
	}
}

// wantParallel ends the check UNIMPLEMENTED when the calls ran one after
// another: the fake never saw two POSTs in progress at once and no call
// waited for another (each took less than 1.5 times hold, the time the
// fake holds a call).
func wantParallel(c *run.C, r *run.HTTPClientRun, hold time.Duration) {
	if r.MaxConcurrent > 1 {
		return
	}
	for _, call := range r.Calls {
		if time.Duration(call.ElapsedMS)*time.Millisecond >= hold*3/2 {
			return
		}
	}
	c.Unimplemented(fmt.Sprintf("the calls ran one after another (a peak of %d POST in progress, none waited for another); %s, and report elapsed_ms", r.MaxConcurrent, run.ParallelAsked))
}

// wantExpiry ends the check UNIMPLEMENTED unless a request that carried
// the session id met 404: the expiry the rule is about.
func wantExpiry(c *run.C, r *run.HTTPClientRun) {
	wantReached(c, r)
	for _, q := range r.Requests {
		if q.Status == 404 && q.SessionID != "" {
			return
		}
	}
	c.Unimplemented("no request carrying the session id met the expired session's 404 (see http.client.session.id-on-every-request), so there was no expiry to recover from")
}

// wantCancelSent ends a check about the cancellation POST when the client
// sent none. A first call that failed no sooner than its timeout timed out
// uncancelled: LC-31 asks for the cancellation (a SHOULD, so a WARN,
// whatever the check's own level). A call that failed sooner (the expired
// session failed it) had no cancellation due; one that never failed was
// not given its timeout by the adapter.
func wantCancelSent(c *run.C, r *run.HTTPClientRun, timeout time.Duration) {
	if r.Count("notifications/cancelled") > 0 {
		return
	}
	switch {
	case len(r.Calls) == 0 || r.Calls[0].OK():
		c.Unimplemented(fmt.Sprintf("no call timed out (calls: %s), though the fake never answers the first; the adapter must give its client the call timeout %s=%d and report each call",
			describeCalls(r.Calls), target.EnvCallTimeoutMS, timeout.Milliseconds()))
	case time.Duration(r.Calls[0].ElapsedMS)*time.Millisecond < timeout:
		c.Unimplemented(fmt.Sprintf("the first call failed after %d ms, before its %s timeout (calls: %s): nothing timed out, so no cancellation was due",
			r.Calls[0].ElapsedMS, timeout, describeCalls(r.Calls)))
	}
	c.RequireRule("LC-31", false, "notifications/cancelled POSTed for the call that timed out: the sender of a request that times out should cancel it (a SHOULD)",
		"the call timed out after %d ms and no notifications/cancelled was POSTed (calls: %s)", r.Calls[0].ElapsedMS, describeCalls(r.Calls))
}

// declared returns the HTTP client's declared limits.
func declared(c *run.C) httpLimits { return limitsOf(c.HTTPDeclared()) }

func wantAllCallsOK(c *run.C, r *run.HTTPClientRun, n int) { c.WantAllCallsOK(r.Output, n) }

func wantCallFailed(c *run.C, r *run.HTTPClientRun, why string) {
	c.Require(len(r.Calls) > 0 && !r.Calls[0].OK(), "the call fails ("+why+")", "calls: %s", describeCalls(r.Calls))
}

var describeCalls = run.DescribeCalls

// callIDs returns the JSON-RPC ids of the tools/call requests for tool, in order.
func callIDs(r *run.HTTPClientRun, tool string) []string {
	var out []string
	for _, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method == "tools/call" && r.ToolOf(m) == tool {
				out = append(out, m.ID.Key())
			}
		}
	}
	return out
}

func toolName(m *jsonrpc.Message) string {
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Name
}

// initializeRequests returns the POSTs carrying initialize.
func initializeRequests(r *run.HTTPClientRun) []httpfake.Request {
	var out []httpfake.Request
	for _, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method == "initialize" {
				out = append(out, q)
			}
		}
	}
	return out
}
