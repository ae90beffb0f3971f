package run

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/reaper"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/stdio"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// ClientRun is what one check saw of the client under test: what its
// adapter printed and did, and what the fake server recorded.
type ClientRun struct {
	*target.Run
	Record *stdiofake.Record
	// Survivors are server processes (the fake and its descendants, in
	// the adapter's group or out of it) still alive after the adapter
	// exited and target.LeftGrace passed. The harness has killed them
	// since.
	Survivors []int
}

// EndedUnread says how the client ended its server before the server read
// a line of stdin: it closed the server's stdin, sent SIGTERM, closed the
// server's stdout, or killed it (it ended without an exit of its own and
// was not left running). "" when the server read a line, never started
// (the adapter did not start the command), or was left running unread
// (the adapter started it and connected no client): the adapter's doing,
// not the client's.
func (r *ClientRun) EndedUnread() string {
	pids := r.Record.PIDs()
	if len(r.Record.Lines()) > 0 || len(pids) == 0 {
		return ""
	}
	if how := r.Record.ClosedBy(); how != "" {
		return "the client " + how
	}
	if !r.Record.ExitedByItself() && !slices.Contains(r.Survivors, pids[0]) {
		return "the client killed the server"
	}
	return ""
}

// FakeCommand is the argv of a fake stdio server.
func FakeCommand(o stdiofake.Options) []string {
	return selfexec.Command("fakeserver", o.Args()...)
}

// RunStdioClient runs the client's adapter against a fake stdio server. The
// fake's record goes to the check's temporary directory; the transcript is
// taken from it. inv may set CallTimeout, Parallel, Limits and Era; the rest
// is filled in. In a check judging an era (For), the fake serves it and the
// adapter is told it unless fake.Era and inv.Era say otherwise.
func (c *C) RunStdioClient(fake stdiofake.Options, inv target.Invocation) *ClientRun {
	r := c.runStdio(fake, inv)
	c.judgeRun(r.Run, inv)
	return r
}

// RunStdioClientToTimeout is RunStdioClient for a check whose call must
// time out (the fake never answers it): an adapter still running at the
// deadline never applied its call timeout, so the check cannot see what
// follows a timeout and is UNIMPLEMENTED rather than failed.
func (c *C) RunStdioClientToTimeout(fake stdiofake.Options, inv target.Invocation) *ClientRun {
	r := c.runStdio(fake, inv)
	if r.Killed && r.ExitCode != target.ExitUnsupported && r.Breach() == "" {
		c.Unimplemented(fmt.Sprintf("the call never timed out: the adapter was still running after %s; it must give its client the per-request timeout %s=%d",
			c.cfg.CheckDeadline, target.EnvCallTimeoutMS, inv.CallTimeout.Milliseconds()))
	}
	c.judgeRun(r.Run, inv)
	return r
}

func (c *C) runStdio(fake stdiofake.Options, inv target.Invocation) *ClientRun {
	c.requireTransport(transportStdio)
	c.inEra(&fake.Era, &inv, transportStdio)
	fake.Record = filepath.Join(c.dir, fmt.Sprintf("record-%d.jsonl", time.Now().UnixNano()))
	inv.Case = c.D.ID
	inv.Transport = "stdio"
	inv.ServerCommand = FakeCommand(fake)
	if inv.CallTimeout <= 0 {
		inv.CallTimeout = c.cfg.Patience
	}
	if inv.Deadline <= 0 {
		inv.Deadline = c.cfg.CheckDeadline
	}
	adapter := target.Adapter{Command: c.cfg.ClientAdapter}
	r, err := adapter.Run(c.Ctx, inv)
	if err != nil {
		c.harnessError(err)
	}
	rec, err := stdiofake.ReadRecord(fake.Record)
	if err != nil {
		c.harnessError(err)
	}
	survivors := reapSurvivors(rec)
	if r != nil {
		// What the adapter left alive was seen before the harness killed it.
		for _, p := range r.Left {
			if !slices.Contains(survivors, p.Pid) {
				survivors = append(survivors, p.Pid)
			}
		}
		slices.Sort(survivors)
	}
	// Every fake is gone now, so its record is complete: read it again
	// rather than race a fake still recording what it read before the end.
	if rec, err = stdiofake.ReadRecord(fake.Record); err != nil {
		c.harnessError(err)
	}
	out := &ClientRun{Run: r, Record: rec, Survivors: survivors}
	c.entries = recordTranscript(rec)
	return out
}

// asked names the optional parts of the adapter contract an invocation
// uses: what an adapter that exits 127 for it lacks.
func asked(inv target.Invocation) string {
	var parts []string
	if len(inv.Limits) > 0 {
		b, _ := json.Marshal(inv.Limits)
		parts = append(parts, target.EnvLimits+"="+string(b))
	}
	if len(inv.Headers) > 0 {
		parts = append(parts, target.EnvHeaders)
	}
	if inv.AuthToken != "" {
		parts = append(parts, target.EnvAuthToken)
	}
	if inv.Parallel {
		parts = append(parts, target.EnvParallel+"=1")
	}
	if inv.Era != "" {
		parts = append(parts, target.EnvEra+"="+inv.Era)
	}
	if len(parts) == 0 {
		return "nothing beyond its transport, which it served in the pre-flight"
	}
	return strings.Join(parts, ", ")
}

// judgeRun ends the check when the adapter run shows nothing to judge: the
// adapter lacks the transport (UNIMPLEMENTED), broke the contract (ERROR),
// or hung (FAIL: the client never finished).
func (c *C) judgeRun(r *target.Run, inv target.Invocation) {
	if r.ExitCode == target.ExitUnsupported {
		c.Unimplemented(fmt.Sprintf("the adapter exited %d: it does not support what this check asks of it (%s)", target.ExitUnsupported, asked(inv)))
	}
	if b := r.Breach(); b != "" {
		c.Errorf("the client adapter %s; %s", b, ContractWayOut)
	}
	if r.Killed {
		c.Failf(fmt.Sprintf("the client finishes within %s", inv.Deadline),
			"the adapter was still running after %s and was killed (it hangs)", inv.Deadline)
	}
}

func (c *C) harnessError(err error) { c.Errorf("%v", err) }

// recordTranscript turns a fake's record into the wire transcript: both
// directions, and notes for the teardown steps the fake saw.
func recordTranscript(rec *stdiofake.Record) []transcript.Entry {
	var out []transcript.Entry
	for _, e := range rec.Events {
		switch e.Type {
		case stdiofake.EventRecv:
			out = append(out, transcript.Entry{Dir: transcript.ClientToServer, Line: e.Line})
		case stdiofake.EventSend:
			out = append(out, transcript.Entry{Dir: transcript.ServerToClient, Line: e.Line})
		case stdiofake.EventStdinEOF:
			out = append(out, transcript.Entry{Dir: transcript.Note, Line: "server stdin closed"})
		case stdiofake.EventSigterm:
			out = append(out, transcript.Entry{Dir: transcript.Note, Line: "server got SIGTERM"})
		}
	}
	return out
}

// reapSurvivors waits briefly for the recorded server processes to die (on
// their exit events), then kills and returns those still alive.
func reapSurvivors(rec *stdiofake.Record) []int {
	reaper.WaitExit(append(rec.PIDs(), rec.Children()...), 500*time.Millisecond)
	return stdiofake.KillLeftovers(rec)
}

// Limits are the client's declared limits, or the seed defaults where it
// declares none.
type Limits struct {
	StdoutTextLines int64
	StdoutTextBytes int64
	StderrBytes     int64
	CancelGrace     time.Duration
	ShutdownGrace   time.Duration
	Startup         time.Duration
	Declared        map[string]bool
}

// ClientLimits returns the limits the client under test declares in its
// config line (the seed defaults where it declares none), from the stdio
// probe.
func (c *C) ClientLimits() Limits { return limitsFrom(c.probe(transportStdio).run.Output) }

// HTTPDeclared returns the HTTP client's config line, from the HTTP probe.
func (c *C) HTTPDeclared() target.Output { return c.probe(transportHTTP).run.Output }

func limitsFrom(o target.Output) Limits {
	d := stdio.DefaultConfig()
	l := Limits{
		StdoutTextLines: int64(d.MaxStdoutTextLines), StdoutTextBytes: d.MaxStdoutTextBytes, StderrBytes: int64(d.MaxStderrBytes),
		CancelGrace: d.CancelGrace, ShutdownGrace: d.ShutdownGrace, Startup: d.StartupTimeout, Declared: map[string]bool{},
	}
	num := func(key string, dst *int64) {
		if v, ok := o.Int(key); ok {
			*dst, l.Declared[key] = v, true
		}
	}
	dur := func(key string, dst *time.Duration) {
		if v, ok := o.Int(key); ok {
			*dst, l.Declared[key] = time.Duration(v)*time.Millisecond, true
		}
	}
	num(target.LimitStdoutTextLines, &l.StdoutTextLines)
	num(target.LimitStdoutTextBytes, &l.StdoutTextBytes)
	num(target.LimitStderrBytes, &l.StderrBytes)
	dur(target.LimitCancelGraceMS, &l.CancelGrace)
	dur(target.LimitShutdownGraceMS, &l.ShutdownGrace)
	dur(target.LimitStartupMS, &l.Startup)
	return l
}
