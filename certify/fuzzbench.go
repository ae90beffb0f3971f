package certify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/fuzz"
	"github.com/mcpconform/mcpconform/harness/report"
)

// BenchJSON is one target's figures from mcpconform fuzz --bench; the
// field names are a public contract.
type BenchJSON struct {
	Target    string  `json:"target"`
	Transport string  `json:"transport"`
	PhaseMS   int64   `json:"phase_ms"`
	Ceiling1  float64 `json:"ceiling_1_per_second"`
	Fuzz1     float64 `json:"fuzz_1_per_second"`
	Ceiling2  float64 `json:"ceiling_2_per_second"`
	Fuzz2     float64 `json:"fuzz_2_per_second"`
	// Ratio1 is Fuzz1/Ceiling1, Ratio2 Fuzz2/Ceiling2, Speedup Fuzz2/Fuzz1.
	Ratio1  float64 `json:"ratio_1"`
	Ratio2  float64 `json:"ratio_2"`
	Speedup float64 `json:"workers_2_speedup"`
}

// fuzzBench measures each target in four phases of equal length, one
// after the other in this run: the ping ceiling on one connection, the
// fuzzer with one worker, the ceiling on two connections, the fuzzer with
// two workers. It prints the ratios, and reports whether a new finding
// came on the way; interrupted (ctx ended), it stops, writing nothing.
func fuzzBench(ctx context.Context, o *FuzzOptions, targets []fuzzTarget, stdout io.Writer) (found bool, err error) {
	phase := o.Duration / time.Duration(4*len(targets))
	if phase <= 0 {
		return false, UsageError{fmt.Errorf("fuzz --bench needs a --duration (it has four phases per target), not %s", o.Duration)}
	}
	opt := fuzz.ExecOptions{Timeout: o.Timeout, SpecOnly: o.Profile == string(check.SpecProfile)}
	var out []BenchJSON
	for _, t := range targets {
		fmt.Fprintf(stdout, "bench %s: four phases of %s\n", t.name, phase)
		b := BenchJSON{Target: t.name, Transport: t.target.Transport(), PhaseMS: phase.Milliseconds()}
		for _, workers := range []int{1, 2} {
			s, err := fuzz.PingCeiling(ctx, t.target, phase, workers, opt)
			if err != nil {
				return false, fmt.Errorf("fuzz --bench %s: the ping ceiling: %w", t.name, err)
			}
			ceiling := s.PerSecond()
			fmt.Fprintf(stdout, "  ping ceiling, %d connection(s): %8.0f round trips/s\n", workers, ceiling)
			rep, err := fuzz.Run(ctx, fuzz.Options{Target: t.target, Seed: o.Seed, Duration: phase, Workers: workers, ExecOptions: opt, Policy: o.policy, Slow: []string{"slow"}, Known: o.Known})
			if err != nil {
				return false, fmt.Errorf("fuzz --bench %s: %w", t.name, err)
			}
			rate := rep.Stats.PerSecond()
			fmt.Fprintf(stdout, "  fuzz, %d worker(s):             %8.0f executions/s, %.2f of the ceiling", workers, rate, rate/ceiling)
			if workers == 1 {
				b.Ceiling1, b.Fuzz1, b.Ratio1 = ceiling, rate, rate/ceiling
			} else {
				b.Ceiling2, b.Fuzz2, b.Ratio2, b.Speedup = ceiling, rate, rate/ceiling, rate/b.Fuzz1
				fmt.Fprintf(stdout, ", %.2f× one worker", b.Speedup)
			}
			fmt.Fprintln(stdout)
			for _, f := range rep.Findings {
				if f.Known != "" {
					fmt.Fprintf(stdout, "  KNOWN %s (%d×): %s; expected: %s\n", f.Signature, f.Count, f.Violation.Detail, f.Known)
					continue
				}
				found = true
				fmt.Fprintf(stdout, "  FINDING %s (%d×) %s: %s (run mcpconform fuzz --seed %d on this target for the case)\n", f.Signature, f.Count, f.Violation.Invariant, f.Violation.Detail, o.Seed)
			}
			if ctx.Err() != nil {
				return false, nil
			}
		}
		out = append(out, b)
	}
	if o.JSONPath != "" {
		doc := struct {
			Tool  map[string]string `json:"tool"`
			Seed  int64             `json:"seed"`
			Bench []BenchJSON       `json:"bench"`
		}{map[string]string{"name": "mcpconform", "version": Version}, o.Seed, out}
		b, _ := json.MarshalIndent(doc, "", "  ")
		if err := report.WriteFile(o.JSONPath, append(b, '\n')); err != nil {
			return false, err
		}
	}
	return found, nil
}
