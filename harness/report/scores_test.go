package report

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

func TestScoresCountBothProfiles(t *testing.T) {
	spec := func(id string, l check.Level, o check.Outcome, seedOnly bool) check.Result {
		return check.Result{Descriptor: check.Descriptor{ID: id, Level: l, Source: check.Spec, Rules: []string{"LC-31"}}, Outcome: o, SeedOnly: seedOnly}
	}
	hardened := func(id string, o check.Outcome) check.Result {
		return check.Result{Descriptor: check.Descriptor{ID: id, Level: check.MUST, Source: check.Hardened, Rules: []string{"NG-03"}}, Outcome: o}
	}
	var s Scores
	for _, r := range []check.Result{
		spec("a", check.MUST, check.Pass, false),
		spec("b", check.MUST, check.Fail, false),
		spec("c", check.MUST, check.Fail, true), // its seed part failed under hardened
		spec("d", check.SHOULD, check.Warn, false),
		spec("e", check.SHOULD, check.HardenedMiss, true),
		spec("f", check.MUST, check.Unimplemented, false), // not judged
		hardened("g", check.Pass),
		hardened("h", check.HardenedMiss),
		hardened("i", check.Info), // not judged
	} {
		s.add(r)
	}
	if got, want := s.String(), "spec: 2/3 MUST, 1/2 SHOULD; hardened: 1/4"; got != want {
		t.Errorf("scores %q, want %q", got, want)
	}
}
