package certify

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/fuzz"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// FuzzOptions are a fuzz run's settings, the flags of mcpconform fuzz;
// mcpconform replay's are the target (URL or Command), Timeout, MaxRSS
// and Mask.
type FuzzOptions struct {
	Seed       int64
	Duration   time.Duration
	Iterations int
	Workers    int
	MaxRSS     int64
	Timeout    time.Duration
	// Fixtures is the fixtures file: its slow role, its unsafe tools.
	Fixtures  string
	CallTools CallToolsFlag
	// Tools fuzzes only these comma-separated tools.
	Tools     string
	Corpus    string
	JSONPath  string
	JUnitPath string
	URL       string
	Command   []string
	Bench     bool
	// MaxFindings ends the run at that many new groups of findings.
	MaxFindings int
	// Known are the expected-failures file's fuzz: signatures, each with
	// its reason.
	Known map[string]string
	// Profile is "spec" or "hardened".
	Profile string
	// Mask holds the --secret values and the credentials of --url: what
	// the console, the reports and saved cases never show.
	Mask transcript.Secrets
	// policy is the tools that may be called: CallTools over the fixtures
	// file.
	policy toolpolicy.Policy
}

// fuzzTarget is one target to fuzz and how it is named in reports.
type fuzzTarget struct {
	name   string
	target fuzz.Target
	stop   func() error
}

// targets returns what to fuzz: the command or URL given, else the
// reference over stdio and over HTTP. A target's name is masked: it is
// printed and reported.
func (o *FuzzOptions) targets() ([]fuzzTarget, error) {
	switch {
	case o.URL != "":
		return []fuzzTarget{{name: transcript.RedactURL(o.URL), target: fuzz.Target{URL: o.URL}}}, nil
	case len(o.Command) > 0:
		return []fuzzTarget{{name: o.Mask.Redact(strings.Join(o.Command, " ")), target: fuzz.Target{Command: o.Command}}}, nil
	}
	url, stop, err := serve.Start(serve.Options{})
	if err != nil {
		return nil, err
	}
	return []fuzzTarget{
		{name: "the reference server over stdio", target: fuzz.Target{Command: selfexec.Command("serve", "--transport", "stdio")}},
		{name: "the reference server over streamable HTTP", target: fuzz.Target{URL: url}, stop: stop},
	}, nil
}

// stopTargets stops the built-in reference servers targets started.
func stopTargets(targets []fuzzTarget) {
	for _, t := range targets {
		if t.stop != nil {
			_ = t.stop()
		}
	}
}

// Fuzz runs mcpconform fuzz with o, printing its progress and findings
// to stdout and saving each finding's case under o.Corpus, and writes its
// reports; it reports whether a new finding (one not in o.Known) was
// made. The run ends early when ctx does (a signal). An error is a usage
// or harness error.
func Fuzz(ctx context.Context, o FuzzOptions, stdout io.Writer) (found bool, err error) {
	fixtures, err := LoadFixturesFile(o.Fixtures)
	if err != nil {
		return false, err
	}
	o.policy = run.Options{Fixtures: fixtures.Roles, Unsafe: fixtures.Unsafe, CallTools: o.CallTools.Over(fixtures)}.ToolPolicy()
	slow := run.SlowTools(fixtures.Roles)
	for _, p := range []string{o.JSONPath, o.JUnitPath} {
		if err := checkWritable(p); err != nil {
			return false, err
		}
	}
	targets, err := o.targets()
	if err != nil {
		return false, err
	}
	defer stopTargets(targets)
	fmt.Fprintf(stdout, "mcpconform fuzz --seed %d\n", o.Seed)
	if o.Bench {
		return fuzzBench(ctx, &o, targets, stdout)
	}
	var runs []fuzzRun
	start := time.Now()
	for _, t := range targets {
		cfg := fuzz.Options{Target: t.target, Seed: o.Seed, Duration: o.Duration / time.Duration(len(targets)), Iterations: o.Iterations,
			Workers: o.Workers, MaxFindings: o.MaxFindings, Known: o.Known, Policy: o.policy, Slow: slow, Progress: progressPrinter(stdout),
			ExecOptions: fuzz.ExecOptions{Timeout: o.Timeout, MaxRSS: o.MaxRSS, SpecOnly: o.Profile == string(check.SpecProfile)}}
		if t.target.URL != "" {
			cfg.MaxRSS = 0
		}
		if o.Tools != "" {
			cfg.Only = strings.Split(o.Tools, ",")
		}
		fmt.Fprintf(stdout, "fuzzing %s for %s (profile %s)\n", t.name, bound(cfg), o.Profile)
		rep, err := fuzz.Run(ctx, cfg)
		endProgress(stdout)
		if err != nil {
			return false, fmt.Errorf("fuzz %s: %w", t.name, err)
		}
		run := fuzzRun{name: t.name, transport: t.target.Transport(), rep: rep}
		run.paths = printRun(stdout, &o, t, rep)
		runs = append(runs, run)
		if ctx.Err() != nil {
			break
		}
	}
	if err := writeFuzzReports(&o, runs, start); err != nil {
		return false, err
	}
	for _, r := range runs {
		for _, f := range r.rep.Findings {
			if f.Known == "" {
				return true, nil
			}
		}
	}
	return false, nil
}

// fuzzRun is one target's report.
type fuzzRun struct {
	name, transport string
	rep             *fuzz.Report
	paths           []string // where each group's case was saved ("" where it could not be)
}

func bound(cfg fuzz.Options) string {
	switch {
	case cfg.Duration > 0 && cfg.Iterations > 0:
		return fmt.Sprintf("%s or %d sequences", cfg.Duration, cfg.Iterations)
	case cfg.Duration > 0:
		return cfg.Duration.String()
	}
	return fmt.Sprintf("%d sequences", cfg.Iterations)
}

// printRun prints a target's summary and its findings, group by group,
// saving each group's case once; it returns the saved paths, one for each
// group ("" where saving failed). A new group is printed with its case and
// transcript, a known one in a line with its reason.
func printRun(w io.Writer, o *FuzzOptions, t fuzzTarget, rep *fuzz.Report) []string {
	s := rep.Stats
	fmt.Fprintf(w, "%d sequences, %d executions in %s: %.0f executions/s; %d tools called", s.Iterations, s.Executions, s.Elapsed.Round(time.Millisecond), s.PerSecond(), len(rep.Tools))
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, ", left out: %s", strings.Join(rep.Skipped, ", "))
	}
	fmt.Fprintln(w)
	for _, warn := range rep.Warnings {
		fmt.Fprintf(w, "WARN %s (%s, SHOULD): %s\n", warn.Invariant, strings.Join(fuzz.Rules(warn.Invariant), ", "), warn.Detail)
		printTranscript(w, warn.Transcript)
	}
	for _, u := range rep.Unconfirmed {
		fmt.Fprintf(w, "UNCONFIRMED %s: %s\n", u.Invariant, u.Detail)
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintln(w, "no finding")
		return nil
	}
	paths := make([]string, len(rep.Findings))
	for i := range rep.Findings {
		f := &rep.Findings[i]
		text := []byte(o.Mask.Redact(string(f.Case.Format())))
		path := filepath.Join(o.Corpus, fmt.Sprintf("fuzz-%s-seed%d.case", f.Signature, rep.Seed))
		if err := report.WriteFile(path, text); err != nil {
			fmt.Fprintf(w, "could not save the case of %s: %v\n", f.Signature, err)
			continue
		}
		paths[i] = path
		if f.Known != "" {
			fmt.Fprintf(w, "KNOWN %s (%d×): %s; expected: %s\n", f.Signature, f.Count, f.Violation.Detail, f.Known)
			continue
		}
		fmt.Fprintf(w, "FINDING %s (%d×) %s: %s\n", f.Signature, f.Count, f.Violation.Invariant, f.Violation.Detail)
		fmt.Fprintf(w, "shrunk from %d frames to %d in %d runs; seed %d, sequence %d\n", f.Original, len(f.Case.Frames), f.Shrinks, rep.Seed, f.Iteration)
		fmt.Fprintf(w, "saved %s; reproduce with: mcpconform replay %s %s\n", path, path, replayTarget(t, o.Mask))
		fmt.Fprintf(w, "\n%s\n", text)
		printTranscript(w, f.Violation.Transcript)
	}
	fmt.Fprintf(w, "findings by signature (%d groups):\n", len(rep.Findings))
	for i, f := range rep.Findings {
		status := "new"
		if f.Known != "" {
			status = "known"
		}
		fmt.Fprintf(w, "  %-5s %-32s %-13s %4d×  first: seed %d, sequence %d  %s\n", status, f.Signature, f.Violation.Invariant, f.Count, rep.Seed, f.Iteration, cmp.Or(paths[i], "(not saved)"))
	}
	return paths
}

// printTranscript prints the wire of a recording run of a case.
func printTranscript(w io.Writer, entries []transcript.Entry) {
	if len(entries) == 0 {
		return
	}
	fmt.Fprintln(w, "transcript of a run of these frames:")
	for _, line := range transcriptLines(entries) {
		fmt.Fprintln(w, "  "+line)
	}
}

// replayTarget is how the reproduce line names the target, masked: the
// credentials of a URL or a command are the user's to put back.
func replayTarget(t fuzzTarget, mask transcript.Secrets) string {
	if t.target.URL != "" {
		return "--url " + transcript.RedactURL(t.target.URL)
	}
	return "-- " + mask.Redact(strings.Join(t.target.Command, " "))
}

// progressPrinter prints the figures so far: one line rewritten in place
// on a terminal, a plain line every ten seconds otherwise.
func progressPrinter(w io.Writer) func(fuzz.Stats) {
	tty := isTerminal(w)
	var last time.Time
	return func(s fuzz.Stats) {
		line := fmt.Sprintf("%d sequences, %d executions, %.0f/s, %d findings, %s elapsed", s.Iterations, s.Executions, s.PerSecond(), s.Findings, s.Elapsed.Round(time.Second))
		if s.Remaining >= 0 {
			line += fmt.Sprintf(", %s remaining", s.Remaining.Round(time.Second))
		}
		if tty {
			fmt.Fprintf(w, "\r\033[K%s", line)
			return
		}
		if time.Since(last) >= 10*time.Second {
			last = time.Now()
			fmt.Fprintln(w, line)
		}
	}
}

func endProgress(w io.Writer) {
	if isTerminal(w) {
		fmt.Fprint(w, "\r\033[K")
	}
}

// isTerminal reports whether w, or the console a maskedWriter wraps, is a
// terminal.
func isTerminal(w io.Writer) bool {
	if m, ok := w.(maskedWriter); ok {
		w = m.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// FuzzJSON is the JSON report of mcpconform fuzz.
type FuzzJSON struct {
	Tool    map[string]string `json:"tool"`
	Seed    int64             `json:"seed"`
	Targets []FuzzTargetJSON  `json:"targets"`
}

type FuzzTargetJSON struct {
	Target      string        `json:"target"`
	Transport   string        `json:"transport"`
	Iterations  int64         `json:"iterations"`
	Executions  int64         `json:"executions"`
	PerSecond   float64       `json:"executions_per_second"`
	ElapsedMS   int64         `json:"elapsed_ms"`
	Tools       []string      `json:"tools"`
	Skipped     []string      `json:"skipped,omitempty"`
	Interrupted bool          `json:"interrupted"`
	Findings    []FindingJSON `json:"findings"`
	Warnings    []FindingJSON `json:"warnings"`
	// Unconfirmed are breaks seen once that no run of their shrunk case
	// repeated: no findings.
	Unconfirmed []FindingJSON `json:"unconfirmed"`
}

type FindingJSON struct {
	// Signature names a finding's group, Shape is what it hashes; Count
	// is how many sequences showed it; Known the reason the
	// expected-failures file gives ("" for a new finding); FirstSequence
	// the first sequence that showed it; CasePath where its case was
	// saved. Warnings carry none of them.
	Signature      string   `json:"signature,omitempty"`
	Shape          string   `json:"shape,omitempty"`
	Count          int      `json:"count,omitempty"`
	Known          string   `json:"known,omitempty"`
	FirstSequence  int64    `json:"first_sequence,omitempty"`
	CasePath       string   `json:"case_path,omitempty"`
	Invariant      string   `json:"invariant"`
	Level          string   `json:"level"`
	Rules          []string `json:"rules"`
	Detail         string   `json:"detail"`
	Frames         int      `json:"frames,omitempty"`
	OriginalFrames int      `json:"original_frames,omitempty"`
	Shrinks        int      `json:"shrinks,omitempty"`
	// Case is the frames in the corpus format; Transcript the wire of a
	// run of them.
	Case       string   `json:"case"`
	Transcript []string `json:"transcript"`
}

// redact masks what a finding holds of the server's words and of the
// wire: the JSON and JUnit reports are written from it.
func (f FindingJSON) redact(mask transcript.Secrets) FindingJSON {
	f.Detail, f.Case = mask.Redact(f.Detail), mask.Redact(f.Case)
	for i, line := range f.Transcript {
		f.Transcript[i] = mask.Redact(line)
	}
	return f
}

// writeFuzzReports writes the run's JSON and JUnit reports; start is when
// it began.
func writeFuzzReports(o *FuzzOptions, runs []fuzzRun, start time.Time) error {
	doc := FuzzJSON{Tool: map[string]string{"name": "mcpconform", "version": Version}, Seed: o.Seed}
	for _, r := range runs {
		t := FuzzTargetJSON{Target: r.name, Transport: r.transport, Iterations: r.rep.Stats.Iterations, Executions: r.rep.Stats.Executions,
			PerSecond: r.rep.Stats.PerSecond(), ElapsedMS: r.rep.Stats.Elapsed.Milliseconds(), Tools: r.rep.Tools, Skipped: r.rep.Skipped,
			Interrupted: r.rep.Interrupted, Findings: []FindingJSON{}, Warnings: []FindingJSON{}}
		for i, f := range r.rep.Findings {
			var path string
			if i < len(r.paths) {
				path = r.paths[i]
			}
			t.Findings = append(t.Findings, FindingJSON{Signature: f.Signature, Shape: f.Shape, Count: f.Count, Known: f.Known, FirstSequence: f.Iteration, CasePath: path,
				Invariant: string(f.Violation.Invariant), Level: f.Violation.Invariant.Level(), Rules: fuzz.Rules(f.Violation.Invariant),
				Detail: f.Violation.Detail, Frames: len(f.Case.Frames), OriginalFrames: f.Original, Shrinks: f.Shrinks, Case: string(f.Case.Format()), Transcript: transcriptLines(f.Violation.Transcript)}.redact(o.Mask))
		}
		t.Unconfirmed = []FindingJSON{}
		for _, list := range []struct {
			to *[]FindingJSON
			vs []*fuzz.Violation
		}{{&t.Warnings, r.rep.Warnings}, {&t.Unconfirmed, r.rep.Unconfirmed}} {
			for _, w := range list.vs {
				c := &fuzz.Case{Invariant: w.Invariant, Transport: r.transport, Seed: o.Seed, Frames: w.Frames}
				*list.to = append(*list.to, FindingJSON{Invariant: string(w.Invariant), Level: w.Level(), Rules: fuzz.Rules(w.Invariant), Detail: w.Detail,
					Frames: len(w.Frames), Case: string(c.Format()), Transcript: transcriptLines(w.Transcript)}.redact(o.Mask))
			}
		}
		doc.Targets = append(doc.Targets, t)
	}
	if o.JSONPath != "" {
		b, _ := json.MarshalIndent(doc, "", "  ")
		if err := report.WriteFile(o.JSONPath, append(b, '\n')); err != nil {
			return err
		}
	}
	if o.JUnitPath != "" {
		if err := report.WriteJUnitDocument(fuzzJUnit(doc, start), o.JUnitPath); err != nil {
			return err
		}
	}
	return nil
}

// transcriptLines renders a transcript as the check reports do: one line
// per entry, its direction first.
func transcriptLines(entries []transcript.Entry) []string {
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = e.Dir + " " + e.Line
	}
	return lines
}

// fuzzJUnit is the JUnit document of a fuzz run, written by the
// checks' writer (report.JUnitTestCase, report.JUnitDocument): a testsuite
// per target, a testcase per invariant, its outcome what the run found of
// it (fuzzOutcome).
func fuzzJUnit(doc FuzzJSON, start time.Time) reporters.JUnitTestSuites {
	timestamp := start.UTC().Format("2006-01-02T15:04:05")
	props := reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
		{Name: "tool", Value: strings.TrimSpace(doc.Tool["name"] + " " + doc.Tool["version"])},
		{Name: "seed", Value: strconv.FormatInt(doc.Seed, 10)},
	}}
	var suites []reporters.JUnitTestSuite
	var elapsed float64
	for _, t := range doc.Targets {
		s := reporters.JUnitTestSuite{Name: "fuzz " + t.Transport + ": " + t.Target, Package: "mcpconform", Timestamp: timestamp,
			Time: float64(t.ElapsedMS) / 1000, Properties: props}
		elapsed += s.Time
		for _, inv := range fuzz.Invariants() {
			o, msg := fuzzOutcome(t, string(inv))
			s.TestCases = append(s.TestCases, report.JUnitTestCase(string(inv), "fuzz."+t.Transport, o, msg, 0))
		}
		suites = append(suites, s)
	}
	return report.JUnitDocument(suites, elapsed)
}

// fuzzOutcome is what a fuzz run found of invariant inv on a target, as
// a check's outcome and message: FAIL when a new finding broke it (the
// first group's case and transcript, then the others'), else WARN when it
// broke only as a SHOULD, else XFAIL when only known findings broke it
// (each with its expected-failures reason), else PASS.
func fuzzOutcome(t FuzzTargetJSON, inv string) (check.Outcome, string) {
	var failed, warned, known []string
	for _, f := range t.Findings {
		switch {
		case f.Invariant != inv:
		case f.Known != "":
			known = append(known, fmt.Sprintf("KNOWN %s (%d×; expected: %s): %s", f.Signature, f.Count, f.Known, f.Detail))
		case len(failed) == 0:
			failed = append(failed, f.Signature+": "+f.Detail+"\n"+f.Case+"\n"+strings.Join(f.Transcript, "\n"))
		default:
			failed = append(failed, fmt.Sprintf("also %s (%d×): %s\n%s", f.Signature, f.Count, f.Detail, f.Case))
		}
	}
	for _, w := range t.Warnings {
		if w.Invariant == inv {
			warned = append(warned, "SHOULD: "+w.Detail+"\n"+w.Case+"\n"+strings.Join(w.Transcript, "\n"))
		}
	}
	switch {
	case len(failed) > 0:
		return check.Fail, strings.Join(slices.Concat(failed, warned, known), "\n\n")
	case len(warned) > 0:
		return check.Warn, strings.Join(slices.Concat(warned, known), "\n\n")
	case len(known) > 0:
		return check.ExpectedFail, strings.Join(known, "\n")
	}
	return check.Pass, ""
}
