package selftest

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestReferenceNotApplicableNeedsAPassingVariant: a check N/A to the
// reference is no reference failure only while a permitted variant passes
// it under spec, which shows the check can pass.
func TestReferenceNotApplicableNeedsAPassingVariant(t *testing.T) {
	const id = "stdio.client.era.legacy-fallback"
	ref := job{role: check.Client, profile: check.HardenedProfile}
	variant := job{role: check.Client, name: mutant.DiscoverFallback, profile: check.SpecProfile, variant: true}
	for _, tc := range []struct {
		variant  check.Outcome
		failures int
	}{{check.Pass, 0}, {check.NotApplicable, 1}, {check.Warn, 1}} {
		km := tally([]job{ref, variant}, []map[string]check.Outcome{{id: check.NotApplicable}, {id: tc.variant}})
		if len(km.ReferenceFailures) != tc.failures {
			t.Errorf("variant %s: reference failures %v, want %d", tc.variant, km.ReferenceFailures, tc.failures)
		}
	}
}

func TestEveryPlantedBugHasItsInvariant(t *testing.T) {
	for _, m := range mutant.Planted() {
		if _, ok := plantedBreaks[m.Name]; !ok {
			t.Errorf("planted bug %s is not in plantedBreaks: the self-test could not judge the fuzzer on it", m.Name)
		}
	}
	if len(plantedBreaks) != len(mutant.Planted()) {
		t.Errorf("plantedBreaks names %d bugs, mutant.Planted %d", len(plantedBreaks), len(mutant.Planted()))
	}
}
