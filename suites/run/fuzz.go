package run

import (
	"fmt"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/rules"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// FuzzCase is one generated case of a fuzz check: what it describes in
// the transcript and the failure message, so a failure reads (and replays)
// on its own.
type FuzzCase interface {
	// Describe is the case in a few lines: its seed, its script, the
	// outcome the rules expect.
	Describe() string
}

// Fuzz runs the run's fuzz cases (Options.FuzzCases of them): case i has
// seed Seed+i, gen builds it from that seed alone, and judge runs and
// judges it with the check's Require and RequireHardened. The first case
// that fails (or that the harness cannot judge) ends the check with its seed (so --seed S --fuzz-cases 1
// replays exactly that case), its description and its transcript, and
// keeps the failure's class: a hardened expectation missed under the spec
// profile stays HARDENED. A fuzz transcript is random, so it has no
// snapshot.
func Fuzz[T FuzzCase](c *C, gen func(seed int64) T, judge func(T)) {
	c.Unordered()
	base := c.cfg.Seed
	for i := range c.cfg.FuzzCases {
		seed := base + int64(i)
		fc := gen(seed)
		c.SetSeed(seed)
		if v, failed := tryCase(func() { judge(fc) }); failed {
			c.entries = append(c.entries, transcript.Entry{Dir: transcript.Note, Line: fmt.Sprintf("fuzz case %d of %d, seed %d", i+1, c.cfg.FuzzCases, seed)})
			v.message = fmt.Sprintf("fuzz case %d of %d failed (seed %d) after %d passed\n%s\n%s", i+1, c.cfg.FuzzCases, seed, i, fc.Describe(), v.message)
			panic(v)
		}
	}
	c.SetSeed(base)
}

// tryCase runs f and returns the failure (either class) or harness error
// it ended with; every other verdict passes through.
func tryCase(f func()) (v verdict, failed bool) {
	defer func() {
		if r := recover(); r != nil {
			if got, ok := r.(verdict); ok && (got.outcome == check.Fail || got.outcome == check.Error) {
				v, failed = got, true
				return
			}
			panic(r)
		}
	}()
	f()
	return verdict{}, false
}

// RequireRule fails the check unless ok, judged by the rule the
// expectation comes from: a specification rule that binds the side under
// test in the check's eras is required at its own level, whatever the
// check's (a MUST fails, a SHOULD warns, under either profile); any other
// rule (a seed behaviour, or a rule of the other side) binds only the
// hardened profile (RequireHardened). So one expectation, computed from
// the rules, is judged as the profile in force says.
func (c *C) RequireRule(rule string, ok bool, expected, observedFormat string, args ...any) {
	if ok {
		return
	}
	expected += " (" + rule + ")"
	if level, binds := c.specLevel(rule); binds {
		panic(verdict{outcome: check.Fail, message: "expected: " + expected + "\nobserved: " + fmt.Sprintf(observedFormat, args...), level: level})
	}
	c.RequireHardened(false, expected, observedFormat, args...)
}

// specLevel is the level of rule id when it is a specification rule that
// binds the side under test in one of the check's eras.
func (c *C) specLevel(id string) (check.Level, bool) {
	r, ok := rules.Lookup(id)
	if !ok || r.Source != rules.Spec || r.Primary() == "" || !r.Binds(string(c.D.Role)) {
		return "", false
	}
	for _, e := range c.D.EraList() {
		if r.Covers(string(e)) {
			return check.Level(r.Primary()), true
		}
	}
	return "", false
}

// FuzzPick maps a case's seed onto one of n choices (a generator's focus),
// so consecutive seeds take every choice in turn.
func FuzzPick(seed int64, n int) int { return int((seed%int64(n) + int64(n)) % int64(n)) }
