package selftest

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Rerun stability (selftest --repeat N): the same targets certified N
// times, under a CPU load the self-test makes itself, must give every
// check the same outcome each time; and since the targets are the
// reference and a slow-starting variant of it, which every rule permits,
// no run may FAIL, WARN or ERROR anything.

// stabilityStartup is how long the slow-starting variant of the reference
// waits before it serves: several seconds, as a server started with npx.
const stabilityStartup = 3 * time.Second

// stabilityTarget is one certification the repeat runs.
type stabilityTarget struct {
	Name string
	Args []string // after `mcpconform server`, without the report flags
}

// stabilityTargets are the reference server over both transports, and the
// reference over stdio starting stabilityStartup late, each certified the
// way a user certifies a server: the default workers, the default waits.
func stabilityTargets() []stabilityTarget {
	slow := append(run.ReferenceServerCommand(""), "--startup-delay", stabilityStartup.String())
	return []stabilityTarget{
		{Name: "reference server", Args: []string{"--profile", string(check.HardenedProfile)}},
		{Name: fmt.Sprintf("reference stdio server starting %s late", stabilityStartup), Args: append([]string{"--profile", string(check.HardenedProfile), "--"}, slow...)},
	}
}

// StabilityResult is what the repeat found of one target.
type StabilityResult struct {
	Target  string    `json:"target"`
	Seconds []float64 `json:"seconds"`
	// Differs are the checks whose outcome changed between runs, each with
	// its outcome in every run ("" where a run did not report it).
	Differs []StabilityDiff `json:"differs"`
	// Unearned are the verdicts no run of a conformant target may give:
	// FAIL, WARN, HARDENED, STALE or ERROR, as "ID: OUTCOME (run N)".
	Unearned []string `json:"unearned"`
	// Stopped says a run ended without its checks (its reason).
	Stopped []string `json:"stopped"`
}

type StabilityDiff struct {
	ID       string          `json:"id"`
	Outcomes []check.Outcome `json:"outcomes"`
}

// Repeat certifies each stability target n times, every run at once,
// while every core is kept busy, and returns what each target's runs
// gave: the checks whose outcome differed, the verdicts no conformant
// target may get, the runs stopped before their checks. Progress receives
// a line per run (nil: none).
func Repeat(n int, seed int64, progress io.Writer) ([]StabilityResult, error) {
	progress = cmp.Or[io.Writer](progress, io.Discard)
	dir, err := os.MkdirTemp("", "mcpconform-repeat-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	loadCPU(ctx, runtime.NumCPU())
	fmt.Fprintf(progress, "selftest --repeat %d: under CPU load on %d cores\n", n, runtime.NumCPU())
	// Every run of every target at once: each is a user's run on a busy
	// machine, and together they take the time of the slowest.
	targets := stabilityTargets()
	type ran struct {
		ix   *report.Index
		took float64
		err  error
	}
	runs := make([][]ran, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		runs[i] = make([]ran, n)
		for k := range n {
			wg.Go(func() {
				out := filepath.Join(dir, fmt.Sprintf("t%d-run%d.json", i, k))
				start := time.Now()
				ix, err := certifyOnce(append([]string{"--json", out, "--no-color", "--seed", fmt.Sprint(seed)}, t.Args...), out, filepath.Join(dir, fmt.Sprintf("t%d-run%d.log", i, k)))
				runs[i][k] = ran{ix, time.Since(start).Seconds(), err}
			})
		}
	}
	wg.Wait()
	var results []StabilityResult
	for i, t := range targets {
		r := StabilityResult{Target: t.Name, Differs: []StabilityDiff{}, Unearned: []string{}, Stopped: []string{}}
		var outcomes []map[string]check.Outcome
		for k, got := range runs[i] {
			if got.err != nil {
				return nil, fmt.Errorf("selftest --repeat: %s, run %d: %w", t.Name, k+1, got.err)
			}
			r.Seconds = append(r.Seconds, got.took)
			fmt.Fprintf(progress, "selftest --repeat: %-50s run %d in %.1fs: %s\n", t.Name, k+1, got.took, got.ix.Summary)
			if got.ix.Stopped != "" {
				r.Stopped = append(r.Stopped, fmt.Sprintf("run %d: %s", k+1, got.ix.Stopped))
			}
			outcomes = append(outcomes, outcomesOf(got.ix))
			for _, c := range got.ix.Checks {
				if unearned(c.Outcome) {
					r.Unearned = append(r.Unearned, fmt.Sprintf("%s: %s (run %d)", c.ID, c.Outcome, k+1))
				}
			}
		}
		r.Differs = differing(outcomes)
		results = append(results, r)
	}
	return results, nil
}

// certifyOnce runs `mcpconform server` with args in a child, its output
// in log, and reads the JSON index it wrote to out, whatever its exit
// status (a run stopped before its checks writes one too).
func certifyOnce(args []string, out, log string) (*report.Index, error) {
	code, err := runTracked(selfexec.Command("server", args...), log)
	if err != nil {
		return nil, err
	}
	ix, err := indexIn(out)
	if err != nil {
		return nil, fmt.Errorf("exit status %d and no report (%v); the end of its output:\n%s", code, err, logTail(log))
	}
	return ix, nil
}

// outcomesOf is each check's outcome in ix.
func outcomesOf(ix *report.Index) map[string]check.Outcome {
	res := map[string]check.Outcome{}
	for _, c := range ix.Checks {
		res[c.ID] = c.Outcome
	}
	return res
}

// unearned reports whether a conformant target's check may not end with o.
func unearned(o check.Outcome) bool {
	switch o {
	case check.Fail, check.Warn, check.HardenedMiss, check.Stale, check.Error:
		return true
	}
	return false
}

// differing lists the checks whose outcome is not the same in every run.
func differing(runs []map[string]check.Outcome) []StabilityDiff {
	ids := map[string]bool{}
	for _, r := range runs {
		for id := range r {
			ids[id] = true
		}
	}
	diffs := []StabilityDiff{}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		outcomes := make([]check.Outcome, len(runs))
		for k, r := range runs {
			outcomes[k] = r[id]
		}
		if slices.ContainsFunc(outcomes, func(o check.Outcome) bool { return o != outcomes[0] }) {
			diffs = append(diffs, StabilityDiff{ID: id, Outcomes: outcomes})
		}
	}
	return diffs
}

// loadCPU keeps n cores busy until ctx ends, as other jobs of a shared CI
// runner do.
func loadCPU(ctx context.Context, n int) {
	for range n {
		go func() {
			for x := 0; ctx.Err() == nil; x++ {
				if x%(1<<20) == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
}
