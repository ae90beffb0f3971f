// Package report turns the results of a run into what people and machines
// read: the JSON index, a Markdown summary for CI step summaries, a
// self-contained HTML matrix, JUnit through Ginkgo's own reporter, snapshots
// of normalised transcripts through go-snaps, and the expected-failures
// baseline that turns listed failures into XFAIL and listed passes into STALE.
//
// Every report is written by WriteFile: a regular file whole or not at all,
// a FIFO or a device straight through, never replaced.
package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
)

// Tool names the program that produced a report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Summary counts the checks of a run by outcome.
type Summary struct {
	Pass          int `json:"pass"`
	Fail          int `json:"fail"`
	Warn          int `json:"warn"`
	Info          int `json:"info"`
	Unimplemented int `json:"unimplemented"`
	Skipped       int `json:"skipped"`
	NotApplicable int `json:"not_applicable"`
	XFail         int `json:"xfail"`
	Stale         int `json:"stale"`
	Hardened      int `json:"hardened"`
	Error         int `json:"error"`
}

// Count returns the number of checks with outcome o.
func (s Summary) Count(o check.Outcome) int {
	if p := s.counter(o); p != nil {
		return *p
	}
	return 0
}

// String is the counts, "40 pass · 2 n/a": pass and fail always, the
// other outcomes when some check has them (Shown).
func (s Summary) String() string {
	var parts []string
	for _, o := range s.Shown() {
		parts = append(parts, fmt.Sprintf("%d %s", s.Count(o), strings.ToLower(string(o))))
	}
	return strings.Join(parts, " · ")
}

// Shown are the outcomes a summary line names, in report order: PASS and
// FAIL always, the others when some check has them.
func (s Summary) Shown() []check.Outcome {
	var shown []check.Outcome
	for _, o := range Outcomes {
		if s.Count(o) > 0 || o == check.Pass || o == check.Fail {
			shown = append(shown, o)
		}
	}
	return shown
}

// Total returns the number of checks counted.
func (s Summary) Total() int {
	return s.Pass + s.Fail + s.Warn + s.Info + s.Unimplemented + s.Skipped + s.NotApplicable + s.XFail + s.Stale + s.Hardened + s.Error
}

func (s *Summary) counter(o check.Outcome) *int {
	switch o {
	case check.Pass:
		return &s.Pass
	case check.Fail:
		return &s.Fail
	case check.Warn:
		return &s.Warn
	case check.Info:
		return &s.Info
	case check.Unimplemented:
		return &s.Unimplemented
	case check.Skipped:
		return &s.Skipped
	case check.NotApplicable:
		return &s.NotApplicable
	case check.ExpectedFail:
		return &s.XFail
	case check.Stale:
		return &s.Stale
	case check.HardenedMiss:
		return &s.Hardened
	case check.Error:
		return &s.Error
	}
	return nil
}

// Outcomes lists the outcome classes in the order reports show them.
var Outcomes = []check.Outcome{
	check.Pass, check.Fail, check.Warn, check.HardenedMiss, check.Info,
	check.Unimplemented, check.Skipped, check.NotApplicable, check.ExpectedFail, check.Stale, check.Error,
}

// Check is one check's entry in the index.
type Check struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Requirement is the rule the check enforces, in one sentence.
	Requirement string          `json:"requirement"`
	Outcome     check.Outcome   `json:"outcome"`
	Level       check.Level     `json:"level"`
	Source      check.Source    `json:"source"`
	Role        check.Role      `json:"role"`
	Transport   check.Transport `json:"transport"`
	// Transports are the transports a check of transport any was judged
	// on (both, when the run named both and the server serves its era on
	// both); absent for a check of one transport or one not judged.
	Transports []check.Transport `json:"transports,omitempty"`
	// Eras are the protocol eras the check applies to: legacy, modern or both.
	Eras       []check.Era `json:"eras"`
	Rules      []string    `json:"rules"`
	DurationMS int64       `json:"duration_ms"`
	Message    string      `json:"message"`
	Seed       int64       `json:"seed,omitempty"`
	Transcript []string    `json:"transcript,omitempty"`

	// hardenedScore says the hardened score counts the check when it is
	// judged (Scores); the HTML filters by profile with it.
	hardenedScore bool
}

// Seen returns the transports the check was judged on: its Transports,
// else its Transport (any for a check of transport any not judged).
func (c Check) Seen() []check.Transport {
	if len(c.Transports) > 0 {
		return c.Transports
	}
	return []check.Transport{c.Transport}
}

// Index is the JSON index of a run: the tool, the target, the counts, the
// run's seed and one entry per check, sorted by ID. Its field names are a
// public contract.
type Index struct {
	Tool    Tool           `json:"tool"`
	Target  map[string]any `json:"target"`
	Profile check.Profile  `json:"profile,omitempty"`
	Summary Summary        `json:"summary"`
	Scores  Scores         `json:"scores"`
	Seed    int64          `json:"seed"`
	// Interrupted says a signal ended the run before every selected check
	// ran: the checks in flight and those not reached are SKIPPED.
	Interrupted bool `json:"interrupted"`
	// InterruptedBy is SIGINT, SIGTERM or run-timeout when Interrupted.
	InterruptedBy string `json:"interrupted_by,omitempty"`
	// Stopped says why the run stopped before its checks (a target that is
	// no MCP implementation, an adapter that breaks its contract): the
	// verdict is ERROR, with no checks.
	Stopped string `json:"stopped,omitempty"`
	// CertifiedEras are the protocol eras the run certified each role's
	// target in; absent when it judged no role (a run stopped before its
	// checks).
	CertifiedEras CertifiedEras `json:"certified_eras,omitempty"`
	// Tools are the server's tools the checks called and those they left
	// alone, and why; nil for a run that certified no server.
	Tools  *toolpolicy.Use `json:"tools,omitempty"`
	Checks []Check         `json:"checks"`
}

// NewIndex builds the index of a run from its results: the checks sorted by
// ID and counted by outcome. A nil target is written as {}.
func NewIndex(tool Tool, target map[string]any, seed int64, results []check.Result) *Index {
	if target == nil {
		target = map[string]any{}
	}
	ix := &Index{Tool: tool, Target: target, Seed: seed, Checks: make([]Check, 0, len(results))}
	for _, r := range results {
		rules := append([]string{}, r.Rules...)
		ix.Checks = append(ix.Checks, Check{
			ID:            r.ID,
			Title:         r.Title,
			Requirement:   r.Requirement,
			Outcome:       r.Outcome,
			Level:         r.Level,
			Source:        r.Source,
			Role:          r.Role,
			Transport:     r.Transport,
			Transports:    append([]check.Transport(nil), r.Transports...),
			Eras:          append([]check.Era{}, r.EraList()...),
			Rules:         rules,
			DurationMS:    r.DurationMS,
			Message:       r.Message,
			Seed:          r.Seed,
			Transcript:    clipPassing(r.Outcome, r.Transcript),
			hardenedScore: inHardenedScore(r),
		})
		if p := ix.Summary.counter(r.Outcome); p != nil {
			*p++
		}
		ix.Scores.add(r)
	}
	sort.SliceStable(ix.Checks, func(i, j int) bool { return ix.Checks[i].ID < ix.Checks[j].ID })
	return ix
}

// MaxPassingTranscript is how many bytes of transcript a report keeps of
// a check whose outcome is no failure (PASS, INFO, UNIMPLEMENTED, …):
// its first and its last lines, half of it each. A FAIL, WARN, HARDENED,
// XFAIL, STALE or ERROR keeps every line its check recorded, the evidence
// of its verdict. Without the bound, a run of the whole catalogue made a
// page of 5.9 MB, most of it tools/list pages of passing checks.
const MaxPassingTranscript = 16 << 10

// clipPassing bounds the transcript of a check of outcome o (see
// MaxPassingTranscript), with a note line where lines were left out.
func clipPassing(o check.Outcome, lines []string) []string {
	switch o {
	case check.Fail, check.Warn, check.HardenedMiss, check.ExpectedFail, check.Stale, check.Error:
		return lines
	}
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	if total <= MaxPassingTranscript {
		return lines
	}
	head, size := 0, 0
	for head < len(lines) && size+len(lines[head])+1 <= MaxPassingTranscript/2 {
		size += len(lines[head]) + 1
		head++
	}
	tail, size := len(lines), 0
	for tail > head && size+len(lines[tail-1])+1 <= MaxPassingTranscript/2 {
		tail--
		size += len(lines[tail]) + 1
	}
	left := 0
	for _, l := range lines[head:tail] {
		left += len(l) + 1
	}
	out := append([]string{}, lines[:head]...)
	out = append(out, fmt.Sprintf("note … %d lines (%s) of this %s check's transcript left out; a failing check keeps all of it", tail-head, Size(int64(left)), o))
	return append(out, lines[tail:]...)
}

// ExitCode returns the process exit status the run earns: 2 when the
// harness could not judge a check (ERROR) or the run stopped before its
// checks, 1 when a check failed or a
// baseline entry is stale, 0 otherwise.
func (ix *Index) ExitCode() int {
	if ix.Stopped != "" {
		return 2
	}
	code := 0
	for _, c := range ix.Checks {
		switch {
		case c.Outcome == check.Error:
			return 2
		case c.Outcome.Failing():
			code = 1
		}
	}
	return code
}

// The verdicts a report states (Verdict).
const (
	VerdictPassed        = "passed"
	VerdictFailed        = "FAILED"
	VerdictInterrupted   = "INTERRUPTED"
	VerdictNothingJudged = "NOTHING JUDGED"
	VerdictStopped       = "ERROR"
)

// Verdict is what every report says of the run: ERROR when it stopped
// before its checks (Stopped), FAILED when a check failed
// it (ExitCode), INTERRUPTED when a signal or the run budget stopped it,
// NOTHING JUDGED when no check reached a verdict (every one SKIPPED, N/A or
// UNIMPLEMENTED), else passed.
func (ix *Index) Verdict() string {
	switch {
	case ix.Stopped != "":
		return VerdictStopped
	case ix.ExitCode() != 0:
		return VerdictFailed
	case ix.Interrupted:
		return VerdictInterrupted
	case !slices.ContainsFunc(ix.Checks, func(c Check) bool {
		return c.Outcome != check.Skipped && c.Outcome != check.NotApplicable && c.Outcome != check.Unimplemented
	}):
		return VerdictNothingJudged
	}
	return VerdictPassed
}

// WriteJSON writes the index to path as indented JSON, with WriteFile.
func WriteJSON(path string, ix *Index) error {
	data, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return fmt.Errorf("JSON index %s: %w; a target value cannot be encoded as JSON, pass strings, numbers or lists", path, err)
	}
	return WriteFile(path, append(data, '\n'))
}
