package stdio

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
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
	failed, after, observed := callFailure(c, r)
	c.Require(failed && after <= bound, fmt.Sprintf("the call fails within %s (%s), long before its %s timeout", bound, why, c.Options().Patience), "%s", observed)
}

// callFailure says whether the run's first call (or, without one, the
// start) failed, how long after it began, and what was observed. A run
// that reports neither counts from the adapter's launch, less the prompt
// slack its own start and close may take.
func callFailure(c *run.C, r *run.ClientRun) (failed bool, after time.Duration, observed string) {
	wantReached(c, r)
	if len(r.Calls) == 0 {
		if r.Connect != nil && r.Connect.Outcome == target.OutcomeError {
			return true, ms(r.Connect.ElapsedMS), fmt.Sprintf("the handshake failed after %d ms", r.Connect.ElapsedMS)
		}
		return true, max(0, r.Duration-c.Options().Prompt), fmt.Sprintf("no call result; the adapter ran %s", r.Duration.Round(time.Millisecond))
	}
	call := r.Calls[0]
	if call.OK() {
		return false, ms(call.ElapsedMS), fmt.Sprintf("tool %q succeeded after %d ms", call.Tool, call.ElapsedMS)
	}
	return true, ms(call.ElapsedMS), fmt.Sprintf("tool %q failed after %d ms: %s", call.Tool, call.ElapsedMS, call.Error)
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// wantReached ends the check ERROR when the server the adapter was given
// received nothing through the adapter's fault: it never started, or it
// was left running with nothing read (the adapter connected no client to
// it). A server the client ended before it read a line (a client that
// gives up on a banner the server writes first) is the client's outcome,
// which the check judges from what the adapter reported.
func wantReached(c *run.C, r *run.ClientRun) {
	switch {
	case len(r.Record.Lines()) > 0 || r.EndedUnread() != "":
	case len(r.Record.PIDs()) == 0:
		c.Errorf("the server in %s never started (the adapter exited %d): the adapter must start that command and connect its client to it", target.EnvServerCommand, r.ExitCode)
	default:
		c.Errorf("the server in %s started but read nothing, and nothing closed it (the adapter exited %d and left it running): the adapter must connect its client to that command's stdin and stdout", target.EnvServerCommand, r.ExitCode)
	}
}

// wantRead is wantReached for a check that judges what the server read:
// a client that ended the session before the server read a line (from a
// fake that reads at once) fails.
func wantRead(c *run.C, r *run.ClientRun) {
	wantReached(c, r)
	if how := r.EndedUnread(); how != "" {
		c.Failf("the client's first message reaches the server", "%s before the server read a line (the adapter exited %d)", how, r.ExitCode)
	}
}

// wantHandshakeStarted returns the first handshake request the server
// received (initialize, or a server/discover probe); without one the check
// has nothing to judge.
func wantHandshakeStarted(c *run.C, r *run.ClientRun) string {
	wantRead(c, r)
	for _, m := range r.Record.Messages() {
		if m.Method == "initialize" || m.Method == "server/discover" {
			return m.Method
		}
	}
	c.Errorf("the server received no initialize and no server/discover: the adapter's client never started a handshake")
	return ""
}

// wantNoSurvivors expects every process of the server's tree to be gone
// when the client's adapter has exited.
func wantNoSurvivors(c *run.C, r *run.ClientRun) {
	names := make([]string, 0, len(r.Survivors))
	for _, pid := range r.Survivors {
		name := fmt.Sprint(pid)
		for _, p := range r.Left {
			if p.Pid == pid {
				name = p.String()
			}
		}
		names = append(names, name)
	}
	c.Require(len(r.Survivors) == 0, "no process of the server's tree outlives the client",
		"%s still alive %s after the client closed (the harness killed them)", strings.Join(names, ", "), target.LeftGrace)
}

// wantNotLeaked expects secret nowhere in what the client printed (NG-06,
// a seed rule: the spec lets a client forward the server's stderr, ST-07).
func wantNotLeaked(c *run.C, r *run.ClientRun, secret, what string) {
	c.Secret(secret)
	for _, out := range []struct {
		name  string
		bytes []byte
	}{{"stdout", r.Stdout}, {"stderr", r.Stderr}} {
		c.RequireHardened(!strings.Contains(string(out.bytes), secret), what+" never appears in the client's errors or output",
			"the marker appears in the adapter's %s", out.name)
	}
}

// callID returns the id of the first tools/call in the record; without one
// the adapter made no call and the check has nothing to judge.
func callID(c *run.C, rec *stdiofake.Record) jsonrpc.ID {
	reqs := rec.Requests("tools/call")
	if len(reqs) == 0 {
		c.Errorf("the server received no tools/call: the adapter must call every tool the server lists")
	}
	return reqs[0].ID
}

// cancelledFor returns the first notifications/cancelled for id.
func cancelledFor(rec *stdiofake.Record, id jsonrpc.ID) (stdiofake.Event, bool) {
	for _, e := range rec.Events {
		if e.Type != stdiofake.EventRecv {
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
	return stdiofake.Event{}, false
}

func eventTime(rec *stdiofake.Record, typ string) (time.Time, bool) {
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
