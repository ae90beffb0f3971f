package run

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/reaper"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// Check registers a check in the catalogue and as a Ginkgo spec labelled
// with its descriptor. Suites call it at package level:
//
//	var _ = run.Check(check.Descriptor{…}, func(c *run.C) { … })
func Check(d check.Descriptor, body func(c *C)) bool {
	d = check.Register(d)
	specsMu.Lock()
	specs = append(specs, spec{d, body})
	specsMu.Unlock()
	return true
}

// spec is a registered check, made a Ginkgo spec when the suite's tree is
// built.
type spec struct {
	d    check.Descriptor
	body func(*C)
}

var (
	specsMu sync.Mutex
	specs   []spec // in registration order
)

// The specs are made when RunSpecs builds the tree, once every suite has
// registered its checks and the run is configured: the checks with the
// longest declared waits first (registration order among equals), so that
// in a parallel run the waits overlap from the start instead of trailing
// at the end (but see tier).
// The container is Ordered, or Ginkgo would run specs of one code location
// in the order of their text, and ContinueOnFailure, so one check's
// failure skips no other. The reports order checks by ID whatever the
// order they ran; the container has no text, so the specs keep their names.
var _ = ginkgo.Describe("", ginkgo.Ordered, ginkgo.ContinueOnFailure, func() {
	specsMu.Lock()
	ordered := slices.Clone(specs)
	specsMu.Unlock()
	cfg := Current()
	lines := map[check.Transport]target.Output{check.Stdio: knownConfigLine(transportStdio), check.HTTP: knownConfigLine(transportHTTP)}
	waits := make(map[string]time.Duration, len(ordered))
	probed := ProbedEras()
	for _, s := range ordered {
		waits[s.d.ID] = declaredWaits(cfg, s.d, lines[s.d.Transport]) * time.Duration(erasJudged(s.d, probed, lines[s.d.Transport]))
	}
	slices.SortStableFunc(ordered, func(a, b spec) int {
		if ta, tb := tier(cfg, a.d, waits[a.d.ID]), tier(cfg, b.d, waits[b.d.ID]); ta != tb {
			return cmp.Compare(ta, tb)
		}
		return cmp.Compare(waits[b.d.ID], waits[a.d.ID])
	})
	for _, s := range ordered {
		ginkgo.It(fmt.Sprintf("[%s] %s", s.d.ID, s.d.Title), ginkgo.Label(s.d.Labels()...), func() {
			execute(s.d, s.body)
		})
	}
})

// tier places a check in the run's order before its waits do. Against a
// server at the user's URL, the checks that run alone (Serial) come first,
// one after another while the run's tool census is taken, and those that
// take the census and wait for nothing else last, when it is taken (the
// tool budget is the census's wait, not theirs: declaredWaits); elsewhere
// every check is of one tier.
func tier(cfg Options, d check.Descriptor, waits time.Duration) int {
	switch {
	case !cfg.Census:
		return 0
	case d.Serial:
		return -1
	case d.TakesCensus && waits == 0:
		return 1
	}
	return 0
}

// declaredWaits is the time the check's declared waits take at least, its
// client-limit waits lasting the limits of the config line client; the
// tool budget of a check that takes the run's census is the census's.
func declaredWaits(cfg Options, d check.Descriptor, client target.Output) time.Duration {
	var sum time.Duration
	for _, w := range d.Waits {
		if cfg.Census && d.TakesCensus && w.Setting == check.ToolBudget {
			continue // the census's
		}
		sum += cfg.WaitDuration(w, client)
	}
	return sum
}

// erasJudged is how many times a check's declared waits elapse, as far as
// the pre-flight tells: none for a server check of eras the server does not
// serve over any transport it was probed on (it is N/A at once), once per
// era a client claims for a client check (each is judged apart), else once.
func erasJudged(d check.Descriptor, probed map[check.Transport]ServerEras, client target.Output) int {
	switch d.Role {
	case check.Server:
		if len(probed) == 0 {
			return 1
		}
		for t, e := range probed {
			if (d.Transport == check.Any || d.Transport == t) && e.Applies(d.EraList()) {
				return 1
			}
		}
		return 0
	case check.Client:
		n := 0
		for _, era := range d.EraList() {
			if slices.Contains(client.Eras(), string(era)) {
				n++
			}
		}
		return max(n, 1)
	}
	return 1
}

// C is a running check: what its body uses to act, observe and judge.
type C struct {
	D        check.Descriptor
	Ctx      context.Context
	cfg      Options
	dir      string
	seed     int64
	entries  []transcript.Entry
	secrets  transcript.Secrets
	cleanups []func()
	// unordered marks a transcript whose order is not behaviour (concurrent
	// requests): it is not compared with a snapshot.
	unordered bool
	// notes qualify the verdict, whatever it is (Note).
	notes []string
	// transports are those a check of transport any was judged on, and
	// over the one it is judged on now (JudgeOn).
	transports []check.Transport
	over       check.Transport
	// era is the era a client check judges the client in now (eachEra).
	era check.Era
	// taken is the run's tool census, once the check asked (census);
	// sofar what it had seen when the check first asked (CensusPending).
	taken, sofar *Census
}

// Note adds to the check's message what qualifies its verdict: what it
// could not observe (a tool call cancelled past its budget), so that a PASS
// never claims more than was seen. A note already made is not repeated.
func (c *C) Note(format string, args ...any) {
	if n := fmt.Sprintf(format, args...); !slices.Contains(c.notes, n) {
		c.notes = append(c.notes, n)
	}
}

// QuietWindow returns how long the check listens where nothing may arrive;
// its descriptor must declare the wait (check.QuietWindow).
func (c *C) QuietWindow() time.Duration { return c.declaredWait(check.QuietWindow) }

// ToolBudget returns how long the check waits for the answer to a call of a
// tool it does not know before it cancels the call; its descriptor must
// declare the wait (check.ToolBudget).
func (c *C) ToolBudget() time.Duration { return c.declaredWait(check.ToolBudget) }

// declaredWait is the configured duration of a wait of setting s; a wait
// the descriptor does not declare is a harness error, since the catalogue
// would hide where the check's time goes.
func (c *C) declaredWait(s check.WaitSetting) time.Duration {
	if !c.D.Declares(s) {
		c.Errorf("check %s waits a %s it does not declare in its descriptor's Waits", c.D.ID, s)
	}
	return c.cfg.waitOnce(check.Wait{Setting: s}, target.Output{})
}

// Cleanup registers f to run when the check ends, last registered first.
func (c *C) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }

// Unordered says the check's transcript order depends on scheduling (its
// requests are concurrent), so it has no snapshot.
func (c *C) Unordered() { c.unordered = true }

// Options returns the run configuration.
func (c *C) Options() Options { return c.cfg }

// TempDir returns a directory removed when the check ends.
func (c *C) TempDir() string { return c.dir }

// SetSeed records the seed a property check used.
func (c *C) SetSeed(seed int64) { c.seed = seed }

// Secret names a value that must never reach a report (it is redacted).
func (c *C) Secret(s string) { c.secrets = c.secrets.With(s) }

// SetTranscript replaces the check's wire transcript.
func (c *C) SetTranscript(entries []transcript.Entry) { c.entries = entries }

// verdict is how a check body stops early.
type verdict struct {
	outcome check.Outcome
	message string
	// hardened marks a failure of a seed behaviour only (RequireHardened):
	// binding under the hardened profile, HARDENED under the spec one.
	hardened bool
	// level, when set, is the level of the specification rule the failure
	// breaks (RequireRule), which grades it in place of the check's own
	// level and source: a SHOULD broken in a check of a MUST is a WARN.
	level check.Level
}

// Failf ends the check: the rule is broken. expected lists every acceptable
// outcome; observed says what happened.
func (c *C) Failf(expected, observedFormat string, args ...any) {
	panic(verdict{outcome: check.Fail, message: "expected: " + expected + "\nobserved: " + fmt.Sprintf(observedFormat, args...)})
}

// Require fails the check unless ok.
func (c *C) Require(ok bool, expected, observedFormat string, args ...any) {
	if !ok {
		c.Failf(expected, observedFormat, args...)
	}
}

// RequireHardened fails the check unless ok, for a seed behaviour beyond
// the specification (a boundary value, a policy): under the hardened
// profile it fails like Require, under the spec profile the check ends
// HARDENED, reported apart and never failing the run.
func (c *C) RequireHardened(ok bool, expected, observedFormat string, args ...any) {
	if !ok {
		panic(verdict{outcome: check.Fail, message: "expected (hardened profile): " + expected + "\nobserved: " + fmt.Sprintf(observedFormat, args...), hardened: true})
	}
}

// Hardened reports whether the run binds the hardened profile.
func (c *C) Hardened() bool { return c.cfg.Profile == check.HardenedProfile }

// Errorf ends the check as ERROR: the harness could not judge (the target
// broke the adapter contract, or the harness itself failed). It is never a
// FAIL, no baseline absorbs it, and the run exits 2.
func (c *C) Errorf(format string, args ...any) {
	panic(verdict{outcome: check.Error, message: "harness error: " + fmt.Sprintf(format, args...)})
}

// NotStarted ends the check as ERROR because its target did not start (or
// its session could not be opened): nothing of the rule was observed, and
// it is neither the target's FAIL nor a defect of the harness.
func (c *C) NotStarted(format string, args ...any) {
	panic(verdict{outcome: check.Error, message: "not judged: " + fmt.Sprintf(format, args...)})
}

// Unimplemented ends the check as UNIMPLEMENTED: the implementation does not
// offer what the check needs; why says how to make it available.
func (c *C) Unimplemented(why string) { panic(verdict{outcome: check.Unimplemented, message: why}) }

// Info ends the check as INFO: the behaviour was observed and the spec
// leaves it to the implementation; observed says what it did.
func (c *C) Info(observed string) { panic(verdict{outcome: check.Info, message: observed}) }

// NotApplicable ends the check as N/A: the rule belongs to a protocol era
// the implementation does not serve, or what it is about never happened (a
// second handshake the client never made); why says what was observed.
func (c *C) NotApplicable(why string) { panic(verdict{outcome: check.NotApplicable, message: why}) }

// Expect is Gomega's Expect; a failed assertion fails the check.
func (c *C) Expect(actual any, extra ...any) types.Assertion {
	g := gomega.NewGomega(func(message string, _ ...int) {
		panic(verdict{outcome: check.Fail, message: "observed: " + message})
	})
	return g.Expect(actual, extra...)
}

// execute is a check's spec: run here when it is this process's to run
// (claim), its result recorded and told to Ginkgo.
func execute(d check.Descriptor, body func(c *C)) {
	mine, done, err := claim(d.ID, d.Serial)
	if err != nil {
		harnessFail(d, "harness: the parallel run's coordinator is gone: "+err.Error())
	}
	if !mine {
		ginkgo.Skip(NotMine)
	}
	begun := time.Now()
	defer func() { done(outcomeOf(d.ID, begun)) }()
	if Interrupted() {
		// Reached after the run was stopped: not run (Results says so).
		ginkgo.Skip(NotRunInterrupted)
	}
	cfg := Current()
	dir, err := os.MkdirTemp("", "mcpconform-check-")
	if err != nil {
		harnessFail(d, "harness: cannot create a temporary directory: "+err.Error())
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(runContext())
	defer cancel()
	owner, endScope := reaper.Scope(d.ID)
	defer endScope()
	c := &C{D: d, Ctx: ctx, cfg: cfg, dir: dir, secrets: cfg.Secrets.With(runSecrets(cfg)...)}
	start := time.Now()
	v, finished := runBounded(c, cancel, owner, func(c *C) {
		c.requireServerEra()
		body(c)
	})
	if finished {
		if problem := runCleanups(c); problem != "" && v.outcome != check.Error {
			v = verdict{outcome: check.Error, message: "harness error: a cleanup of the check failed: " + problem}
		}
	} else {
		// The abandoned body still owns c (and runs its cleanups when it
		// returns): the result is built from an empty one, with nothing
		// the body may still be writing.
		c = &C{D: d, Ctx: ctx, cfg: cfg, dir: dir, secrets: cfg.Secrets.With(runSecrets(cfg)...)}
	}
	// Whatever the check started and its cleanups left goes now (a check
	// that started no process has nothing of its own to reap).
	if reaper.ScopeStarted() {
		reaper.Reap(owner, ShutdownGrace)
	}
	msg := v.message
	if len(c.notes) > 0 {
		msg = strings.TrimSpace(msg + "\nnote: " + strings.Join(c.notes, "\nnote: "))
	}
	res := check.Result{Descriptor: d, Outcome: grade(d, v, cfg), Message: msg, DurationMS: time.Since(start).Milliseconds(), Seed: c.seed,
		SeedOnly: v.outcome == check.Fail && v.hardened, Transports: c.transports}
	if Interrupted() {
		// Its targets were killed under it: what it saw proves nothing.
		record(check.Result{Descriptor: d, Outcome: check.Skipped, Message: InterruptedWhileRunning, DurationMS: res.DurationMS})
		ginkgo.Skip(InterruptedWhileRunning)
	}
	res.Transcript, res.Message = c.evidence(res.Message)
	if snap := c.transcriptLines(transcript.NewNormaliser(), clientSide(c.entries)); cfg.SnapshotDir != "" && !c.unordered && observed(res.Outcome) && len(snap) > 0 {
		diff, err := report.MatchSnapshot(cfg.SnapshotDir, cfg.Implementation, d.ID, snap, cfg.UpdateSnapshots)
		switch {
		case err != nil:
			res.Outcome, res.Message = check.Fail, strings.TrimSpace(res.Message+"\nsnapshot: "+err.Error())
		case diff != "":
			res.Outcome, res.Message = check.Fail, strings.TrimSpace(res.Message+"\ntranscript differs from its snapshot:\n"+diff)
		}
	}
	if res.Outcome == check.Fail || res.Outcome == check.Warn || res.Outcome == check.HardenedMiss {
		if len(res.Transcript) == 0 {
			// Silence is the evidence: say so rather than show nothing.
			res.Transcript = c.transcriptLines(transcript.NewNormaliser(), []transcript.Entry{{Dir: transcript.Note, Line: "no message crossed the wire during this check"}})
		}
		res.Message = c.explain(res.Message, res.Transcript)
	}
	res = cfg.Baseline.Apply(d.Role, res)
	// Every text of the result is masked here, before the console (the
	// Fail and Skip below), the reports and the snapshots see it.
	res.Message = c.secrets.Redact(res.Message)
	record(res)
	ginkgo.AddReportEntry("outcome", string(res.Outcome), ginkgo.ReportEntryVisibilityFailureOrVerbose)
	switch res.Outcome {
	case check.Fail, check.Stale, check.Error:
		ginkgo.Fail(res.Message)
	case check.Unimplemented, check.NotApplicable, check.Skipped:
		ginkgo.Skip(string(res.Outcome) + ": " + res.Message)
	}
}

// harnessFail ends a check the harness failed before its body could run:
// ERROR, recorded so that the reports and the console show it.
func harnessFail(d check.Descriptor, msg string) {
	record(check.Result{Descriptor: d, Outcome: check.Error, Message: msg})
	ginkgo.Fail(msg)
}

// observed reports whether a check with the outcome watched the
// implementation behave, so its transcript is compared with a snapshot;
// ERROR, UNIMPLEMENTED, SKIPPED and N/A have nothing to compare.
func observed(o check.Outcome) bool {
	switch o {
	case check.Pass, check.Fail, check.Warn, check.HardenedMiss, check.Info:
		return true
	}
	return false
}

// grade turns a body's verdict into the check's outcome under the run's
// profile: a failure of a hardened rule (the check's source, or a
// RequireHardened assertion) is HARDENED under the spec profile; a failure
// below MUST (the check's level, or that of the spec rule RequireRule
// names) is WARN unless --strict.
func grade(d check.Descriptor, v verdict, cfg Options) check.Outcome {
	if v.outcome != check.Fail {
		return v.outcome
	}
	if v.level != "" {
		if v.level != check.MUST && !cfg.Strict {
			return check.Warn
		}
		return check.Fail
	}
	hardened := v.hardened || d.Source == check.Hardened
	switch {
	case hardened && cfg.Profile != check.HardenedProfile:
		return check.HardenedMiss
	case v.hardened:
		return check.Fail
	case d.Level != check.MUST && !cfg.Strict:
		return check.Warn
	}
	return check.Fail
}

// requireServerEra ends a server check of one transport N/A when the server
// under test does not serve its era. Checks of transport any judge each
// transport apart (EraApplies).
func (c *C) requireServerEra() {
	d := c.D
	if d.Role != check.Server || d.Transport == check.Any {
		return
	}
	if d.Transport == check.HTTP && c.cfg.ServerURL != "" || d.Transport == check.Stdio && len(c.cfg.ServerCommand) > 0 {
		c.RequireEra(d.Transport)
	}
}

// runBounded runs a check's body. A server check has a deadline of its
// own (Options.ServerCheckDeadline; a client check's adapter runs have
// theirs): past it, its context is cancelled and every process it started
// is killed, and a body that still has not returned after ShutdownGrace is
// abandoned (finished false: its cleanups would race it). Either way the
// check is an ERROR, for it could not be judged.
func runBounded(c *C, cancel func(), owner string, body func(c *C)) (v verdict, finished bool) {
	if c.D.Role != check.Server || c.cfg.ServerCheckDeadline <= 0 {
		return runBody(c, body), true
	}
	done := make(chan verdict, 1)
	go func() { done <- runBody(c, body) }()
	timer := time.NewTimer(c.cfg.ServerCheckDeadline)
	defer timer.Stop()
	select {
	case v := <-done:
		return v, true
	case <-timer.C:
	}
	cancel()
	reaper.Reap(owner, ShutdownGrace)
	late := verdict{outcome: check.Error, message: fmt.Sprintf("the check did not finish within its deadline of %s (--check-timeout): the target was stopped; a server that stops answering mid-check shows this", c.cfg.ServerCheckDeadline)}
	grace := time.NewTimer(ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
		return late, true
	case <-grace.C:
		go func() { <-done; runCleanups(c) }() // sessions end when the body does
		return late, false
	}
}

// runCleanups runs the check's cleanups, last registered first; it returns
// what the first one that panicked said ("" when none did).
func runCleanups(c *C) (problem string) {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		if cv := runBody(c, func(*C) { c.cleanups[i]() }); cv.outcome != check.Pass && problem == "" {
			problem = cv.message
		}
	}
	return problem
}

// runBody runs the body and turns its verdict (or its panic) into an outcome.
func runBody(c *C, body func(c *C)) (v verdict) {
	v = verdict{outcome: check.Pass}
	defer func() {
		if r := recover(); r != nil {
			if got, ok := r.(verdict); ok {
				v = got
				return
			}
			v = verdict{outcome: check.Error, message: fmt.Sprintf("harness error: the check panicked: %v", r)}
		}
	}()
	body(c)
	return v
}

// explain prefixes the requirement and appends the transcript's tail.
func (c *C) explain(msg string, lines []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "requirement (%s, %s): %s\n%s", c.D.Level, strings.Join(c.D.Rules, ", "), c.D.Requirement, msg)
	if c.seed != 0 {
		fmt.Fprintf(&b, "\nseed: %d (reproduce with --seed %d)", c.seed, c.seed)
	}
	if len(lines) > 0 {
		const tail = 12
		if len(lines) > tail {
			lines = lines[len(lines)-tail:]
		}
		b.WriteString("\ntranscript (last lines):\n  " + strings.Join(lines, "\n  "))
	}
	return b.String()
}

// clientSide keeps what the implementation under test did: its messages and
// the notes, in their order. How they interleave with the other side's
// lines depends on scheduling, so snapshots leave the other side out.
func clientSide(entries []transcript.Entry) []transcript.Entry {
	var out []transcript.Entry
	for _, e := range entries {
		if e.Dir != transcript.ServerToClient {
			out = append(out, e)
		}
	}
	return out
}

// evidence is the check's transcript, normalised and masked, and msg with
// the SSE event ids it names masked as the transcript shows them.
func (c *C) evidence(msg string) ([]string, string) {
	nz := transcript.NewNormaliser()
	lines := c.transcriptLines(nz, c.entries)
	return lines, nz.Message(msg)
}

// transcriptLines renders entries with nz, secrets masked.
func (c *C) transcriptLines(nz *transcript.Normaliser, entries []transcript.Entry) []string {
	if len(entries) == 0 {
		return nil
	}
	lines := nz.Lines(entries)
	for i := range lines {
		lines[i] = c.secrets.Redact(lines[i])
	}
	return lines
}

// Try runs f and returns the failure it ended with, if any, so a property
// check can judge one generated case at a time. Other verdicts pass through.
func (c *C) Try(f func()) (failed bool, message string) {
	defer func() {
		if r := recover(); r != nil {
			if v, ok := r.(verdict); ok && v.outcome == check.Fail {
				failed, message = true, v.message
				return
			}
			panic(r)
		}
	}()
	f()
	return false, ""
}
