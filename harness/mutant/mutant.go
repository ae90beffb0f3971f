// Package mutant names the mutants of the reference implementations: each
// breaks exactly one rule, and the self-test proves that some check kills it.
// The reference code consults the active mutant (a Name) at the one place
// where it keeps that rule.
package mutant

import (
	"fmt"
	"sort"
	"strings"
)

// Name is a mutant's name; the empty Name is the reference itself.
type Name string

// Mutants of the reference stdio client (mcpconform adapter --mutant NAME).
const (
	SkipDamagedBrace       Name = "skip-damaged-brace"
	SkipDamagedBatch       Name = "skip-damaged-batch"
	SkipJSONRPCMention     Name = "skip-jsonrpc-mention"
	SkipNonObject          Name = "skip-non-object"
	DamagedFailsLate       Name = "damaged-fails-late"
	NoLineBudget           Name = "no-line-budget"
	LineBudgetOffByOne     Name = "line-budget-off-by-one"
	NoByteBudget           Name = "no-byte-budget"
	ByteBudgetOffByOne     Name = "byte-budget-off-by-one"
	ZeroBudgetMeansDefault Name = "zero-budget-means-default"
	TextFatalBeforeInit    Name = "text-fatal-before-initialize"
	DropAfterText          Name = "drop-after-text"
	QuoteSkippedLine       Name = "quote-skipped-line"
	ReportEverySkippedLine Name = "report-every-skipped-line"
	NoStderrDrain          Name = "no-stderr-drain"
	StderrVolumeFatal      Name = "stderr-volume-fatal"
	LeakStderr             Name = "leak-stderr"
	NoCancelNotification   Name = "no-cancel-notification"
	NoCancelGrace          Name = "no-cancel-grace"
	NoSigterm              Name = "no-sigterm"
	NoSigkill              Name = "no-sigkill"
	SigtermBeforeEOF       Name = "sigterm-before-eof"
	NoProcessGroup         Name = "no-process-group"
	NoStartupTimeout       Name = "no-startup-timeout"
	CancelInitialize       Name = "cancel-initialize"
	IDTypeConfusion        Name = "id-type-confusion"
	FIFOCorrelation        Name = "fifo-correlation"
	StdinBlankLines        Name = "stdin-blank-lines"
	DiscoverNoFallback     Name = "discover-no-fallback"
	IgnoreExit             Name = "ignore-exit"
)

// Mutant describes one mutant.
type Mutant struct {
	Name        Name
	Role        string // "client" or "server": which reference it mutates
	Description string // the one rule it breaks
}

var catalogue = []Mutant{
	{SkipDamagedBrace, "client", "skips a stdout line that starts with '{' but does not parse (NG-01)"},
	{SkipDamagedBatch, "client", "skips a '[' line that opens a batch but does not parse (NG-01)"},
	{SkipJSONRPCMention, "client", "skips a non-JSON line that mentions \"jsonrpc\" (NG-01)"},
	{SkipNonObject, "client", "skips JSON lines that are neither an object nor a batch (NG-02)"},
	{DamagedFailsLate, "client", "ends the session on a damaged line but leaves pending calls to their timeouts (NG-02)"},
	{NoLineBudget, "client", "skips any number of text lines (NG-03)"},
	{LineBudgetOffByOne, "client", "fails on the last line of the line budget instead of the one after (NG-03)"},
	{NoByteBudget, "client", "skips any number of text bytes (NG-03)"},
	{ByteBudgetOffByOne, "client", "fails when the byte budget is exactly spent instead of past it (NG-03)"},
	{ZeroBudgetMeansDefault, "client", "treats a budget of 0 as the default budget (NG-03)"},
	{TextFatalBeforeInit, "client", "ends the session on any text line before the initialize reply (NG-01, NG-03)"},
	{DropAfterText, "client", "loses the message that follows a skipped text line (NG-12)"},
	{QuoteSkippedLine, "client", "quotes the first skipped line in its report (NG-04)"},
	{ReportEverySkippedLine, "client", "reports every skipped line instead of the first only (NG-04)"},
	{NoStderrDrain, "client", "never reads the server's stderr, so a flood blocks the server (NG-05)"},
	{StderrVolumeFatal, "client", "ends the session when stderr passes max_stderr_bytes (NG-05, ST-08)"},
	{LeakStderr, "client", "puts the captured stderr tail into its error messages (NG-06)"},
	{NoCancelNotification, "client", "times out a call without sending notifications/cancelled (NG-07, LC-31)"},
	{NoCancelGrace, "client", "terminates the server right after notifications/cancelled, without the grace (NG-07)"},
	{NoSigterm, "client", "goes from closing stdin straight to SIGKILL (NG-07, LC-20)"},
	{NoSigkill, "client", "never sends SIGKILL; a server that ignores SIGTERM survives (NG-07, LC-20)"},
	{SigtermBeforeEOF, "client", "sends SIGTERM before closing the server's stdin (NG-07, LC-20)"},
	{NoProcessGroup, "client", "signals only the server's own pid, never its process group (NG-08)"},
	{NoStartupTimeout, "client", "waits for the initialize reply without the startup timeout (NG-09)"},
	{CancelInitialize, "client", "sends notifications/cancelled for initialize when start-up times out (LC-13)"},
	{IDTypeConfusion, "client", "routes responses by the id's text, so 2 and \"2\" collide (NG-12, JR-07)"},
	{FIFOCorrelation, "client", "gives each response to the oldest pending call instead of by id (NG-12, JR-07)"},
	{StdinBlankLines, "client", "writes an empty line after every message to the server's stdin (ST-03, ST-04)"},
	{DiscoverNoFallback, "client", "probes with server/discover and gives up when it fails instead of falling back (LC-45)"},
	{IgnoreExit, "client", "does not notice the server exiting; pending calls wait for their timeouts (ST-16, LC-30)"},
}

// All returns every mutant, sorted by name.
func All() []Mutant {
	out := append([]Mutant(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ForRole returns the mutants of one reference implementation.
func ForRole(role string) []Mutant {
	var out []Mutant
	for _, m := range All() {
		if m.Role == role {
			out = append(out, m)
		}
	}
	return out
}

// Parse validates a mutant name for a role; the empty string is the reference.
func Parse(role, s string) (Name, error) {
	if s == "" {
		return "", nil
	}
	var names []string
	for _, m := range ForRole(role) {
		if string(m.Name) == s {
			return m.Name, nil
		}
		names = append(names, string(m.Name))
	}
	return "", fmt.Errorf("unknown %s mutant %q; mutants: %s", role, s, strings.Join(names, ", "))
}
