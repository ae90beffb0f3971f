// Package run is what the suites share: the run configuration (the target,
// timeouts, seed, baseline, snapshots) set by the CLI or a suite's test before
// RunSpecs, the Check function that turns a descriptor and a body into a
// Ginkgo spec, and the results the reports are made from.
package run

import (
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/adapter"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/httpclient"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/harness/stdio"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// Options are one run's configuration. The zero value of every field means
// its default (WithDefaults).
type Options struct {
	// ClientAdapter is the adapter command of the client under test; empty
	// means the reference adapter with ReferenceConfig.
	ClientAdapter []string
	// ToolAlias, when set, is the name under which the HTTP fakes list
	// their first tool, and a call of it calls that tool: a conformance
	// client (--conformance-client) calls the official suite's tool by
	// name.
	ToolAlias string
	// ServerURL is the streamable HTTP endpoint of the server under test.
	ServerURL string
	// ServerCommand is the argv of the stdio server under test, started
	// afresh for every check.
	ServerCommand []string
	// Fixtures map a role (progress, logging, sampling, …) to the tool of
	// the server under test that shows that behaviour.
	Fixtures map[string]Fixture
	// Implementation names the implementation for snapshot files.
	Implementation string
	// Seed drives every property check; the same seed reproduces the run.
	Seed int64
	// Strict turns WARN into FAIL.
	Strict bool
	// Profile is the set of rules that bind the run: spec (the default) or
	// hardened, which makes the seed behaviours binding too.
	Profile check.Profile
	// Baseline is the expected-failures baseline; nil for none.
	Baseline *report.Baseline
	// SnapshotDir, when set, compares each check's normalised transcript
	// with its snapshot there; UpdateSnapshots rewrites them.
	SnapshotDir     string
	UpdateSnapshots bool
	// Selection is the label filter (Ginkgo syntax) that selects the run's
	// checks; empty: every check of its roles.
	Selection string
	// Patience is how long a check waits for what a correct implementation
	// sends (a server's response, a client's cancellation): it elapses only
	// against a broken one. Client checks also give it to the client as the
	// call timeout where a correct client ends the call long before it, so
	// a client that waits for the timeout instead is reported (--patience).
	// Prompt is how soon "at once" must be.
	Patience time.Duration
	Prompt   time.Duration
	// ProbeTimeout bounds each era probe of a server (server/discover, then
	// initialize): past it, a server that answered neither is no MCP server.
	// It is also the least start-up budget of a check (StartupBudget).
	ProbeTimeout time.Duration
	// QuietWindow is how long a check listens where nothing may arrive
	// (check.QuietWindow); ToolBudget how long it waits for the answer to a
	// call of a tool it does not know before it cancels the call
	// (check.ToolBudget).
	QuietWindow, ToolBudget time.Duration
	// DiscoveryTools is how many tools the fixtures discovery calls at
	// most, for each declaration of the client's capabilities it calls
	// them under (DiscoverFixtures); each call waits Patience at most.
	DiscoveryTools int
	// Census: the run certifies a server at a URL the user gave, whose
	// tools a census classifies once for the checks that call every tool
	// (StartCensus).
	Census bool
	// CheckDeadline bounds one adapter run; past it the adapter's process
	// group is killed and the check fails.
	CheckDeadline time.Duration
	// Unsafe are tools no check calls, whatever else it does: the fixtures
	// file's `unsafe: [TOOL, …]`, tools that write, delete or reach out.
	Unsafe []string
	// CallTools is which tools checks may call (ToolPolicy): zero means
	// read-only, the tools the server marks readOnlyHint: true and not
	// openWorldHint: true, and those Fixtures name (--call-tools).
	CallTools toolpolicy.Mode
	// ServerCheckDeadline bounds one server check, whatever its target
	// does (zero: DefaultServerCheckDeadline); past it the check is ERROR.
	ServerCheckDeadline time.Duration
	// PropertySamples is how many cases each property check runs.
	PropertySamples int
	// Fuzz selects the fuzz checks (kind:fuzz); without it they are not
	// in the run at all. FuzzCases is how many cases each one runs.
	Fuzz      bool
	FuzzCases int
	// AuthTokenCommand is the shell command line that prints a bearer
	// token for the server under test (--auth-token-command; the contract
	// is target.RunTokenCommand's); empty: the auth checks that need a
	// token are UNIMPLEMENTED.
	AuthTokenCommand string
	// Protected says the server under test is a protected resource (the
	// fixtures file's protected: true): an auth check then fails where
	// the server lets a request without a token through, instead of being
	// N/A for an open server.
	Protected bool
	// Secrets are masked in every message, transcript and snapshot a check
	// records (--secret, the credentials of --url), beside the secrets of
	// the check itself (C.Secret).
	Secrets transcript.Secrets
}

// Fixture is a tool of the server under test and the arguments that make
// it show one behaviour.
type Fixture struct {
	Tool      string         `yaml:"tool" json:"tool"`
	Arguments map[string]any `yaml:"arguments" json:"arguments,omitempty"`
}

// Defaults for an Options' zero fields.
const (
	DefaultPatience = 5 * time.Second
	DefaultPrompt   = 2 * time.Second
	// MinPatience is the least Patience: checks tell a call failed at once
	// (within Prompt) from one failed at its timeout (Patience), so the
	// two stay apart by a Prompt at least.
	MinPatience                = 2 * DefaultPrompt
	DefaultCheckDeadline       = 30 * time.Second
	DefaultServerCheckDeadline = 2 * time.Minute
	DefaultProbeTimeout        = 5 * time.Second
	// StartupFactor is how many times the slowest start the era probe saw
	// a check gives a server to start (StartupBudget).
	StartupFactor          = 4
	DefaultPropertySamples = 8
	DefaultFuzzCases       = 20
	DefaultQuietWindow     = DefaultPrompt / 4
	DefaultToolBudget      = 500 * time.Millisecond
	DefaultDiscoveryTools  = 32
)

// ReferenceConfig are the reference adapter's settings when it is the
// client under test: the seed's rules with small limits, so a run is quick.
func ReferenceConfig(m mutant.Name) adapter.Config {
	c := stdio.DefaultConfig()
	c.MaxStdoutTextLines = 20
	c.MaxStdoutTextBytes = 4096
	c.CancelGrace = 200 * time.Millisecond
	c.ShutdownGrace = 300 * time.Millisecond
	// Start-up gets 5 s, not the seed's 10: short enough that the
	// start-up timeout checks (a fake that answers 2 s after it) stay quick,
	// long enough that a loaded machine (load 30 on 2 cores) starting a fake
	// that floods stderr first never takes the reference past it.
	c.StartupTimeout = 5 * time.Second
	h := httpclient.DefaultConfig("")
	h.MaxConcurrentRequests = 4
	h.MaxSSEEventSize = 64 << 10
	h.SessionRecoveryTimeout = time.Second
	h.ControlRequestTimeout = 500 * time.Millisecond
	return adapter.Config{Stdio: c, HTTP: h, Mutant: m}
}

// ReferenceAdapter is the argv of the reference adapter (or one of its
// mutants) as a child of this executable.
func ReferenceAdapter(m mutant.Name) []string {
	return selfexec.Command("adapter", ReferenceConfig(m).Flags()...)
}

var (
	cfgMu sync.Mutex
	cfg   Options
)

// Configure sets the run configuration; call it before RunSpecs.
func Configure(c Options) {
	resetRun()
	c = c.WithDefaults()
	cfgMu.Lock()
	cfg = c
	cfgMu.Unlock()
	resetResults()
	resetDeclared()
	resetEras()
	resetCensus()
	resetDiscovery()
}

// WithDefaults returns c with its zero fields set to their defaults.
func (c Options) WithDefaults() Options {
	if len(c.ClientAdapter) == 0 {
		c.ClientAdapter = ReferenceAdapter("")
	}
	if c.Profile == "" {
		c.Profile = check.SpecProfile
	}
	if c.Implementation == "" {
		c.Implementation = "implementation"
	}
	if c.Patience <= 0 {
		c.Patience = DefaultPatience
	}
	if c.Prompt <= 0 {
		c.Prompt = DefaultPrompt
	}
	if c.ProbeTimeout <= 0 {
		c.ProbeTimeout = DefaultProbeTimeout
	}
	if c.CheckDeadline <= 0 {
		c.CheckDeadline = DefaultCheckDeadline
	}
	if c.ServerCheckDeadline <= 0 {
		c.ServerCheckDeadline = DefaultServerCheckDeadline
	}
	if c.PropertySamples <= 0 {
		c.PropertySamples = DefaultPropertySamples
	}
	if c.FuzzCases <= 0 {
		c.FuzzCases = DefaultFuzzCases
	}
	if c.QuietWindow <= 0 {
		c.QuietWindow = DefaultQuietWindow
	}
	if c.ToolBudget <= 0 {
		c.ToolBudget = DefaultToolBudget
	}
	if c.DiscoveryTools <= 0 {
		c.DiscoveryTools = DefaultDiscoveryTools
	}
	return c
}

// StartupBudget is how long a check gives the server it just started (or
// the HTTP session it opens) to show it is there, beyond the check's own
// patience: StartupFactor times the slowest start the era probe measured
// (seen), never less than ProbeTimeout. A start is not the rule's time:
// a server that shows nothing within it did not start, and the check is
// an ERROR, never a FAIL.
func (c Options) StartupBudget(seen time.Duration) time.Duration {
	return max(c.ProbeTimeout, StartupFactor*seen)
}

// WaitDuration is the time wait w takes in one run of its check in this
// configuration, every time it elapses. A client-limit wait lasts the limit
// the client declares in its config line client, or the seed default where
// it declares none.
func (c Options) WaitDuration(w check.Wait, client target.Output) time.Duration {
	return w.Total(c.waitOnce(w, client))
}

// waitOnce is how long wait w lasts each time it elapses.
func (c Options) waitOnce(w check.Wait, client target.Output) time.Duration {
	switch w.Setting {
	case check.QuietWindow:
		return c.QuietWindow
	case check.ToolBudget:
		return c.ToolBudget
	case check.Prompt:
		return c.Prompt
	case check.Scripted:
		return w.Duration
	case check.ClientLimit:
		ms, ok := client.Int(w.Limit)
		if !ok {
			ms, _ = seedConfigLine().Int(w.Limit)
		}
		return time.Duration(ms) * time.Millisecond
	}
	return 0
}

// seedConfigLine is the config line of a client with the seed defaults.
func seedConfigLine() target.Output {
	s := adapter.Config{Stdio: stdio.DefaultConfig(), HTTP: httpclient.DefaultConfig("")}
	return target.Output{Config: s.ConfigLine()}
}

// ReferenceConfigLine is the config line of the reference client with
// ReferenceConfig: the limits its client-limit waits last when it is the
// client under test.
func ReferenceConfigLine() target.Output {
	return target.Output{Config: ReferenceConfig("").ConfigLine()}
}

// SlowTools are the tools a check that calls every tool cancels as soon as
// their call opened instead of waiting ToolBudget for them: the fixtures'
// slow role (a tool that answers only when cancelled), else the official
// fixture name "slow".
func SlowTools(fixtures map[string]Fixture) []string {
	if f, ok := fixtures["slow"]; ok {
		return []string{f.Tool}
	}
	return []string{"slow"}
}

// Current returns the run configuration.
func Current() Options {
	cfgMu.Lock()
	defer cfgMu.Unlock()
	return cfg
}

// ReferenceServer are the reference server's options when it is under test
// (over HTTP, in this process): small bounds, so the checks that wait for a
// slow tool or a reverse-request timeout finish quickly.
func ReferenceServer(m mutant.Name) serve.Options {
	return serve.Options{Mutant: m, SlowBound: referenceSlowBound, ReverseTimeout: referenceReverseTimeout}
}

// ReferenceServerCommand is the argv of the reference stdio server (or its
// mutant) with the same bounds. A mutant of the HTTP server transport leaves
// the stdio server the reference.
func ReferenceServerCommand(m mutant.Name) []string {
	args := []string{"--transport", "stdio", "--slow-bound", referenceSlowBound.String(), "--reverse-timeout", referenceReverseTimeout.String()}
	if m != "" && mutant.OfServerProtocol(m) {
		args = append(args, "--mutant", string(m))
	}
	return selfexec.Command("serve", args...)
}

const (
	referenceSlowBound      = 1500 * time.Millisecond
	referenceReverseTimeout = time.Second
)
