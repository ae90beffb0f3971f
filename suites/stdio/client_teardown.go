package stdio

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Cancellation and teardown: NG-07, NG-08, LC-20, LC-31.

// cancelTimeout is the call timeout of the cancellation checks: the fake
// never answers, so the call times out and the client cancels it.
const cancelTimeout = 300 * time.Millisecond

// The waits of the cancellation and teardown checks on a conformant client:
// the call timeout they give it, the cancel grace it then keeps, and the
// shutdown grace before each signal to a server that does not exit.
var (
	callTimeoutWait = check.Wait{What: "the answer to the call the fake never answers, until the call timeout the check gives the client",
		Setting: check.Scripted, Duration: cancelTimeout}
	cancelGraceWait = check.Wait{What: "the server's exit after notifications/cancelled, until cancel_grace ends it and the client closes stdin",
		Setting: check.ClientLimit, Limit: target.LimitCancelGraceMS}
	sigtermWait = check.Wait{What: "the exit of the server that ignores stdin EOF, until shutdown_grace ends it with SIGTERM",
		Setting: check.ClientLimit, Limit: target.LimitShutdownGraceMS}
	escalationWait = check.Wait{What: "the exit of the server that ignores stdin EOF and SIGTERM, shutdown_grace after each, until SIGKILL",
		Setting: check.ClientLimit, Limit: target.LimitShutdownGraceMS, Times: 2}
)

// graceSlack allows for the delay between the client sending
// notifications/cancelled and the fake recording it.
func graceSlack(grace time.Duration) time.Duration { return grace / 4 }

// timedOutCall runs a call against a fake that never answers it.
func timedOutCall(c *run.C, fakeCase string) *run.ClientRun {
	r := c.RunStdioClientToTimeout(stdiofake.Options{Case: fakeCase}, target.Invocation{CallTimeout: cancelTimeout})
	wantTimedOut(c, r)
	return r
}

// wantTimedOut expects the run's first call (the one the fake never
// answers) to have been made and to have failed.
func wantTimedOut(c *run.C, r *run.ClientRun) {
	callID(c, r.Record)
	c.Require(len(r.Calls) > 0 && !r.Calls[0].OK(), "the call times out", "calls: %s", describeCalls(r.Calls))
}

// cancelTime returns when the fake received notifications/cancelled for
// the timed-out tools/call.
func cancelTime(c *run.C, r *run.ClientRun) time.Time {
	id := callID(c, r.Record)
	e, ok := cancelledFor(r.Record, id)
	c.Require(ok, fmt.Sprintf("notifications/cancelled with requestId %s", id), "no cancellation for request %s reached the server", id)
	return time.Unix(0, e.T)
}

var _ = clientCheck(check.Descriptor{
	ID:    "stdio.client.cancel.notification",
	Title: "a timed-out call is cancelled with notifications/cancelled for its id, and its late answer is ignored",
	Requirement: "When a request times out the client sends notifications/cancelled carrying that request's id; every cancel names, in requestId, " +
		"a request the client itself sent earlier; an answer to the cancelled request that still arrives is ignored, so the next call succeeds.",
	Rules:    []string{"NG-07", "LC-31", "ST-13", "CN-10", "CN-01", "CN-03", "CN-06"},
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.NoCancelNotification, mutant.CancelUnissuedID, mutant.CancelNoRequestID, mutant.LateAnswerMisrouted},
	Waits:    []check.Wait{callTimeoutWait, cancelGraceWait},
}, func(c *run.C) {
	// The fake answers the second tool only once the first one's cancel
	// has arrived (or Prompt has passed), so the client's close comes after
	// a cancel it sends from a goroutine: the record holds the cancel, or
	// its absence, whatever the scheduling. Right before echo's answer it
	// answers the cancelled call, late, on the same stdout.
	fake := stdiofake.Options{Case: "cancel-then-echo", Delay: c.Options().Prompt}
	r := c.RunStdioClientToTimeout(fake, target.Invocation{CallTimeout: cancelTimeout})
	wantTimedOut(c, r)
	c.RequireCancelsOwnRequests("stdio", r.Record.Messages())
	cancelTime(c, r)
	if answeredLate(r.Record, callID(c, r.Record)) {
		c.Require(len(r.Calls) > 1, "a call of echo after the cancelled one", "calls: %s", describeCalls(r.Calls))
		c.RequireLateAnswerIgnored("stdio", r.Calls[1])
	}
})

// answeredLate reports whether the fake answered request id at all: in
// cancel-then-echo, only late, after its cancel.
func answeredLate(rec *stdiofake.Record, id jsonrpc.ID) bool {
	for _, e := range rec.Events {
		if e.Type != stdiofake.EventSend {
			continue
		}
		if m, err := jsonrpc.Decode([]byte(e.Line)); err == nil && m.Kind() == jsonrpc.KindError && m.ID.Key() == id.Key() {
			return true
		}
	}
	return false
}

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.cancel.grace",
	Title:       "after notifications/cancelled the client waits cancel_grace before closing stdin",
	Requirement: "After cancelling, the client waits cancel_grace for the server to stop before it terminates the process tree, stdin first.",
	Rules:       []string{"NG-07"},
	KilledBy:    []mutant.Name{mutant.NoCancelGrace, mutant.NoCancelNotification, mutant.NoCancelTeardown},
	Waits:       []check.Wait{callTimeoutWait, cancelGraceWait},
}, func(c *run.C) {
	l := c.ClientLimits()
	grace := l.CancelGrace
	r := timedOutCall(c, "never-answers")
	cancelled := cancelTime(c, r)
	eof, ok := eventTime(r.Record, stdiofake.EventStdinEOF)
	c.Require(ok, "stdin closes after the grace", "the server's stdin never closed")
	gap := eof.Sub(cancelled)
	c.Boundary(l.Declared[target.LimitCancelGraceMS], target.LimitCancelGraceMS, gap >= grace-graceSlack(grace),
		fmt.Sprintf("stdin closes at least %s (cancel_grace) after notifications/cancelled", grace),
		"stdin closed %s after notifications/cancelled (the grace the client gave)", gap.Round(time.Millisecond))
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.cancel.sigterm-after-eof",
	Title:       "a server that ignores stdin EOF after a cancel gets SIGTERM, after stdin closed",
	Requirement: "Termination after a cancel closes stdin first, then sends SIGTERM.",
	Rules:       []string{"NG-07", "LC-20"},
	KilledBy:    []mutant.Name{mutant.NoSigterm, mutant.SigtermBeforeEOF},
	Waits:       []check.Wait{callTimeoutWait, cancelGraceWait, sigtermWait},
}, func(c *run.C) {
	r := timedOutCall(c, "never-answers-ignore-eof")
	eof, okEOF := eventTime(r.Record, stdiofake.EventStdinEOF)
	term, okTerm := eventTime(r.Record, stdiofake.EventSigterm)
	c.Require(okEOF && okTerm, "stdin closed, then SIGTERM", "stdin closed: %v, SIGTERM: %v", okEOF, okTerm)
	c.Require(!term.Before(eof), "SIGTERM after stdin closed", "SIGTERM came %s before stdin closed", eof.Sub(term).Round(time.Millisecond))
	wantNoSurvivors(c, r)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.cancel.sigkill",
	Title:       "a server that ignores stdin EOF and SIGTERM after a cancel is killed",
	Requirement: "Termination escalates to SIGKILL: a server that ignores stdin EOF and SIGTERM does not outlive the client.",
	Rules:       []string{"NG-07", "LC-20"},
	KilledBy:    []mutant.Name{mutant.NoSigkill},
	Waits:       []check.Wait{callTimeoutWait, cancelGraceWait, escalationWait},
}, func(c *run.C) {
	r := timedOutCall(c, "never-answers-stubborn")
	c.Require(!r.Record.ExitedByItself(), "the server is killed", "the server exited by itself")
	wantNoSurvivors(c, r)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.close.eof-first",
	Title:       "a normal close closes stdin and lets a cooperative server exit, without signals",
	Requirement: "On close the client closes the server's stdin first and waits for it to exit before any signal.",
	Rules:       []string{"LC-20", "LC-21"},
	Eras:        check.BothEras,
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.SigtermBeforeEOF},
}, func(c *run.C) {
	r := c.RunStdioClient(stdiofake.Options{Case: "well-behaved"}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
	_, eof := eventTime(r.Record, stdiofake.EventStdinEOF)
	_, term := eventTime(r.Record, stdiofake.EventSigterm)
	c.Require(eof && !term, "stdin closes and the server exits with no SIGTERM", "stdin closed: %v, SIGTERM sent: %v", eof, term)
	wantNoSurvivors(c, r)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.close.escalation",
	Title:       "a normal close escalates: stdin close, SIGTERM, then SIGKILL for a stubborn server",
	Requirement: "On close, a server that ignores stdin EOF gets SIGTERM after a wait, and SIGKILL after another.",
	Rules:       []string{"LC-20", "NG-07"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.NoSigterm, mutant.NoSigkill},
	Waits:       []check.Wait{escalationWait},
}, func(c *run.C) {
	r := c.RunStdioClient(stdiofake.Options{Case: "close-stubborn"}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
	eof, okEOF := eventTime(r.Record, stdiofake.EventStdinEOF)
	term, okTerm := eventTime(r.Record, stdiofake.EventSigterm)
	c.Require(okEOF && okTerm && !term.Before(eof), "stdin closed, then SIGTERM", "stdin closed: %v, SIGTERM: %v", okEOF, okTerm)
	wantNoSurvivors(c, r)
})

// markerDelay is when the grandchild writes its marker after it starts:
// past the grace the harness gives the client's close, so a grandchild left
// alive is seen alive, not by its marker. The check looks for the marker
// markerSlack later.
const (
	markerDelay = target.LeftGrace + 500*time.Millisecond
	markerSlack = 200 * time.Millisecond
)

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.process-group.grandchild",
	Title:       "a SIGTERM-ignoring grandchild of the server is gone after close and never writes its marker",
	Requirement: "Termination reaches the whole process group, so grandchildren (npx, uvx, shell wrappers) do not survive as orphans.",
	Rules:       []string{"NG-08"},
	KilledBy:    []mutant.Name{mutant.NoProcessGroup},
	Waits: []check.Wait{{What: "the marker a surviving grandchild writes, looked for once its delay and a slack have passed since it started",
		Setting: check.Scripted, Duration: markerDelay + markerSlack}},
}, func(c *run.C) {
	marker := filepath.Join(c.TempDir(), "grandchild-alive")
	r := c.RunStdioClient(stdiofake.Options{Case: "grandchild", File: marker, Delay: markerDelay}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
	c.Require(len(r.Record.Children()) > 0, "the fake started its grandchild", "no grandchild was recorded")
	wantNoSurvivors(c, r)
	child, _ := r.Record.First(stdiofake.EventChild)
	if wait := time.Until(time.Unix(0, child.T).Add(markerDelay + markerSlack)); wait > 0 {
		time.Sleep(wait) // the marker is due only after its delay
	}
	fi, err := os.Stat(marker)
	if err == nil && fi.ModTime().Before(r.Exited) {
		c.Unimplemented(fmt.Sprintf("the grandchild wrote its marker %s after it started, while the client was still running (it exited %s after it started); the session must end within the marker's delay for the check to judge the close",
			markerDelay, r.Duration.Round(time.Millisecond)))
	}
	if err == nil {
		c.Failf("the grandchild's marker never appears", "the grandchild wrote its marker file %s after the client exited: it outlived the close",
			fi.ModTime().Sub(r.Exited).Round(time.Millisecond))
	}
})
