package report

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/rules"
)

// Score is how many of the checks judged held their rule.
type Score struct {
	Pass  int `json:"pass"`
	Total int `json:"total"`
}

// Scores are the two profiles' scores of a run, side by side: the
// specification's checks by level, and the checks of hardened rules (a
// seed behaviour: the check's source, or a seed rule it also cites). Only
// judged checks count (PASS, FAIL, WARN, HARDENED, XFAIL, STALE).
type Scores struct {
	SpecMust   Score `json:"spec_must"`
	SpecShould Score `json:"spec_should"`
	Hardened   Score `json:"hardened"`
}

func (s *Scores) add(r check.Result) {
	var held bool
	switch r.Outcome {
	case check.Pass, check.Stale:
		held = true
	case check.Fail, check.Warn, check.HardenedMiss, check.ExpectedFail:
	default:
		return
	}
	if r.Source == check.Spec {
		// A spec check that missed only a seed behaviour on top of its
		// spec rule (HARDENED under spec, FAIL under hardened) held it.
		sc := &s.SpecShould
		if r.Level == check.MUST {
			sc = &s.SpecMust
		}
		sc.Total++
		if held || r.Outcome == check.HardenedMiss || r.SeedOnly {
			sc.Pass++
		}
	}
	if inHardenedScore(r) {
		s.Hardened.Total++
		if held {
			s.Hardened.Pass++
		}
	}
}

// inHardenedScore reports whether the hardened score counts r when it is
// judged: a check of a hardened rule (its source, or a seed rule it also
// cites), or a spec check that missed a seed behaviour on top of its rule.
func inHardenedScore(r check.Result) bool {
	return r.Source == check.Hardened || r.SeedOnly || r.Outcome == check.HardenedMiss || citesSeed(r.Rules)
}

func citesSeed(ids []string) bool {
	for _, id := range ids {
		if r, ok := rules.Lookup(id); ok && r.Source == rules.Hardened {
			return true
		}
	}
	return false
}

// String renders the scores as reports show them:
// "spec: 41/42 MUST, 10/12 SHOULD; hardened: 12/29".
func (s Scores) String() string {
	f := func(sc Score) string { return fmt.Sprintf("%d/%d", sc.Pass, sc.Total) }
	return strings.Join([]string{
		"spec: " + f(s.SpecMust) + " MUST, " + f(s.SpecShould) + " SHOULD",
		"hardened: " + f(s.Hardened),
	}, "; ")
}
