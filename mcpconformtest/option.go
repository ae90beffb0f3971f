package mcpconformtest

import (
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
)

// Option is a setting of a run: most are a flag of mcpconform server or
// client, under the same name.
type Option func(*config)

// config is a run's settings: the command's flags, and what the test does
// with the outcomes.
type config struct {
	flags  []string
	only   []string
	json   string
	failOn []check.Outcome
}

func flagOption(args ...string) Option {
	return func(c *config) { c.flags = append(c.flags, args...) }
}

func durationOption(name string, d time.Duration) Option {
	return flagOption("--"+name, d.String())
}

// Profile is the rules that bind: "spec" (the default for a target you
// name) or "hardened" (the seed behaviours too).
func Profile(name string) Option { return flagOption("--profile", name) }

// Baseline is the expected-failures file (YAML, --expected-failures): a
// listed failure passes as XFAIL, a listed check that passes is STALE.
func Baseline(path string) Option { return flagOption("--expected-failures", path) }

// Fixtures is the YAML file mapping behaviours (progress, logging,
// sampling, …) to the server's tools (--fixtures; servers only).
func Fixtures(path string) Option { return flagOption("--fixtures", path) }

// Only runs only these checks (--only); with go test -run, the checks that
// both select.
func Only(ids ...string) Option {
	return func(c *config) { c.only = append(c.only, ids...) }
}

// Skip leaves these checks out (--skip).
func Skip(ids ...string) Option { return flagOption("--skip", strings.Join(ids, ",")) }

// LabelFilter selects checks by label, Ginkgo syntax (--label-filter):
// 'transport:stdio && level:MUST'.
func LabelFilter(expr string) Option { return flagOption("--label-filter", expr) }

// Seed is the seed of the property checks (--seed; default: time-based,
// logged).
func Seed(n int64) Option { return flagOption("--seed", strconv.FormatInt(n, 10)) }

// Parallel is how many checks run at once, each worker a process of its
// own (--parallel; default: what the machine carries).
func Parallel(n int) Option { return flagOption("--parallel", strconv.Itoa(n)) }

// Strict treats WARN (a broken SHOULD) as FAIL (--strict).
func Strict() Option { return flagOption("--strict") }

// FailOn makes these outcomes fail the test too: WARN, HARDENED or INFO,
// which are otherwise only logged.
func FailOn(outcomes ...check.Outcome) Option {
	return func(c *config) { c.failOn = append(c.failOn, outcomes...) }
}

// CallTools is which tools the checks may call (--call-tools): read-only
// (the default), all or none.
func CallTools(mode string) Option { return flagOption("--call-tools", mode) }

// Secret is a value masked wherever it would appear (--secret).
func Secret(value string) Option { return flagOption("--secret", value) }

// AuthTokenCommand is the shell command that prints bearer tokens for the
// auth checks (--auth-token-command; servers only).
func AuthTokenCommand(cmd string) Option { return flagOption("--auth-token-command", cmd) }

// JUnit writes a JUnit XML report to path (--junit).
func JUnit(path string) Option { return flagOption("--junit", path) }

// JSON writes the JSON index to path (--json).
func JSON(path string) Option { return func(c *config) { c.json = path } }

// Markdown writes a Markdown summary to path (--markdown).
func Markdown(path string) Option { return flagOption("--markdown", path) }

// HTML writes the self-contained HTML report to path (--html).
func HTML(path string) Option { return flagOption("--html", path) }

// Timeout is the deadline of one adapter run (--timeout).
func Timeout(d time.Duration) Option { return durationOption("timeout", d) }

// Patience is how long a check waits for an answer a correct
// implementation gives (--patience).
func Patience(d time.Duration) Option { return durationOption("patience", d) }

// RunTimeout is the whole run's budget (--run-timeout); by default the
// time the test has left before go test's -timeout, less a margin for the
// reports.
func RunTimeout(d time.Duration) Option { return durationOption("run-timeout", d) }

// CheckTimeout is the deadline of one server check (--check-timeout).
func CheckTimeout(d time.Duration) Option { return durationOption("check-timeout", d) }

// ProbeTimeout is how long the server has to answer the probes before any
// check (--probe-timeout).
func ProbeTimeout(d time.Duration) Option { return durationOption("probe-timeout", d) }

// QuietWindow is how long a server check listens where nothing may arrive
// (--quiet-window).
func QuietWindow(d time.Duration) Option { return durationOption("quiet-window", d) }

// ToolBudget is how long a server check waits for a call of a tool it does
// not know (--tool-budget).
func ToolBudget(d time.Duration) Option { return durationOption("tool-budget", d) }

// Flags passes flags of mcpconform server or client that no option names.
func Flags(args ...string) Option { return flagOption(args...) }
