// Package mutant names the mutants of the reference implementations and
// their permitted variants. A mutant breaks exactly one rule, and the
// self-test proves that some check kills it; a permitted variant does what
// the specification allows but the hardened profile does not, and the
// self-test proves that no check fails it under the spec profile. The
// reference code consults the active mutant or variant (a Name) at the one
// place where it keeps that rule.
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
	BracketTextAsBatch     Name = "bracket-text-as-batch"
	DigitTextAsJSON        Name = "digit-text-as-json"
	EscapeTextFatal        Name = "escape-text-fatal"
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

// Mutants of the reference streamable HTTP client (mcpconform adapter --mutant NAME).
const (
	NoConcurrencyLimit       Name = "no-concurrency-limit"
	ConcurrencyZeroUnlimited Name = "concurrency-zero-unlimited"
	SSEHoldsSlot             Name = "sse-holds-slot"
	ControlWaitsBehindPOSTs  Name = "control-waits-behind-posts"
	NoControlTimeout         Name = "no-control-timeout"
	RecoveryPerRequest       Name = "recovery-per-request"
	ReinitKeepsSessionID     Name = "reinit-keeps-session-id"
	NoReinit                 Name = "no-reinit"
	RetryNewIDs              Name = "retry-new-ids"
	RetryControl             Name = "retry-control"
	RetryTwice               Name = "retry-twice"
	NoRecoveryWait           Name = "no-recovery-wait"
	NoSSELimit               Name = "no-sse-limit"
	SSELimitOffByOne         Name = "sse-limit-off-by-one"
	SSESplitCRLFTwice        Name = "sse-split-crlf-twice"
	ReconnectAfterOversize   Name = "reconnect-after-oversize"
	StatelessIgnored         Name = "stateless-ignored"
	NoAuthOnGetDelete        Name = "no-auth-on-get-delete"
	CustomOverridesReserved  Name = "custom-overrides-reserved"
	HeadersCrossOrigin       Name = "headers-cross-origin"
	AcceptJSONOnly           Name = "accept-json-only"
	NoProtocolVersionHeader  Name = "no-protocol-version-header"
	IgnoreRetryField         Name = "ignore-retry-field"
	NoLastEventID            Name = "no-last-event-id"
	BatchPOSTs               Name = "batch-posts"
	SessionIDOnlyOnPOST      Name = "session-id-only-on-post"
)

// Mutants of the reference streamable HTTP server transport
// (mcpconform serve --transport http --mutant NAME).
const (
	NotificationGets200    Name = "notification-gets-200"
	RefusedBodyGets200     Name = "refused-body-gets-200"
	WrongContentType       Name = "wrong-content-type"
	StreamStaysOpen        Name = "stream-stays-open"
	GetReturnsJSON         Name = "get-returns-json"
	ResponseOnGetStream    Name = "response-on-get-stream"
	DuplicateAcrossStreams Name = "duplicate-across-streams"
	DuplicateEventIDs      Name = "duplicate-event-ids"
	SessionIDNotVisible    Name = "session-id-not-visible"
	MissingSessionAccepted Name = "missing-session-accepted"
	DeleteKeepsSession     Name = "delete-keeps-session"
	NoOriginCheck          Name = "no-origin-check"
	NoVersionCheck         Name = "no-version-check"
	AcceptBatch            Name = "accept-batch"
	ReplayOtherStreams     Name = "replay-other-streams"
	NoPrimingEvent         Name = "no-priming-event"
	NoRetryField           Name = "no-retry-field"
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
	{BracketTextAsBatch, "client", "takes a text line led by '[' ([INFO] …) for a damaged batch and ends the session (NG-01)"},
	{DigitTextAsJSON, "client", "takes a text line led by a digit (a timestamp, a number) for broken JSON and ends the session (NG-01)"},
	{EscapeTextFatal, "client", "ends the session on a text line holding a control character (an ANSI colour escape) (NG-01)"},
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

	{NoConcurrencyLimit, "client", "runs any number of ordinary POSTs at once (RM-01)"},
	{ConcurrencyZeroUnlimited, "client", "treats max_concurrent_requests 0 as no limit instead of 1 (RM-01)"},
	{SSEHoldsSlot, "client", "keeps a POST's slot while its response streams as SSE (RM-01)"},
	{ControlWaitsBehindPOSTs, "client", "queues cancellations and replies behind ordinary POSTs (RM-02)"},
	{NoControlTimeout, "client", "lets a control POST run without control_request_timeout (RM-03)"},
	{RecoveryPerRequest, "client", "re-initializes once per expired POST instead of once per session (RM-05)"},
	{ReinitKeepsSessionID, "client", "sends the expired session id on the fresh initialize (RM-05, HT-57)"},
	{NoReinit, "client", "returns session-expired to the caller instead of recovering (RM-05, HT-57)"},
	{RetryNewIDs, "client", "retries expired POSTs with new JSON-RPC ids (RM-05)"},
	{RetryControl, "client", "retries control POSTs after session expiry (RM-06)"},
	{RetryTwice, "client", "retries a POST that meets 404 again a second time (RM-08)"},
	{NoRecoveryWait, "client", "does not wait for older POSTs before recovery; replays them (RM-05, RM-07)"},
	{NoSSELimit, "client", "accepts SSE events of any size (RM-09)"},
	{SSELimitOffByOne, "client", "rejects an SSE event of exactly max_sse_event_size (RM-09)"},
	{SSESplitCRLFTwice, "client", "counts a CRLF split across reads as two line breaks (RM-09)"},
	{ReconnectAfterOversize, "client", "reconnects with Last-Event-ID after rejecting an oversize event (RM-09)"},
	{StatelessIgnored, "client", "ignores allow_stateless: accepts a reply without a session id when told not to (RM-10)"},
	{NoAuthOnGetDelete, "client", "sends Authorization only on POST (RM-11)"},
	{CustomOverridesReserved, "client", "lets custom headers override Accept and Mcp-Session-Id (RM-12)"},
	{HeadersCrossOrigin, "client", "sends custom headers and Authorization to another origin after a redirect (RM-12)"},
	{AcceptJSONOnly, "client", "sends Accept: application/json only (HT-11)"},
	{NoProtocolVersionHeader, "client", "omits MCP-Protocol-Version after initialize (HT-70)"},
	{IgnoreRetryField, "client", "reconnects at once, ignoring the SSE retry field (HT-29b)"},
	{NoLastEventID, "client", "resumes without Last-Event-ID (HT-45)"},
	{BatchPOSTs, "client", "puts several messages into one POST body (HT-10, HT-13)"},
	{SessionIDOnlyOnPOST, "client", "sends Mcp-Session-Id on POSTs only, not on GET and DELETE (HT-54)"},

	{NotificationGets200, "server", "answers a POSTed notification with 200 and a body instead of 202 (HT-15)"},
	{RefusedBodyGets200, "server", "answers an invalid body with 200 instead of an HTTP error (HT-16)"},
	{WrongContentType, "server", "answers a request with Content-Type text/plain (HT-17)"},
	{StreamStaysOpen, "server", "keeps a POST's SSE stream open after the response (HT-25)"},
	{GetReturnsJSON, "server", "answers GET with 200 application/json instead of SSE or 405 (HT-31g)"},
	{ResponseOnGetStream, "server", "sends responses on the GET stream (HT-33g)"},
	{DuplicateAcrossStreams, "server", "sends a server message on both the GET stream and a POST stream (HT-41)"},
	{DuplicateEventIDs, "server", "reuses event ids across streams (HT-43)"},
	{SessionIDNotVisible, "server", "mints session ids with a space in them (HT-52)"},
	{MissingSessionAccepted, "server", "serves non-initialize requests without a session id (HT-55)"},
	{DeleteKeepsSession, "server", "keeps a session alive after DELETE (HT-56, HT-58)"},
	{NoOriginCheck, "server", "accepts any Origin (HT-03, HT-04)"},
	{NoVersionCheck, "server", "accepts any MCP-Protocol-Version (HT-72)"},
	{AcceptBatch, "server", "accepts JSON-RPC batches from 2025-06-18 on (JR-37, HT-13)"},
	{ReplayOtherStreams, "server", "replays events of other streams on resumption (HT-46)"},
	{NoPrimingEvent, "server", "opens an SSE answer without a priming event (HT-28)"},
	{NoRetryField, "server", "drops a stream's connection without having sent a retry field (HT-29b)"},
}

// All returns every mutant, sorted by name.
func All() []Mutant {
	out := append([]Mutant(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ForRole returns the mutants of one reference implementation that some
// check kills, the self-test's matrix: planted bugs (Planted) are left out.
func ForRole(role string) []Mutant { return ofRole(ofPlanted(All(), false), role) }

func (m Mutant) role() string { return m.Role }

// ofRole keeps the mutants or variants of one reference implementation.
func ofRole[T interface{ role() string }](all []T, role string) []T {
	var out []T
	for _, x := range all {
		if x.role() == role {
			out = append(out, x)
		}
	}
	return out
}

// Parse validates the name of a mutant or a permitted variant for a role;
// the empty string is the reference.
func Parse(role, s string) (Name, error) {
	if s == "" {
		return "", nil
	}
	var names, vnames []string
	for _, m := range ofRole(All(), role) {
		if string(m.Name) == s {
			return m.Name, nil
		}
		names = append(names, string(m.Name))
	}
	for _, v := range VariantsForRole(role) {
		if string(v.Name) == s {
			return v.Name, nil
		}
		vnames = append(vnames, string(v.Name))
	}
	return "", fmt.Errorf("unknown %s mutant %q; mutants: %s; permitted variants: %s", role, s, strings.Join(names, ", "), strings.Join(vnames, ", "))
}
