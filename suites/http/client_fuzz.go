package http

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The HTTP fuzz check (kind:fuzz, run with --fuzz): seeded random plans
// for the fuzz fake (fuzz_gen.go), judged call by call by the rule each
// expectation comes from.

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.fuzz.stream-mix",
	Title:       "random mixes of SSE events around max_sse_event_size, a 404 on the session and server pings end as the rules say",
	Requirement: "A 404 on the session starts a fresh initialize without the old session id (HT-57) and, with recovery, retries the call once with its id (RM-05); a server ping is answered with an empty result (PG-02); an SSE event up to max_sse_event_size is accepted and one past it fails its call (RM-09).",
	Rules:       []string{"HT-57", "PG-02", "RM-05", "RM-09"},
	KilledBy: []mutant.Name{mutant.NoSSELimit, mutant.SSELimitOffByOne, mutant.NoReinit, mutant.ReinitKeepsSessionID, mutant.RetryNewIDs,
		mutant.NoRetryAfterReinit},
	Fuzz: true,
}, func(c *run.C) {
	l := declared(c)
	run.Fuzz(c, func(seed int64) httpFuzzCase { return genHTTPCase(seed, l.MaxSSEEventSize, l.Reinit) }, func(fc httpFuzzCase) {
		r := c.RunHTTPClient(httpfake.Options{Case: "fuzz", Fuzz: &fc.Plan}, target.Invocation{})
		wantHTTPOutcome(c, r, fc)
	})
})

// wantHTTPOutcome judges a run by the case's expectations.
func wantHTTPOutcome(c *run.C, r *run.HTTPClientRun, fc httpFuzzCase) {
	wantReached(c, r)
	if fc.expired() {
		inits := initializeRequests(r)
		c.RequireRule("HT-57", len(inits) >= 2, "a fresh initialize after the 404", "%d initialize request(s)", len(inits))
		for i, q := range inits {
			c.RequireRule("HT-57", q.SessionID == "", "no Mcp-Session-Id on any initialize", "initialize %d carried session id %q", i+1, q.SessionID)
		}
	}
	c.RequireRule("RM-09", len(r.Calls) == len(fc.Want), fmt.Sprintf("%d call results", len(fc.Want)), "calls: %s", describeCalls(r.Calls))
	for i, call := range r.Calls {
		w, p, tool := fc.Want[i], fc.Plan.Calls[i], fmt.Sprintf("t%d", i+1)
		verb := "succeeds"
		if !w.OK {
			verb = "fails"
		}
		c.RequireRule(w.Rule, call.Tool == tool && call.OK() == w.OK, fmt.Sprintf("call %d is tool %s and %s (event of %d raw bytes, limit %d)", i+1, tool, verb, p.EventSize, fc.Limit),
			"calls: %s", describeCalls(r.Calls))
		if p.Expire && fc.Reinit {
			ids := callIDs(r, tool)
			c.RequireRule("RM-05", len(ids) == 2 && ids[0] == ids[1], fmt.Sprintf("tool %s sent twice with one id (once, and one retry)", tool), "ids %v", ids)
		}
		if p.Ping && !p.Expire {
			c.RequireRule("PG-02", pingAnswered(r, tool), fmt.Sprintf("the ping %s on tool %s's stream is answered with an empty result", httpfake.PingID(tool), tool),
				"no POST carried a result {} with id %q", httpfake.PingID(tool))
		}
	}
}

// pingAnswered reports whether the client POSTed a result {} for the ping
// sent on tool's stream.
func pingAnswered(r *run.HTTPClientRun, tool string) bool {
	key := jsonrpc.StringID(httpfake.PingID(tool)).Key()
	for _, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method == "" && m.ID.Key() == key && m.Error == nil && string(m.Result) == "{}" {
				return true
			}
		}
	}
	return false
}
