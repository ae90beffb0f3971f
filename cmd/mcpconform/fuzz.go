package main

import (
	"cmp"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/fuzz"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/harness/usage"
	"github.com/mcpconform/mcpconform/suites/run"
)

var fuzzHelp = usage.Help{
	Command: "mcpconform fuzz",
	Synopsis: []string{
		"[flags] -- CMD…   fuzz the stdio server CMD…",
		"[flags] --url U   fuzz the streamable HTTP server at U",
		"[flags]           fuzz the built-in reference server, stdio then HTTP",
	},
	About: `
Fuzzes an MCP server: gopter's stateful commands drive a model of the
session (initialize, list, call, ping, cancel, set level, progress,
subscriptions; over HTTP also DELETE and wrong headers) interleaved with
damaged frames, and check the invariants after every frame. A failure is
shrunk to a minimal case and the search goes on, until --duration,
--iterations or --max-findings: findings are grouped by their signature
(the invariant and the shape of the minimal case, without its ids and
strings), each group printed once with its count and first sequence, and
its case saved under --corpus. A signature listed under fuzz: in the
--expected-failures file is reported as known and fails nothing.
--profile spec (the default for a server you name) judges the
specification's invariants only; hardened (the default for the built-in
reference) adds max-rss and no-leftovers. Without a target it fuzzes the
built-in reference server over stdio, then over streamable HTTP, half
the duration each.

--bench measures instead: per target, four phases of a quarter of the
duration each (a ping round-trip loop on one connection, the fuzzer with
one worker, the loop on two connections, the fuzzer with two workers),
and prints executions per second beside the ceiling.

Exit status: 0 no new finding; 1 a new finding; 2 usage or harness error;
130 or 143 SIGINT or SIGTERM stopped it (the summary so far is printed).`,
	Examples: []string{
		"mcpconform fuzz --duration 5m -- ./my-server --stdio",
		"mcpconform fuzz --url http://127.0.0.1:8080/mcp --seed 42 --iterations 200 --corpus corpus",
		"mcpconform fuzz --duration 10m --max-findings 5 --expected-failures baseline.yaml -- ./my-server",
		"mcpconform fuzz --bench --duration 20s",
	},
}

// fuzzOptions are the flags of mcpconform fuzz.
type fuzzOptions struct {
	seed       int64
	duration   time.Duration
	iterations int
	workers    int
	maxRSS     int64
	timeout    time.Duration
	fixtures   string
	callTools  callToolsFlag
	policy     toolpolicy.Policy // the tools that may be called: --call-tools and the fixtures file
	tools      string
	corpus     string
	jsonPath   string
	junitPath  string
	url        string
	command    []string
	bench      bool
	// maxFindings ends the run at that many new groups of findings.
	maxFindings int
	// expected is the --expected-failures file; known its fuzz: section.
	expected string
	known    map[string]string
	// profile is "spec" or "hardened"; "" until the target is known.
	profile string
	secrets secretList
	// mask holds the --secret values and the credentials of --url: what
	// the console, the reports and saved cases never show.
	mask transcript.Secrets
}

func parseFuzzFlags(args []string, stdout io.Writer) (*fuzzOptions, error) {
	o := &fuzzOptions{}
	fs := usage.NewFlagSet("fuzz")
	fs.Int64Var(&o.seed, "seed", 0, "the seed (0: one from the clock, printed)")
	fs.DurationVar(&o.duration, "duration", time.Minute, "how long to search (0: no bound by time)")
	fs.IntVar(&o.iterations, "iterations", 0, "how many sequences to run (0: no bound by count)")
	fs.IntVar(&o.workers, "workers", 1, "sequences run side by side, each on its own connection")
	rss := fs.String("max-rss", "256MiB", "the most resident memory the server's process group may hold (stdio); 0 turns the check off")
	fs.DurationVar(&o.timeout, "timeout", fuzz.DefaultTimeout, "how long a request's answer may take")
	fs.StringVar(&o.fixtures, "fixtures", "", "YAML `FILE`: its slow role names the tool called only with its cancel; unsafe: [TOOL, …] are never called")
	fs.Var(&o.callTools, "call-tools", callToolsUsage)
	fs.StringVar(&o.tools, "tools", "", "fuzz only these comma-separated tools")
	fs.StringVar(&o.corpus, "corpus", "corpus", "the directory a finding's minimal case is saved to")
	fs.StringVar(&o.jsonPath, "json", "", "write the JSON report to `FILE`")
	fs.StringVar(&o.junitPath, "junit", "", "write a JUnit report to `FILE`")
	fs.StringVar(&o.url, "url", "", "fuzz the streamable HTTP server at `URL`")
	fs.IntVar(&o.maxFindings, "max-findings", 0, "end the run once `N` new groups of findings are found (0: no bound; known ones do not count)")
	fs.StringVar(&o.expected, "expected-failures", "", "the expected-failures baseline (YAML) `FILE`: the signatures under its fuzz: list are known findings, reported with their reason and failing nothing")
	fs.StringVar(&o.profile, "profile", "", "the invariants that bind: spec (the specification's; default for a server you name) or hardened (max-rss and no-leftovers too; default for the built-in reference)")
	fs.BoolVar(&o.bench, "bench", false, "measure instead of hunting: the ping ceiling and the fuzzer's executions/s with 1 and 2 workers, a quarter of --duration each")
	fs.Var(&o.secrets, "secret", secretFlagUsage)
	rest, command := splitCommand(args)
	if err := fuzzHelp.Parse(fs, rest, stdout); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, errUsage{fmt.Errorf("fuzz: unexpected argument %q; put the server command after --", fs.Arg(0))}
	}
	o.command = command
	o.mask = runSecrets(o.secrets, o.url)
	n, err := parseBytes(*rss)
	if err != nil {
		return nil, errUsage{fmt.Errorf("fuzz: --max-rss %q: %v; write e.g. 256MiB, 1GiB or 0", *rss, err)}
	}
	o.maxRSS = n
	switch {
	case o.url != "" && len(o.command) > 0:
		return nil, errUsage{errors.New("fuzz: give either --url or a command after --, not both")}
	case o.duration < 0 || o.iterations < 0 || o.maxFindings < 0 || o.workers < 1 || o.timeout <= 0:
		return nil, errUsage{fmt.Errorf("fuzz: --duration (%s), --iterations (%d) and --max-findings (%d) must not be negative, --workers (%d) and --timeout (%s) must be positive", o.duration, o.iterations, o.maxFindings, o.workers, o.timeout)}
	case o.profile != "" && o.profile != string(check.SpecProfile) && o.profile != string(check.HardenedProfile):
		return nil, errUsage{fmt.Errorf("fuzz: --profile %q: write spec or hardened", o.profile)}
	case o.duration == 0 && o.iterations == 0:
		return nil, errUsage{errors.New("fuzz: --duration 0 needs --iterations N, or the run would never end")}
	}
	if o.profile == "" {
		o.profile = string(check.SpecProfile)
		if o.url == "" && len(o.command) == 0 {
			o.profile = string(check.HardenedProfile)
		}
	}
	if o.expected != "" {
		b, err := report.LoadBaseline(o.expected)
		if err != nil {
			return nil, errUsage{fmt.Errorf("fuzz: %w", err)}
		}
		o.known = b.Fuzz()
	}
	if o.seed == 0 {
		o.seed = time.Now().UnixNano() % 1_000_000_000
	}
	return o, nil
}

// splitCommand splits args at the first "--".
func splitCommand(args []string) (flags, command []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// parseBytes reads 256MiB, 1GiB, 512KiB, 1000000.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.n
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("not a size")
	}
	return n * mult, nil
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
func (o *fuzzOptions) targets() ([]fuzzTarget, error) {
	switch {
	case o.url != "":
		return []fuzzTarget{{name: transcript.RedactURL(o.url), target: fuzz.Target{URL: o.url}}}, nil
	case len(o.command) > 0:
		return []fuzzTarget{{name: o.mask.Redact(strings.Join(o.command, " ")), target: fuzz.Target{Command: o.command}}}, nil
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

func fuzzCommand(args []string, stdout, stderr io.Writer) int {
	o, err := parseFuzzFlags(args, stdout)
	if err != nil {
		return exitFor(err, stderr)
	}
	stdout, stderr = masked(stdout, o.mask), masked(stderr, o.mask)
	fixtures, err := loadFixturesFile(o.fixtures)
	if err != nil {
		return exitFor(err, stderr)
	}
	o.policy = run.Options{Fixtures: fixtures.roles, Unsafe: fixtures.unsafe, CallTools: o.callTools.over(fixtures)}.ToolPolicy()
	slow := run.SlowTools(fixtures.roles)
	for _, p := range []string{o.jsonPath, o.junitPath} {
		if err := checkWritable(p); err != nil {
			return exitFor(err, stderr)
		}
	}
	targets, err := o.targets()
	if err != nil {
		return exitFor(err, stderr)
	}
	defer stopTargets(targets)
	ctx, cancel, caughtSignal := signalContext()
	defer cancel()
	fmt.Fprintf(stdout, "mcpconform fuzz --seed %d\n", o.seed)
	if o.bench {
		return fuzzBench(ctx, o, targets, stdout, stderr)
	}
	var runs []fuzzRun
	for _, t := range targets {
		cfg := fuzz.Options{Target: t.target, Seed: o.seed, Duration: o.duration / time.Duration(len(targets)), Iterations: o.iterations,
			Workers: o.workers, MaxFindings: o.maxFindings, Known: o.known, Policy: o.policy, Slow: slow, Progress: progressPrinter(stdout),
			ExecOptions: fuzz.ExecOptions{Timeout: o.timeout, MaxRSS: o.maxRSS, SpecOnly: o.profile == string(check.SpecProfile)}}
		if t.target.URL != "" {
			cfg.MaxRSS = 0
		}
		if o.tools != "" {
			cfg.Only = strings.Split(o.tools, ",")
		}
		fmt.Fprintf(stdout, "fuzzing %s for %s (profile %s)\n", t.name, bound(cfg), o.profile)
		rep, err := fuzz.Run(ctx, cfg)
		endProgress(stdout)
		if err != nil {
			return exitFor(fmt.Errorf("fuzz %s: %w", t.name, err), stderr)
		}
		run := fuzzRun{name: t.name, transport: t.target.Transport(), rep: rep}
		run.paths = printRun(stdout, o, t, rep)
		runs = append(runs, run)
		if ctx.Err() != nil {
			break
		}
	}
	if err := writeFuzzReports(o, runs); err != nil {
		return exitFor(err, stderr)
	}
	for _, r := range runs {
		for _, f := range r.rep.Findings {
			if f.Known == "" {
				return 1
			}
		}
	}
	if ctx.Err() != nil {
		return 128 + int(caughtSignal())
	}
	return 0
}

// signalContext is a context that SIGINT or SIGTERM ends, and the signal
// that ended it (SIGINT until one has).
func signalContext() (context.Context, context.CancelFunc, func() syscall.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var got atomic.Int32
	got.Store(int32(syscall.SIGINT))
	go func() {
		select {
		case s := <-sigs:
			if ss, ok := s.(syscall.Signal); ok {
				got.Store(int32(ss))
			}
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel() }, func() syscall.Signal { return syscall.Signal(got.Load()) }
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
func printRun(w io.Writer, o *fuzzOptions, t fuzzTarget, rep *fuzz.Report) []string {
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
		text := []byte(o.mask.Redact(string(f.Case.Format())))
		path := filepath.Join(o.corpus, fmt.Sprintf("fuzz-%s-seed%d.case", f.Signature, rep.Seed))
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
		fmt.Fprintf(w, "saved %s; reproduce with: mcpconform replay %s %s\n", path, path, replayTarget(t, o.mask))
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

// checkWritable refuses, before the run, a report path the run could not
// write (report.CheckWritable): a usage error.
func checkWritable(path string) error {
	if err := report.CheckWritable(path); err != nil {
		return errUsage{err}
	}
	return nil
}

// fuzzJSON is the JSON report of mcpconform fuzz.
type fuzzJSON struct {
	Tool    map[string]string `json:"tool"`
	Seed    int64             `json:"seed"`
	Targets []fuzzTargetJSON  `json:"targets"`
}

type fuzzTargetJSON struct {
	Target      string        `json:"target"`
	Transport   string        `json:"transport"`
	Iterations  int64         `json:"iterations"`
	Executions  int64         `json:"executions"`
	PerSecond   float64       `json:"executions_per_second"`
	ElapsedMS   int64         `json:"elapsed_ms"`
	Tools       []string      `json:"tools"`
	Skipped     []string      `json:"skipped,omitempty"`
	Interrupted bool          `json:"interrupted"`
	Findings    []findingJSON `json:"findings"`
	Warnings    []findingJSON `json:"warnings"`
	// Unconfirmed are breaks seen once that no run of their shrunk case
	// repeated: no findings.
	Unconfirmed []findingJSON `json:"unconfirmed"`
}

type findingJSON struct {
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
func (f findingJSON) redact(mask transcript.Secrets) findingJSON {
	f.Detail, f.Case = mask.Redact(f.Detail), mask.Redact(f.Case)
	for i, line := range f.Transcript {
		f.Transcript[i] = mask.Redact(line)
	}
	return f
}

func writeFuzzReports(o *fuzzOptions, runs []fuzzRun) error {
	doc := fuzzJSON{Tool: map[string]string{"name": "mcpconform", "version": Version}, Seed: o.seed}
	for _, r := range runs {
		t := fuzzTargetJSON{Target: r.name, Transport: r.transport, Iterations: r.rep.Stats.Iterations, Executions: r.rep.Stats.Executions,
			PerSecond: r.rep.Stats.PerSecond(), ElapsedMS: r.rep.Stats.Elapsed.Milliseconds(), Tools: r.rep.Tools, Skipped: r.rep.Skipped,
			Interrupted: r.rep.Interrupted, Findings: []findingJSON{}, Warnings: []findingJSON{}}
		for i, f := range r.rep.Findings {
			var path string
			if i < len(r.paths) {
				path = r.paths[i]
			}
			t.Findings = append(t.Findings, findingJSON{Signature: f.Signature, Shape: f.Shape, Count: f.Count, Known: f.Known, FirstSequence: f.Iteration, CasePath: path,
				Invariant: string(f.Violation.Invariant), Level: f.Violation.Invariant.Level(), Rules: fuzz.Rules(f.Violation.Invariant),
				Detail: f.Violation.Detail, Frames: len(f.Case.Frames), OriginalFrames: f.Original, Shrinks: f.Shrinks, Case: string(f.Case.Format()), Transcript: transcriptLines(f.Violation.Transcript)}.redact(o.mask))
		}
		t.Unconfirmed = []findingJSON{}
		for _, list := range []struct {
			to *[]findingJSON
			vs []*fuzz.Violation
		}{{&t.Warnings, r.rep.Warnings}, {&t.Unconfirmed, r.rep.Unconfirmed}} {
			for _, w := range list.vs {
				c := &fuzz.Case{Invariant: w.Invariant, Transport: r.transport, Seed: o.seed, Frames: w.Frames}
				*list.to = append(*list.to, findingJSON{Invariant: string(w.Invariant), Level: w.Invariant.Level(), Rules: fuzz.Rules(w.Invariant), Detail: w.Detail,
					Frames: len(w.Frames), Case: string(c.Format()), Transcript: transcriptLines(w.Transcript)}.redact(o.mask))
			}
		}
		doc.Targets = append(doc.Targets, t)
	}
	if o.jsonPath != "" {
		b, _ := json.MarshalIndent(doc, "", "  ")
		if err := report.WriteFile(o.jsonPath, append(b, '\n')); err != nil {
			return err
		}
	}
	if o.junitPath != "" {
		if err := report.WriteFile(o.junitPath, fuzzJUnit(doc)); err != nil {
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

// fuzzJUnit renders one testsuite per target and one testcase per
// invariant: failed when a finding broke it.
func fuzzJUnit(doc fuzzJSON) []byte {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		SystemOut string   `xml:"system-out,omitempty"`
	}
	type testsuite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	type testsuites struct {
		XMLName xml.Name    `xml:"testsuites"`
		Suites  []testsuite `xml:"testsuite"`
	}
	var out testsuites
	for _, t := range doc.Targets {
		s := testsuite{Name: "fuzz " + t.Transport + ": " + t.Target}
		for _, inv := range fuzz.Invariants() {
			c := testcase{Name: string(inv), Classname: "fuzz." + t.Transport}
			for _, f := range t.Findings {
				switch {
				case f.Invariant != string(inv):
				case f.Known != "":
					c.SystemOut += fmt.Sprintf("KNOWN %s (%d×; expected: %s): %s\n", f.Signature, f.Count, f.Known, f.Detail)
				case c.Failure == nil:
					c.Failure = &failure{Message: f.Signature + ": " + f.Detail, Text: f.Case + "\n" + strings.Join(f.Transcript, "\n")}
					s.Failures++
				default:
					c.Failure.Text += fmt.Sprintf("\n\nalso %s (%d×): %s\n%s", f.Signature, f.Count, f.Detail, f.Case)
				}
			}
			for _, w := range t.Warnings {
				if w.Invariant == string(inv) {
					c.SystemOut += "WARN (SHOULD): " + w.Detail + "\n" + w.Case + "\n" + strings.Join(w.Transcript, "\n")
				}
			}
			s.Cases = append(s.Cases, c)
		}
		s.Tests = len(s.Cases)
		out.Suites = append(out.Suites, s)
	}
	b, _ := xml.MarshalIndent(out, "", "  ")
	return append([]byte(xml.Header), append(b, '\n')...)
}
