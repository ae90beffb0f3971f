package check

import "fmt"

// Outcome is the verdict of one check.
type Outcome string

// Outcome classes.
const (
	Pass          Outcome = "PASS"          // the rule holds
	Fail          Outcome = "FAIL"          // a MUST broken (or a SHOULD under --strict)
	Warn          Outcome = "WARN"          // a SHOULD broken
	Info          Outcome = "INFO"          // observed, no verdict
	Unimplemented Outcome = "UNIMPLEMENTED" // an optional capability not declared, or the adapter exited 127
	Skipped       Outcome = "SKIPPED"       // filtered out
	// NotApplicable is a check of an era the server does not serve: a
	// legacy-era check on a 2026-07-28-only server, or a modern-era check on
	// a server that does not answer server/discover.
	NotApplicable Outcome = "N/A"
	// ExpectedFail is a failure the expected-failures baseline lists: it does not fail the run.
	ExpectedFail Outcome = "XFAIL"
	// Stale is a pass the baseline lists as a failure: it fails the run until the entry is removed.
	Stale Outcome = "STALE"
	// HardenedMiss is a hardened rule (a seed behaviour beyond the
	// specification) that the target misses under the spec profile: counted
	// and listed apart, it never changes the exit status.
	HardenedMiss Outcome = "HARDENED"
	// Error is a check the harness could not judge: the target broke the
	// adapter contract, or the harness failed. No baseline absorbs it; the
	// run exits 2.
	Error Outcome = "ERROR"
)

// Killed reports whether the outcome shows the rule broken (for the self-test).
func (o Outcome) Killed() bool {
	return o == Fail || o == Warn || o == ExpectedFail || o == HardenedMiss
}

// Failing reports whether the outcome fails a run.
func (o Outcome) Failing() bool { return o == Fail || o == Stale }

// Profile is the set of rules that bind a run.
type Profile string

// Profiles.
const (
	// SpecProfile binds the MCP specification's rules only: a hardened
	// rule the target misses is reported as HARDENED.
	SpecProfile Profile = "spec"
	// HardenedProfile binds the seed behaviours too.
	HardenedProfile Profile = "hardened"
)

// ParseProfile validates a --profile value.
func ParseProfile(s string) (Profile, error) {
	switch Profile(s) {
	case SpecProfile, HardenedProfile:
		return Profile(s), nil
	}
	return "", fmt.Errorf("--profile %q: use spec (the MCP specification's rules) or hardened (the seed behaviours too)", s)
}

// Result is the outcome of one check in one run.
type Result struct {
	Descriptor
	Outcome    Outcome
	Message    string   // why: for a failure the requirement, what was acceptable, what was observed
	DurationMS int64    // wall time of the check
	Transcript []string // the normalised wire transcript, redacted
	Seed       int64    // the seed of a property check, 0 otherwise
	// SeedOnly marks a failure of a seed behaviour asserted inside a spec
	// check (RequireHardened): its spec rule held.
	SeedOnly bool
	// Transports are the transports a check of transport any was judged
	// on, in the order it judged them; empty for a check of one transport.
	Transports []Transport
}
