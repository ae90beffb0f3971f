package http

import (
	"encoding/json"
	"fmt"
	"math/rand"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The HTTP fuzz generator: one case is a seeded random plan for one
// connection (SSE events of random sizes around max_sse_event_size, a 404
// on the session at a random call, pings from the server on random
// calls), and the outcome the rules give each call.

// minFuzzEvent is the smallest SSE event the generator sizes: room for the
// result message itself.
const minFuzzEvent = 512

// Focuses of the HTTP fuzz cases, picked by the seed as for stdio.
var httpFocuses = []string{"sse-exact", "sse-over", "sse-under", "expire", "ping"}

// httpCallWant is what the rules expect of one tool's call: whether it
// succeeds, and the rule that says so.
type httpCallWant struct {
	OK   bool
	Rule string
}

// httpFuzzCase is one generated case.
type httpFuzzCase struct {
	Seed   int64
	Focus  string
	Limit  int // the max_sse_event_size in force
	Reinit bool
	Plan   httpfake.FuzzScript
	Want   []httpCallWant
}

// Describe prints the case: seed, focus, plan and expected outcomes.
func (fc httpFuzzCase) Describe() string {
	b, _ := json.Marshal(fc.Plan)
	w, _ := json.Marshal(fc.Want)
	return fmt.Sprintf("fuzz case seed %d, focus %s, max_sse_event_size %d, reinit %v\nplan: %s\nexpected per call: %s", fc.Seed, fc.Focus, fc.Limit, fc.Reinit, b, w)
}

// expired reports whether the plan expires the session.
func (fc httpFuzzCase) expired() bool {
	for _, p := range fc.Plan.Calls {
		if p.Expire {
			return true
		}
	}
	return false
}

// expectHTTP computes each call's outcome: an SSE event within the limit
// is accepted and one past it fails the call (RM-09, which ends only that
// stream); a call that met the 404 succeeds on the new session when the
// client recovers (RM-05), and fails when it declares it does not.
func expectHTTP(plan httpfake.FuzzScript, limit int, reinit bool) []httpCallWant {
	out := make([]httpCallWant, len(plan.Calls))
	for i, p := range plan.Calls {
		w := httpCallWant{OK: true, Rule: "RM-09"}
		if p.EventSize > limit {
			w.OK = false
		}
		if p.Expire {
			w.Rule = "RM-05"
			w.OK = w.OK && reinit
		}
		out[i] = w
	}
	return out
}

// genHTTPCase builds the case of one seed for a client with this limit.
func genHTTPCase(seed int64, limit int, reinit bool) httpFuzzCase {
	r := rand.New(rand.NewSource(seed))
	focus := httpFocuses[run.FuzzPick(seed, len(httpFocuses))]
	calls := make([]httpfake.FuzzCall, 1+r.Intn(3))
	near := []int{limit - 1, limit, limit + 1}
	sized := limit > 2*minFuzzEvent
	for i := range calls {
		switch k := r.Intn(3); {
		case !sized || k == 0: // JSON
		case k == 1:
			calls[i].EventSize = minFuzzEvent + r.Intn(limit-minFuzzEvent)
		default:
			calls[i].EventSize = near[r.Intn(len(near))]
		}
		calls[i].Ping = r.Intn(3) == 0
	}
	if r.Intn(4) == 0 {
		calls[r.Intn(len(calls))].Expire = true
	}
	at := r.Intn(len(calls))
	switch focus {
	case "sse-exact", "sse-over", "sse-under":
		if sized {
			calls[at].EventSize = map[string]int{"sse-exact": limit, "sse-over": limit + 1, "sse-under": limit - 1}[focus]
		}
	case "expire":
		for i := range calls {
			calls[i].Expire = i == at
		}
	case "ping":
		calls[at].Ping = true
	}
	plan := httpfake.FuzzScript{Calls: calls}
	return httpFuzzCase{Seed: seed, Focus: focus, Limit: limit, Reinit: reinit, Plan: plan, Want: expectHTTP(plan, limit, reinit)}
}
