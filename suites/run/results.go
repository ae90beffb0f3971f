package run

import (
	"sort"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/onsi/ginkgo/v2/types"
)

var (
	resMu   sync.Mutex
	results = map[string]check.Result{}
)

func record(r check.Result) {
	resMu.Lock()
	defer resMu.Unlock()
	results[r.ID] = r
}

// outcomeOf is the recorded outcome of a check that began at begun and the
// time it took; ERROR for one that ended without a result (the harness
// failed it before its body could judge).
func outcomeOf(id string, begun time.Time) (check.Outcome, time.Duration) {
	resMu.Lock()
	defer resMu.Unlock()
	if r, ok := results[id]; ok {
		return r.Outcome, time.Duration(r.DurationMS) * time.Millisecond
	}
	return check.Error, time.Since(begun)
}

func resetResults() {
	resMu.Lock()
	defer resMu.Unlock()
	results = map[string]check.Result{}
	toolUse.Reset()
}

// Results returns the result of every catalogued check in the given roles:
// the ones that ran, and SKIPPED for the ones the selection filtered out.
// A run without fuzzing leaves the fuzz checks out altogether.
func Results(roles ...check.Role) []check.Result {
	fuzz := Current().Fuzz
	selects, err := Selects(Current().Selection)
	if err != nil {
		selects = func(check.Descriptor) bool { return true }
	}
	resMu.Lock()
	defer resMu.Unlock()
	var out []check.Result
	for _, d := range check.All() {
		if len(roles) > 0 && !hasRole(roles, d.Role) || d.Fuzz && !fuzz {
			continue
		}
		r, ok := results[d.ID]
		if !ok {
			r = check.Result{Descriptor: d, Outcome: check.Skipped, Message: report.NotSelected}
			if Interrupted() && selects(d) {
				r.Message = NotRunInterrupted
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Selects returns what the label filter (Ginkgo syntax; empty: every
// check) selects.
func Selects(filter string) (func(check.Descriptor) bool, error) {
	match, err := types.ParseLabelFilter(filter)
	if err != nil {
		return nil, err
	}
	return func(d check.Descriptor) bool { return match(d.Labels()) }, nil
}

func hasRole(roles []check.Role, r check.Role) bool {
	for _, x := range roles {
		if x == r {
			return true
		}
	}
	return false
}

// Recorded returns the results this process recorded, sorted by ID: in a
// worker of a parallel run, the checks it ran.
func Recorded() []check.Result {
	resMu.Lock()
	defer resMu.Unlock()
	out := make([]check.Result, 0, len(results))
	for _, r := range results {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Adopt records results that other processes produced (the workers of a
// parallel run), as if the checks had run here.
func Adopt(rs []check.Result) {
	for _, r := range rs {
		record(r)
	}
}
