package certify

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/mcpconform/mcpconform/harness/confclient"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/console"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/harness/usage"
	"github.com/mcpconform/mcpconform/suites/run"
)

// runOptions are the flags common to the certifying commands.
type runOptions struct {
	junit, json, markdown, html string
	snapshots                   string
	updateSnapshots             bool
	runTimeout                  time.Duration
	labelFilter                 string
	only, skip                  string
	expectedFailures            string
	strict                      bool
	profile                     string
	timeout                     time.Duration
	patience                    time.Duration
	checkTimeout                time.Duration // server: the deadline of one check
	probeTimeout                time.Duration // server: the deadline of each era probe
	quietWindow, toolBudget     time.Duration // server: the checks' declared waits
	callTools                   CallToolsFlag // server: which tools checks may call
	seed                        int64
	fuzz                        bool         // client: run the fuzz checks (kind:fuzz) too
	fuzzCases                   int          // client: cases per fuzz check
	parallel                    int          // checks at once (worker processes)
	command                     string       // the subcommand: client, server or "" (the default run)
	args                        []string     // the flags and command as given, for the workers
	color                       console.Mode // --color, or never with --no-color
	verbose                     bool
	url                         string     // server: the endpoint under test
	secrets                     SecretList // --secret: the values every output masks
	fixtures                    string     // server: the fixtures file
	authTokenCommand            string     // server: --auth-token-command, the shell command that prints bearer tokens
	target                      []string   // client: the adapter command after --
	conformanceClient           bool       // client: the command after -- is a conformance client of the official suite
}

// idList is a flag of comma-separated check IDs that a repeated use
// extends instead of replacing.
type idList string

func (l *idList) String() string { return string(*l) }

func (l *idList) Set(v string) error {
	if *l != "" {
		v = string(*l) + "," + v
	}
	*l = idList(v)
	return nil
}

// parseRunFlags reads the flags of client, server or the default run
// (name "mcpconform"); -h writes the command's help to stdout.
func parseRunFlags(name string, args []string, stdout io.Writer) (*runOptions, error) {
	o := &runOptions{args: args}
	if name != "mcpconform" {
		o.command = name
	}
	fs := usage.NewFlagSet(name)
	fs.StringVar(&o.junit, "junit", "", "write a JUnit XML report to `FILE`")
	fs.StringVar(&o.json, "json", "", "write the JSON index to `FILE`")
	fs.StringVar(&o.markdown, "markdown", "", "write a Markdown summary to `FILE`")
	fs.StringVar(&o.html, "html", "", "write a self-contained HTML report to `FILE`")
	// Snapshots are of what a client sent: server -h does not list them,
	// and server --snapshots says why it has none.
	fs.StringVar(&o.snapshots, "snapshots", "", "compare each client check's normalised transcript with its snapshot under `DIR`")
	fs.BoolVar(&o.updateSnapshots, "update-snapshots", false, "rewrite the snapshots under --snapshots")
	fs.StringVar(&o.labelFilter, "label-filter", "", "select checks by label, Ginkgo syntax: 'transport:stdio && level:MUST'")
	fs.Var((*idList)(&o.only), "only", "run only these comma-separated check `IDS` (repeatable)")
	fs.Var((*idList)(&o.skip), "skip", "skip these comma-separated check `IDS` (repeatable)")
	fs.StringVar(&o.expectedFailures, "expected-failures", "", "expected-failures baseline (YAML) `FILE`")
	fs.BoolVar(&o.strict, "strict", false, "treat WARN (a broken SHOULD) as FAIL")
	fs.StringVar(&o.profile, "profile", "", "the rules that bind: spec (the MCP specification; default for a target you name) or hardened (the seed behaviours too; default for the built-in reference)")
	timeoutUsage := "deadline for one adapter run; past it the adapter is killed and the check fails"
	if name == "server" {
		timeoutUsage = "how long an HTTP exchange with the server may take, and how long server.reverse.times-out lets the server wait for the client's answer"
	}
	fs.DurationVar(&o.timeout, "timeout", run.DefaultCheckDeadline, timeoutUsage)
	fs.DurationVar(&o.patience, "patience", run.DefaultPatience, "how long a check waits for an answer a correct implementation gives (a response, a cancellation, an exit) before it judges it missing; it elapses only against a broken one")
	fs.DurationVar(&o.runTimeout, "run-timeout", 0, "the whole run's budget; past it every target in flight is killed, the checks not finished are SKIPPED, the reports are written and the exit status is 2 (default: 1m plus 10s per selected check, stated at the start)")
	fs.IntVar(&o.parallel, "parallel", 0, "checks run at once, each worker a process of its own; the reports do not depend on it (1: one after the other in this process; "+
		"default: what this machine carries, from its cores and the selected checks' declared waits, at most what the run's memory bound allows)")
	fs.Int64Var(&o.seed, "seed", 0, "seed of the property checks (default: time-based, printed)")
	color := fs.String("color", string(console.Auto), "`WHEN` to colour the console: auto (on a terminal, unless NO_COLOR is set), always or never")
	noColor := fs.Bool("no-color", false, "the same as --color never")
	fs.BoolVar(&o.verbose, "v", false, "verbose console: on a terminal a line for every finished check, and after the run the message of every check that did not pass")
	fs.Var(&o.secrets, "secret", SecretFlagUsage)
	if name != "server" {
		fs.BoolVar(&o.fuzz, "fuzz", false, "also run the client fuzz checks ("+check.FuzzLabel+"): seeded random fake servers, the expected outcome computed from the rules")
		fs.IntVar(&o.fuzzCases, "fuzz-cases", run.DefaultFuzzCases, "cases each fuzz check runs with --fuzz (`N`); each case prints its own seed, which --seed S --fuzz-cases 1 replays")
	}
	if name != "client" {
		fs.DurationVar(&o.checkTimeout, "check-timeout", run.DefaultServerCheckDeadline, "deadline for one server check whatever the server does; past it the check's processes are killed and it is ERROR; without it, 2m or twice --timeout, --patience and --probe-timeout together, whichever is longer")
		fs.DurationVar(&o.quietWindow, "quiet-window", run.DefaultQuietWindow, "how long a server check listens where nothing may arrive (each check's waits: mcpconform list --format json)")
		fs.DurationVar(&o.toolBudget, "tool-budget", run.DefaultToolBudget, "how long a server check waits for a call of a tool it does not know; past it the call is cancelled and not judged")
		fs.Var(&o.callTools, "call-tools", CallToolsUsage)
	}
	if name == "client" {
		fs.BoolVar(&o.conformanceClient, "conformance-client", false, "the command after -- is a conformance client of the official suite (the server URL last, MCP_CONFORMANCE_SCENARIO set): run it as mcpconform adapter --conformance-client -- CMD… does")
	}
	if name == "server" {
		fs.StringVar(&o.url, "url", "", "the streamable HTTP endpoint of the server under test (default: the built-in reference)")
		fs.StringVar(&o.authTokenCommand, "auth-token-command", "", authTokenCommandUsage)
		fs.StringVar(&o.fixtures, "fixtures", "", "YAML `FILE` mapping behaviours (progress, logging, sampling, elicitation, roots, slow, failing) to tools")
		fs.DurationVar(&o.probeTimeout, "probe-timeout", run.DefaultProbeTimeout, "how long the server has to answer server/discover, then initialize, before any check (a server that answers neither stops the run); also the least time each check gives the server it starts to start")
	}
	if err := runHelp[name].Parse(fs, args, stdout); err != nil {
		return nil, err
	}
	o.target = fs.Args()
	mode, err := console.ParseMode(*color)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if o.color = mode; *noColor {
		o.color = console.Never
	}
	if err := checkTarget(name, "adapter", o.url, args, o.target); err != nil {
		return nil, err
	}
	if o.conformanceClient {
		if len(o.target) == 0 {
			return nil, fmt.Errorf("client: --conformance-client needs the conformance client's command after --: mcpconform client --conformance-client -- CMD…")
		}
		o.target = confclient.Command(o.target)
	}
	if o.parallel < 0 {
		return nil, fmt.Errorf("%s: --parallel must be 1 or more (or 0: what the machine carries), got %d", name, o.parallel)
	}
	if name != "client" && o.checkTimeout <= 0 {
		return nil, fmt.Errorf("%s: --check-timeout must be positive, got %s", name, o.checkTimeout)
	}
	if o.timeout <= 0 || o.runTimeout < 0 {
		return nil, fmt.Errorf("%s: --timeout must be positive and --run-timeout not negative, got %s and %s", name, o.timeout, o.runTimeout)
	}
	if o.patience < run.MinPatience {
		return nil, fmt.Errorf("%s: --patience %s is too short: checks tell a call that failed at once (within %s) from one that failed at its timeout, so use %s or more", name, o.patience, run.DefaultPrompt, run.MinPatience)
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if !explicit["check-timeout"] {
		// A server check may wait out --timeout (the server's own timeout
		// of a request to the client) and the patience after it, once per
		// transport, each after a start: the default deadline leaves room
		// for that whatever --timeout is.
		o.checkTimeout = max(o.checkTimeout, 2*(o.timeout+o.patience+o.probeTimeout))
	}
	if name != "server" && o.fuzzCases < 1 {
		return nil, fmt.Errorf("%s: --fuzz-cases must be 1 or more, got %d", name, o.fuzzCases)
	}
	if o.profile != "" {
		if _, err := check.ParseProfile(o.profile); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if name == "server" && o.probeTimeout <= 0 {
		return nil, fmt.Errorf("%s: --probe-timeout must be positive, got %s", name, o.probeTimeout)
	}
	if name != "client" {
		switch {
		case o.quietWindow <= 0:
			return nil, fmt.Errorf("%s: --quiet-window must be positive, got %s", name, o.quietWindow)
		case o.toolBudget <= 0:
			return nil, fmt.Errorf("%s: --tool-budget must be positive, got %s", name, o.toolBudget)
		}
	}
	if name == "server" && o.snapshots != "" {
		return nil, UsageError{fmt.Errorf("server: --snapshots: the server role has no snapshots; they hold what a client under test sends, which the server checks do not judge; use --snapshots with mcpconform client, or mcpconform alone for the reference client")}
	}
	if o.updateSnapshots && o.snapshots == "" {
		return nil, fmt.Errorf("%s: --update-snapshots needs --snapshots DIR", name)
	}
	return o, nil
}

// checkTarget checks the target flags of command name: rawURL (--url) is
// an http(s) URL with a host, and the command (target, what is left of
// args: the adapter's or the server's, as what says) comes after --.
func checkTarget(name, what, rawURL string, args, target []string) error {
	if rawURL != "" {
		if u, err := url.Parse(rawURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s: --url %q is not an http(s) URL with a host, e.g. http://127.0.0.1:8080/mcp", name, transcript.RedactURL(rawURL))
		}
	}
	if n := len(args) - len(target) - 1; len(target) > 0 && (n < 0 || args[n] != "--") {
		return fmt.Errorf("%s: unexpected argument %q; put the %s command after --: mcpconform %s [flags] -- CMD…", name, target[0], what, name)
	}
	return nil
}

// filter builds the Ginkgo label filter from the roles, --label-filter,
// --only and --skip, and validates it.
func (o *runOptions) filter(roles []check.Role) (string, error) {
	var rs []string
	for _, r := range roles {
		rs = append(rs, "role:"+string(r))
	}
	parts := []string{"(" + strings.Join(rs, " || ") + ")"}
	if o.labelFilter != "" {
		if _, err := types.ParseLabelFilter(o.labelFilter); err != nil {
			return "", fmt.Errorf("--label-filter %q: %v", o.labelFilter, err)
		}
		parts = append(parts, "("+o.labelFilter+")")
	}
	idFilter := func(flagName, list string) (string, error) {
		ids, err := check.ParseIDList(list)
		if err != nil || len(ids) == 0 {
			if err == nil {
				err = errors.New("no check IDs given")
			}
			return "", fmt.Errorf("--%s: %v", flagName, err)
		}
		for i, id := range ids {
			ids[i] = "id:" + id
		}
		return "(" + strings.Join(ids, " || ") + ")", nil
	}
	if o.only != "" {
		f, err := idFilter("only", o.only)
		if err != nil {
			return "", err
		}
		parts = append(parts, f)
	}
	if !o.fuzz {
		if id := fuzzCheckIn(o.only); id != "" {
			return "", fmt.Errorf("--only: %s is a fuzz check (%s); add --fuzz to run it", id, check.FuzzLabel)
		}
		parts = append(parts, "!"+check.FuzzLabel)
	}
	if o.skip != "" {
		f, err := idFilter("skip", o.skip)
		if err != nil {
			return "", err
		}
		parts = append(parts, "!"+f)
	}
	return strings.Join(parts, " && "), nil
}

// fuzzCheckIn returns the first fuzz check in a list of check IDs, or "".
func fuzzCheckIn(list string) string {
	ids, _ := check.ParseIDList(list)
	for _, id := range ids {
		if d, _ := check.Lookup(id); d.Fuzz {
			return id
		}
	}
	return ""
}

// Client runs the client checks against the adapter after -- (default: the
// reference adapter) and writes the reports.
func Client(args []string, stdout, stderr io.Writer) int {
	o, err := parseRunFlags("client", args, stdout)
	if err != nil {
		return ExitFor(err, stderr)
	}
	return certifyWith(o, []check.Role{check.Client}, stdout, stderr)
}

// Server runs the server checks against --url (default: the
// reference server, started in this process).
func Server(args []string, stdout, stderr io.Writer) int {
	o, err := parseRunFlags("server", args, stdout)
	if err != nil {
		return ExitFor(err, stderr)
	}
	return certifyWith(o, []check.Role{check.Server}, stdout, stderr)
}

// All certifies the built-in reference client and server.
func All(args []string, stdout, stderr io.Writer) int {
	o, err := parseRunFlags("mcpconform", args, stdout)
	if err != nil {
		return ExitFor(err, stderr)
	}
	if len(o.target) > 0 {
		return ExitFor(fmt.Errorf("mcpconform: no adapter without a command; use mcpconform client [flags] -- CMD…"), stderr)
	}
	return certifyWith(o, []check.Role{check.Client, check.Server}, stdout, stderr)
}

func certifyWith(o *runOptions, roles []check.Role, stdout, stderr io.Writer) int {
	secrets := RunSecrets(o.secrets, o.url)
	width, terminal := console.Terminal(stdout, os.Getenv)
	stdout, stderr = Masked(stdout, secrets), Masked(stderr, secrets)
	p, err := prepareRun(o, roles)
	if err != nil {
		return ExitFor(err, stderr)
	}
	p.secrets = secrets
	p.console = console.Options{Live: terminal, Colour: o.color.Colour(terminal, os.Getenv), Width: width,
		Total: p.selected, Budget: p.budget, Verbose: o.verbose}
	shard, isWorker := workerShard()
	limitMemory()
	if p.workers > 1 && !isWorker && p.selected > 1 {
		return certifyParallel(o, p, roles, stdout, stderr)
	}
	t, stop, err := startTargets(o, roles)
	if err != nil {
		return ExitFor(err, stderr)
	}
	defer stop()
	// Only the coordinator of a parallel run times it; its workers stop
	// when it tells them.
	budget := p.budget
	if isWorker {
		budget = 0
	}
	stopSignals := onSignal(stderr, budget, nil)
	defer stopSignals()
	cfg := runConfig(o, p, t)
	run.Configure(cfg)
	if isWorker {
		// The coordinator probed the targets once for the whole run.
		if err := takeHandoff(shard); err != nil {
			return ExitFor(err, stderr)
		}
		return runShard(shard, o, p, roles, stderr)
	}
	if err := preflight(cfg, p.judged); err != nil {
		return stopRun(o, p, roles, t, err, stderr)
	}
	run.StartCensus()
	fmt.Fprintf(stdout, "mcpconform %s: certifying %s (seed %d, profile %s, run budget %s)\n", Version, describeTarget(roles, o, t.url), o.seed, p.profile, p.budget)
	printDiscovery(stdout, roles, o.verbose)
	con := console.New(stdout, p.console)
	run.SetProgress(con)
	passed := runSpecs(o, p)
	run.SetProgress(nil)
	con.Close()
	return finishRun(o, p, roles, t, finished{results: run.Results(roles...), eras: probedEras(), info: probedInfo(), suite: lastReport, passed: passed}, stdout, stderr)
}

// prepared is what a run establishes before it starts anything: each
// piece checked, so that a usage error stops it at once.
type prepared struct {
	filter   string
	selected int          // checks the filter selects
	waiting  int          // of those, the checks that declare waits
	judged   []check.Role // the roles of those: the targets the pre-flight probes
	workers  int          // checks at once: --parallel, or what the machine carries (settleWorkers)
	// clientCap is the most client checks at once in a run of both roles
	// (their timings suffer from a crowded machine); 0 for no cap.
	clientCap int
	lowered   string // why workers is below --parallel, for the console
	baseline  *report.Baseline
	fixtures  FixturesFile
	profile   check.Profile
	budget    time.Duration
	secrets   transcript.Secrets // what every output masks
	console   console.Options    // how the run shows on stdout
}

// runConfig is the run's configuration, the same in the coordinator of a
// parallel run and in each of its workers.
func runConfig(o *runOptions, p *prepared, t targets) run.Options {
	return run.Options{ClientAdapter: t.adapter, ServerURL: t.url, ServerCommand: t.server, Implementation: t.implementation,
		Fixtures: p.fixtures.Roles, Unsafe: p.fixtures.Unsafe, CallTools: o.callTools.Over(p.fixtures), Seed: o.seed, Strict: o.strict, Profile: p.profile, Selection: p.filter,
		Baseline: p.baseline, SnapshotDir: o.snapshots, UpdateSnapshots: o.updateSnapshots, CheckDeadline: o.timeout, Patience: o.patience,
		ProbeTimeout: o.probeTimeout, QuietWindow: o.quietWindow, ToolBudget: o.toolBudget, Census: o.url != "", Fuzz: o.fuzz, FuzzCases: o.fuzzCases,
		Secrets: p.secrets, ServerCheckDeadline: o.checkTimeout, AuthTokenCommand: o.authTokenCommand, Protected: p.fixtures.Protected,
		ToolAlias: o.toolAlias()}
}

// toolAlias is the name the HTTP fakes list their first tool under: the
// official suite's tool (confclient.ScenarioTool) for a conformance
// client, which calls it by name; else none.
func (o *runOptions) toolAlias() string {
	if o.conformanceClient {
		return confclient.ScenarioTool
	}
	return ""
}

// prepareRun checks the flags' files and paths and settles the seed, the
// profile and the run budget.
func prepareRun(o *runOptions, roles []check.Role) (*prepared, error) {
	filter, err := o.filter(roles)
	if err != nil {
		return nil, err
	}
	p := &prepared{filter: filter}
	p.selected, p.waiting, p.judged = selectedChecks(roles, filter)
	for _, path := range []string{o.junit, o.json, o.markdown, o.html} {
		if err := checkWritable(path); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Stat(o.snapshots); o.snapshots != "" && err == nil && !fi.IsDir() {
		return nil, UsageError{fmt.Errorf("--snapshots %s is not a directory; name the directory that holds (or will hold) the snapshots", o.snapshots)}
	}
	if o.expectedFailures != "" {
		if p.baseline, err = report.LoadBaseline(o.expectedFailures); err != nil {
			return nil, err
		}
		if unknown := p.baseline.Unknown(func(id string) bool { _, ok := check.Lookup(id); return ok }); len(unknown) > 0 {
			return nil, fmt.Errorf("--expected-failures %s: %d unknown check IDs: %s; `mcpconform list` shows the catalogue", o.expectedFailures, len(unknown), firstOf(unknown, 10))
		}
	}
	if len(o.target) > 0 {
		if _, err := exec.LookPath(o.target[0]); err != nil {
			return nil, fmt.Errorf("command %q not found: %v; give a path or a command on PATH after --", o.target[0], err)
		}
	}
	if p.fixtures, err = LoadFixturesFile(o.fixtures); err != nil {
		return nil, err
	}
	if o.seed == 0 {
		o.seed = time.Now().UnixNano() % 1_000_000_000
	}
	p.profile = check.Profile(o.profile)
	if p.profile == "" {
		p.profile = check.SpecProfile
		if len(o.target) == 0 && o.url == "" {
			p.profile = check.HardenedProfile
		}
	}
	p.lowered = settleWorkers(o, p, roles)
	if p.budget = o.runTimeout; p.budget == 0 {
		p.budget = defaultRunTimeout(p.selected)
	}
	return p, nil
}

// targets are what a run certifies: the client adapter, and the server
// over HTTP and stdio.
type targets struct {
	adapter, server []string
	url             string
	implementation  string
	userServer      bool // the server is the user's, not the built-in reference
}

// startTargets is plannedTargets with the reference's HTTP server started
// when the run certifies the reference (stop ends it).
func startTargets(o *runOptions, roles []check.Role) (targets, func(), error) {
	t := plannedTargets(o, roles)
	if !slices.Contains(roles, check.Server) || t.userServer {
		return t, func() {}, nil
	}
	url, stop, err := serve.Start(run.ReferenceServer(""))
	if err != nil {
		return t, nil, fmt.Errorf("starting the reference server: %w", err)
	}
	t.url = url
	return t, func() { _ = stop() }, nil
}

// preflight probes, for the roles of the selected checks, the server of
// each transport the run names for its eras (and how long it takes to
// start), then finds the tools of the behaviours no fixture names
// (run.DiscoverFixtures), and the client adapter for its transports, once
// for the whole run: the checks, and the workers of a parallel run, reuse
// what it found. A target that is no MCP implementation stops the run
// here. An interrupted run skips what is left.
func preflight(cfg run.Options, roles []check.Role) error {
	if slices.Contains(roles, check.Server) {
		if err := probeTarget(cfg); err != nil && !run.Interrupted() {
			return err
		}
		if !run.Interrupted() {
			run.DiscoverFixtures()
		}
	}
	if slices.Contains(roles, check.Client) && !run.Interrupted() {
		if err := run.PreflightClient(context.Background()); err != nil && !run.Interrupted() {
			return err
		}
	}
	return nil
}

// runSpecs runs the selected checks through Ginkgo (unless the run is
// already interrupted) and reports whether the suite passed. Ginkgo's own
// console (its dots, its failures, its "Ran N of M Specs" footer) counts
// specs where mcpconform counts checks and outcomes, and would contradict
// the summary: it is silenced, the console shows the checks, and the
// summary is the one footer.
func runSpecs(o *runOptions, p *prepared) bool {
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = p.filter
	suiteConfig.RandomSeed = o.seed
	suiteConfig.GracePeriod = run.ShutdownGrace
	reporterConfig.NoColor = true
	reporterConfig.Succinct = true
	reporterConfig.SilenceSkips = true
	formatter.ColorableStdOut = io.Discard
	if run.Interrupted() {
		return true
	}
	var t failer
	return ginkgo.RunSpecs(&t, "mcpconform", suiteConfig, reporterConfig)
}

// probedEras is the era probes' evidence per transport.
func probedEras() map[string]string {
	eras := map[string]string{}
	for t, e := range run.ProbedEras() {
		eras[string(t)] = "the server " + e.Evidence
	}
	return eras
}

// probedInfo is the serverInfo each probed transport's server reported.
func probedInfo() map[string]string {
	info := map[string]string{}
	for t, e := range run.ProbedEras() {
		if e.Info != "" {
			info[string(t)] = e.Info
		}
	}
	return info
}

// finished is what the checks of a run left: one process's, or the
// merge of a parallel run's workers.
type finished struct {
	results []check.Result
	eras    map[string]string
	info    map[string]string // the serverInfo of each transport's server
	suite   types.Report      // Ginkgo's, for the JUnit report
	passed  bool
}

// finishRun writes the reports, prints the summary and returns the exit
// status.
func finishRun(o *runOptions, p *prepared, roles []check.Role, t targets, f finished, stdout, stderr io.Writer) int {
	ix := report.NewIndex(report.Tool{Name: "mcpconform", Version: Version}, targetOf(o, roles, t, f), o.seed, f.results)
	ix.Profile = p.profile
	ix.CertifiedEras = certifiedEras()
	ix.Interrupted, ix.InterruptedBy = run.Interrupted() || interruptedBy() != "", interruptedBy()
	if slices.Contains(roles, check.Server) {
		u := run.ToolUse()
		ix.Tools = &u
	}
	ix.Redact(p.secrets)
	if err := writeReports(o, ix, f.suite, p.secrets); err != nil {
		return ExitFor(err, stderr)
	}
	colour := p.console.Colour
	printFailures(stdout, ix.Checks, o.verbose, colour)
	printSuiteFailures(stdout, report.RedactReport(f.suite, p.secrets))
	code := interruptedExit()
	if code == 0 {
		code = ix.ExitCode()
	}
	if code == 0 && !f.passed {
		code = 1
	}
	printSummary(stdout, ix, code, colour)
	return code
}

// stopRun ends a run its pre-flight stopped (err says why): every report
// is written, its verdict ERROR with the reason and no checks, and err is
// the one message on stderr (exit status 2).
func stopRun(o *runOptions, p *prepared, roles []check.Role, t targets, err error, stderr io.Writer) int {
	ix := report.NewIndex(report.Tool{Name: "mcpconform", Version: Version}, targetOf(o, roles, t, finished{}), o.seed, nil)
	ix.Profile, ix.Stopped = p.profile, err.Error()
	ix.Redact(p.secrets)
	if werr := writeReports(o, ix, types.Report{}, p.secrets); werr != nil {
		return ExitFor(fmt.Errorf("%w; and the reports could not be written: %v", err, werr), stderr)
	}
	return ExitFor(err, stderr)
}

// targetOf describes what the run certifies, for the reports.
func targetOf(o *runOptions, roles []check.Role, t targets, f finished) map[string]any {
	target := map[string]any{"roles": roles, "implementation": t.implementation}
	if len(t.adapter) > 0 {
		target["adapter"] = t.adapter
	}
	if len(o.target) > 0 && len(t.server) > 0 {
		target["command"] = t.server
	}
	if o.url != "" {
		target["url"] = transcript.RedactURL(o.url)
	}
	if len(f.eras) > 0 {
		target["eras"] = f.eras
	}
	// What the implementations said they are, beside how they were run.
	for _, tr := range slices.Sorted(maps.Keys(f.info)) {
		target["server_info"] = f.info[tr] // the first transport's, in name order: the same whatever the run
		break
	}
	if info := run.ClientInfo(); info != "" && len(t.adapter) > 0 {
		target["client_info"] = info
	}
	return target
}

// probeTarget runs the era probe of each server transport the run names
// (its result is kept for the checks) and returns the one error of a
// target that is no MCP server at all, so the run stops before its checks.
func probeTarget(cfg run.Options) error {
	var transports []check.Transport
	if len(cfg.ServerCommand) > 0 {
		transports = append(transports, check.Stdio)
	}
	if cfg.ServerURL != "" {
		transports = append(transports, check.HTTP)
	}
	for _, t := range transports {
		if e := run.ProbeServer(t); e.NotAServer != "" {
			return errors.New(e.NotAServer)
		}
	}
	return nil
}

// implementationName names what is certified, for snapshot files: the
// reference, or the base name of the command or the URL's host.
func implementationName(o *runOptions) string {
	switch {
	case len(o.target) > 0:
		return filepath.Base(o.target[0])
	case o.url != "":
		if u, err := url.Parse(o.url); err == nil {
			return u.Host
		}
	}
	return "reference"
}

func describeTarget(roles []check.Role, o *runOptions, serverURL string) string {
	var parts []string
	if slices.Contains(roles, check.Client) {
		if len(o.target) == 0 {
			parts = append(parts, "the reference client")
		} else {
			parts = append(parts, "the client adapter "+strings.Join(o.target, " "))
		}
	}
	if slices.Contains(roles, check.Server) {
		switch {
		case o.url == "" && len(o.target) == 0 && serverURL == "":
			parts = append(parts, "the reference server (stdio and HTTP)")
		case o.url == "" && len(o.target) == 0:
			parts = append(parts, "the reference server (stdio, and HTTP at "+serverURL+")")
		case o.url != "":
			parts = append(parts, "the server at "+transcript.RedactURL(o.url))
		}
		if len(o.target) > 0 && !slices.Contains(roles, check.Client) {
			parts = append(parts, "the stdio server "+strings.Join(o.target, " "))
		}
	}
	return strings.Join(parts, " and ")
}

// writeReports writes the reports of a run from ix, already redacted, and
// Ginkgo's report, redacted here.
func writeReports(o *runOptions, ix *report.Index, suite types.Report, secrets transcript.Secrets) error {
	if o.junit != "" {
		if err := report.WriteJUnit(report.RedactReport(suite, secrets), ix, o.junit); err != nil {
			return err
		}
	}
	for _, w := range []struct {
		path  string
		write func(string, *report.Index) error
	}{{o.json, report.WriteJSON}, {o.markdown, report.WriteMarkdown}, {o.html, report.WriteHTML}} {
		if w.path == "" {
			continue
		}
		if err := w.write(w.path, ix); err != nil {
			return err
		}
	}
	return nil
}

// printSummary prints the run's footer: the era probes, the count per
// outcome, the scores, the eras certified, the checks that did not pass,
// and the verdict with the exit status.
func printSummary(w io.Writer, ix *report.Index, code int, colour bool) {
	if eras, ok := ix.Target["eras"].(map[string]string); ok {
		fmt.Fprintln(w)
		for _, t := range slices.Sorted(maps.Keys(eras)) {
			fmt.Fprintf(w, "era probe over %s: %s\n", t, eras[t])
		}
	}
	if ix.Interrupted {
		fmt.Fprintf(w, "\nINTERRUPTED by %s: the checks in flight and those not reached are SKIPPED\n", ix.InterruptedBy)
	}
	s := ix.Summary
	notSelected := 0
	for _, c := range ix.Checks {
		if c.Outcome == check.Skipped && c.Message == report.NotSelected {
			notSelected++
		}
	}
	// Only the outcomes that happened, in the reports' order.
	var counts []string
	for _, c := range []struct {
		n    int
		what string
	}{{s.Pass, "pass"}, {s.Fail, "fail"}, {s.Warn, "warn"}, {s.Hardened, "hardened"}, {s.Info, "info"},
		{s.Unimplemented, "unimplemented"}, {s.Skipped, fmt.Sprintf("skipped (%d not selected)", notSelected)},
		{s.NotApplicable, "not applicable"}, {s.XFail, "expected failures"}, {s.Stale, "stale"}, {s.Error, "error"}} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	fmt.Fprintf(w, "\n%s\n", cmp.Or(strings.Join(counts, ", "), "no check ran"))
	fmt.Fprintf(w, "%s (profile %s)\n", ix.Scores, ix.Profile)
	fmt.Fprintln(w, "  (scores count the checks judged: spec checks by level; hardened, the checks of a seed rule, where a spec check that also cites one counts again)")
	if eras := ix.CertifiedEras.String(); eras != "" {
		fmt.Fprintf(w, "eras certified: %s\n", eras)
	}
	for _, c := range ix.Checks {
		if c.Outcome != check.Pass && c.Outcome != check.Skipped && c.Outcome != check.NotApplicable {
			fmt.Fprintf(w, "  %s %s\n", console.Paint(colour, c.Outcome, fmt.Sprintf("%-13s", c.Outcome)), c.ID)
		}
	}
	if ix.Tools != nil {
		fmt.Fprintln(w, ix.Tools.Summary())
	}
	for _, why := range []string{run.NoServerURL, run.NoServerCommand} {
		n := 0
		for _, c := range ix.Checks {
			if c.Outcome == check.Skipped && c.Message == why {
				n++
			}
		}
		if n > 0 {
			fmt.Fprintf(w, "%s skipped: %s\n", count(n, "check"), why)
		}
	}
	fmt.Fprintln(w, verdict(ix, code, colour))
}

// verdict is the summary's last line: what the exit status says.
func verdict(ix *report.Index, code int, colour bool) string {
	s := ix.Summary
	switch {
	case ix.Interrupted:
		return console.Paint(colour, check.Error, "INTERRUPTED") + fmt.Sprintf(" by %s (exit %d)", ix.InterruptedBy, code)
	case s.Error > 0:
		return console.Paint(colour, check.Error, "ERROR") + fmt.Sprintf(": %s not judged (exit %d)", count(s.Error, "check"), code)
	case code == 0:
		return console.Paint(colour, check.Pass, "PASS") + ": every required check passed (exit 0)"
	case s.Fail+s.Stale == 0:
		return console.Paint(colour, check.Fail, "FAIL") + fmt.Sprintf(": the suite failed outside the checks (exit %d)", code)
	}
	var why []string
	if s.Fail > 0 {
		why = append(why, count(s.Fail, "check")+" failed")
	}
	if s.Stale > 0 {
		why = append(why, count(s.Stale, "baseline entry")+" stale")
	}
	return console.Paint(colour, check.Fail, "FAIL") + fmt.Sprintf(": %s (exit %d)", strings.Join(why, ", "), code)
}

// count is "1 check" or "2 checks" (entry: entries).
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if s, ok := strings.CutSuffix(noun, "y"); ok {
		return fmt.Sprintf("%d %sies", n, s)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// printFailures prints the message of each check that failed, warned or
// could not be judged (UNIMPLEMENTED: what the target must offer), or with
// verbose of each that did not pass, with the requirement, what was
// expected and observed, and the transcript's tail.
func printFailures(w io.Writer, checks []report.Check, verbose, colour bool) {
	for _, c := range checks {
		switch c.Outcome {
		case check.Fail, check.Stale, check.Error, check.Warn, check.Unimplemented:
			// What to act on: a broken rule, and what the target must
			// offer for a check to judge it.
		case check.Pass:
			continue
		default:
			if !verbose || report.LeftOut(c) {
				continue
			}
		}
		fmt.Fprintf(w, "\n%s [%s] %s\n", console.Paint(colour, c.Outcome, string(c.Outcome)), c.ID, c.Title)
		for _, line := range strings.Split(c.Message, "\n") {
			fmt.Fprintln(w, "  "+line)
		}
	}
}

// printSuiteFailures prints what failed in Ginkgo outside the checks (a
// suite-level node), which no check's outcome shows.
func printSuiteFailures(w io.Writer, r types.Report) {
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) && sr.State.Is(types.SpecStateFailureStates) {
			fmt.Fprintf(w, "\nharness: Ginkgo's %s failed: %s\n", sr.LeafNodeType, sr.Failure.Message)
		}
	}
}

// failer receives Ginkgo's suite-level failure.
type failer struct{ failed bool }

func (f *failer) Fail() { f.failed = true }

// lastReport is the suite report, kept for the JUnit writer.
var lastReport types.Report

var _ = ginkgo.ReportAfterSuite("mcpconform reports", func(r types.Report) { lastReport = r })

// selectedChecks counts the checks of roles that the label filter selects
// and of those the ones that declare waits, and lists the roles they are of.
func selectedChecks(roles []check.Role, filter string) (selected, waiting int, of []check.Role) {
	selects, err := run.Selects(filter)
	if err != nil {
		return len(check.All()), 0, roles // the filter was parsed before: not reached
	}
	for _, d := range check.All() {
		if slices.Contains(roles, d.Role) && selects(d) {
			selected++
			if len(d.Waits) > 0 {
				waiting++
			}
			if !slices.Contains(of, d.Role) {
				of = append(of, d.Role)
			}
		}
	}
	return selected, waiting, of
}

// defaultRunTimeout is the run budget without --run-timeout: a minute, and
// ten seconds a selected check.
func defaultRunTimeout(checks int) time.Duration {
	return time.Minute + time.Duration(checks)*10*time.Second
}

// firstOf lists the first n of xs, and how many more there are.
func firstOf(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:n], ", "), len(xs)-n)
}
