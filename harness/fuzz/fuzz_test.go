package fuzz

import (
	"context"
	"testing"
	"time"
)

func TestFuzzReferenceStdioHolds(t *testing.T) {
	rep, err := Run(context.Background(), Config{Target: reference(), Seed: 1, Duration: 3 * time.Second, Slow: []string{"slow"}, Options: Options{Timeout: time.Second, MaxRSS: 256 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations, %d executions, %.0f/s, tools %v", rep.Stats.Iterations, rep.Stats.Executions, rep.Stats.PerSecond(), rep.Tools)
	for _, f := range rep.Findings {
		t.Errorf("finding: %v\n%s", f.Violation, f.Case.Format())
	}
	for _, w := range rep.Warnings {
		t.Logf("warning: %v", w)
	}
}
