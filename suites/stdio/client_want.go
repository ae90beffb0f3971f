package stdio

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Helpers named after what they expect, so a check body reads like its rule.

// wantAllCallsOK expects the handshake to succeed and n tool calls, all ok.
func wantAllCallsOK(c *run.C, r *run.ClientRun, n int) { c.WantAllCallsOK(r.Output, n) }

// wantCallFailedWithin expects the first tool call to fail, and to fail
// within bound (long before the call's own timeout).
func wantCallFailedWithin(c *run.C, r *run.ClientRun, bound time.Duration, why string) {
	expected := fmt.Sprintf("the call fails within %s (%s), long before its %s timeout", bound, why, c.Config().Patience)
	if len(r.Calls) == 0 {
		if r.Connect != nil && r.Connect.Outcome == target.OutcomeError {
			c.Require(time.Duration(r.Connect.ElapsedMS)*time.Millisecond <= bound, expected,
				"the handshake failed after %d ms", r.Connect.ElapsedMS)
			return
		}
		c.Require(r.Duration <= bound+c.Config().Prompt, expected, "no call result; the adapter ran %s", r.Duration.Round(time.Millisecond))
		return
	}
	call := r.Calls[0]
	c.Require(!call.OK(), expected, "tool %q succeeded", call.Tool)
	c.Require(time.Duration(call.ElapsedMS)*time.Millisecond <= bound, expected,
		"tool %q failed after %d ms: %s", call.Tool, call.ElapsedMS, call.Error)
}

// wantNoSurvivors expects every process of the server's tree to be gone
// when the client's adapter has exited.
func wantNoSurvivors(c *run.C, r *run.ClientRun) {
	c.Require(len(r.Survivors) == 0, "no process of the server's tree outlives the client",
		"pid(s) %v were still alive after the client closed (the harness killed them)", r.Survivors)
}

// wantNotLeaked expects secret nowhere in what the client printed. That is
// NG-06, a seed rule: the specification lets a client forward the server's
// stderr (ST-07), so a leak is HARDENED under the spec profile.
func wantNotLeaked(c *run.C, r *run.ClientRun, secret, what string) {
	c.Secret(secret)
	for name, out := range map[string][]byte{"stdout": r.Stdout, "stderr": r.Stderr} {
		c.RequireHardened(!strings.Contains(string(out), secret), what+" never appears in the client's errors or output",
			"the marker appears in the adapter's %s", name)
	}
}

// requestID returns the id of the first request with method in the record.
func requestID(c *run.C, rec *fakeservers.Record, method string) jsonrpc.ID {
	reqs := rec.Requests(method)
	c.Require(len(reqs) > 0, fmt.Sprintf("the client sends %s", method), "the server never received %s", method)
	return reqs[0].ID
}

// cancelledFor returns the first notifications/cancelled for id.
func cancelledFor(rec *fakeservers.Record, id jsonrpc.ID) (fakeservers.Event, bool) {
	for _, e := range rec.Events {
		if e.Type != fakeservers.EventRecv {
			continue
		}
		m, err := jsonrpc.Decode([]byte(e.Line))
		if err != nil || m.Method != "notifications/cancelled" {
			continue
		}
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.RequestID.Key() == id.Key() {
			return e, true
		}
	}
	return fakeservers.Event{}, false
}

func eventTime(rec *fakeservers.Record, typ string) (time.Time, bool) {
	e, ok := rec.First(typ)
	return time.Unix(0, e.T), ok
}

var describeCalls = run.DescribeCalls

// stderrLines counts the non-empty lines of the adapter's stderr.
func stderrLines(r *run.ClientRun) int {
	n := 0
	for _, l := range strings.Split(string(r.Stderr), "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}
