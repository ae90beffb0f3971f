package run_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The checks of this test binary: server checks that each spend one quiet
// window, a client check that notes whether any server check ran beside
// it, and a server check that spends a wait it does not declare.

const quiet = 400 * time.Millisecond

var (
	serverChecks         = 4
	running, mostRunning atomic.Int32
	clientSawOthers      atomic.Bool
)

func enter() {
	n := running.Add(1)
	for {
		m := mostRunning.Load()
		if n <= m || mostRunning.CompareAndSwap(m, n) {
			return
		}
	}
}

var _ = func() bool {
	for i := range serverChecks {
		run.For(check.Server, check.HTTP)(check.Descriptor{
			ID: fmt.Sprintf("test.overlap.server-%d", i), Title: "listens for a quiet window", Requirement: "nothing arrives",
			Rules: []string{"JR-14"}, KilledBy: []string{"none"},
			Waits: []check.Wait{{What: "nothing", Setting: check.QuietWindow}},
		}, func(c *run.C) {
			enter()
			defer running.Add(-1)
			time.Sleep(c.QuietWindow())
		})
	}
	return true
}()

var _ = run.For(check.Client, check.Stdio)(check.Descriptor{
	ID: "test.overlap.client", Title: "runs alone", Requirement: "no server check beside it",
	Rules: []string{"NG-03"}, KilledBy: []string{"none"},
}, func(c *run.C) {
	for range 3 {
		if running.Load() > 0 {
			clientSawOthers.Store(true)
		}
		time.Sleep(quiet / 3)
	}
})

var _ = run.For(check.Server, check.HTTP)(check.Descriptor{
	ID: "test.overlap.undeclared", Title: "spends a tool budget it does not declare", Requirement: "declared waits only",
	Rules: []string{"JR-14"}, KilledBy: []string{"none"},
}, func(c *run.C) { time.Sleep(c.ToolBudget()) })

// TestServerChecksOverlap: server checks run side by side, so their quiet
// windows overlap; a client check runs alone; a wait a check does not
// declare is a harness error.
func TestServerChecksOverlap(t *testing.T) {
	run.Configure(run.Config{Parallel: serverChecks, QuietWindow: quiet, ToolBudget: time.Hour})
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = "id:test.overlap.server-0 || id:test.overlap.server-1 || id:test.overlap.server-2 || id:test.overlap.server-3 || id:test.overlap.client || id:test.overlap.undeclared"
	// Seed 6 makes the client check Ginkgo's first spec (it shuffles them):
	// the workers start with it, so without the lock it runs beside them.
	suiteConfig.RandomSeed = 6
	start := time.Now()
	ginkgo.RunSpecs(&quietT{}, "overlap", suiteConfig, reporterConfig)
	took := time.Since(start)
	// One after another the checks take five windows; side by side, three:
	// those in flight when the client check starts, its own, and the last.
	if took > 4*quiet {
		t.Errorf("the run took %s: its %d quiet windows of %s did not overlap", took.Round(time.Millisecond), serverChecks, quiet)
	}
	if mostRunning.Load() < 2 {
		t.Errorf("at most %d server check ran at once, want %d", mostRunning.Load(), serverChecks)
	}
	if clientSawOthers.Load() {
		t.Error("a server check ran beside the client check")
	}
	for _, r := range run.Results() {
		switch {
		case !strings.HasPrefix(r.ID, "test.overlap."):
		case r.ID == "test.overlap.undeclared":
			if r.Outcome != check.Error || !strings.Contains(r.Message, "does not declare") {
				t.Errorf("%s: %s %q, want ERROR for the undeclared wait", r.ID, r.Outcome, r.Message)
			}
		case r.Outcome != check.Pass:
			t.Errorf("%s: %s %q", r.ID, r.Outcome, r.Message)
		}
	}
}

// quietT takes the suite's failure (the undeclared wait's ERROR fails the
// suite on purpose).
type quietT struct{}

func (quietT) Fail() {}
