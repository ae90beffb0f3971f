package selftest

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcpconform/mcpconform/harness/fuzz"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
)

// plantedBreaks is the invariant each planted bug of the reference
// server breaks: the fuzzer kills it when it finds that invariant broken.
var plantedBreaks = map[mutant.Name]fuzz.Invariant{
	mutant.PlantedCrashOnString:           fuzz.Alive,
	mutant.PlantedDuplicateReply:          fuzz.OneResponse,
	mutant.PlantedStdoutLog:               fuzz.StdoutJSON,
	mutant.PlantedWedgeAfterUnknownCancel: fuzz.AnswersPing,
	mutant.PlantedLeak:                    fuzz.MaxRSS,
	mutant.PlantedSetsidChild:             fuzz.NoLeftovers,
	mutant.PlantedImageWithoutMimeType:    fuzz.SchemaValid,
	mutant.PlantedStructuredDrift:         fuzz.OutputSchema,
	mutant.PlantedResponseAfterCancel:     fuzz.NoResponseAfterCancel,
}

// The fuzzer's kill matrix runs on a small budget: the answers of the
// reference come in microseconds, so a timeout of 2 s leaves a loaded
// machine a thousand times that, and a low memory ceiling lets the leak
// cross it after a few calls. A planted bug
// gets a number of sequences, not a time, so that its verdict is the
// seed's and not the machine's: with seed 1 each is found within 40
// sequences. The time bound only stops a machine too slow to run them,
// which is the harness's error, never a survivor.
const (
	selftestFuzzTimeout    = 2 * time.Second
	selftestFuzzMaxRSS     = 96 << 20
	selftestFuzzIterations = 300             // per planted bug
	selftestFuzzBudget     = 5 * time.Minute // per planted bug, to run them
	selftestFuzzReference  = 3 * time.Second // per transport, finding nothing
	selftestFuzzShrink     = 5 * time.Second // the row needs the invariant, not the smallest case
)

// FuzzKill is one row of the fuzzer's kill matrix (selftest --json,
// "fuzz"): a planted bug and what the fuzzer found against it, or the
// reference over one transport, where it must find nothing.
type FuzzKill struct {
	Target     string  `json:"target"`
	Transport  string  `json:"transport"`
	Want       string  `json:"want"` // the invariant it must break; "" for the reference
	Found      string  `json:"found"`
	Detail     string  `json:"detail,omitempty"`
	Frames     int     `json:"frames,omitempty"`
	Seconds    float64 `json:"seconds"`
	Iterations int64   `json:"sequences"`
	OK         bool    `json:"ok"`
}

// fuzzMatrix runs the fuzzer with the seed against each planted bug over
// stdio, and against the reference over stdio and HTTP.
func fuzzMatrix(ctx context.Context, seed int64, stdout io.Writer) ([]FuzzKill, error) {
	var rows []FuzzKill
	// A planted bug's run ends when a finding breaks the invariant it
	// plants, or at its sequences; the reference's at its first finding.
	base := fuzz.Options{Seed: seed, Slow: []string{"slow"}, ShrinkBudget: selftestFuzzShrink,
		ExecOptions: fuzz.ExecOptions{Timeout: selftestFuzzTimeout, MaxRSS: selftestFuzzMaxRSS}}
	stdio := func(args ...string) fuzz.Target {
		return fuzz.Target{Command: selfexec.Command("serve", append([]string{"--transport", "stdio"}, args...)...)}
	}
	for _, m := range mutant.Planted() {
		want, ok := plantedBreaks[m.Name]
		if !ok {
			return nil, fmt.Errorf("planted bug %s has no invariant in the self-test's table", m.Name)
		}
		cfg := base
		cfg.Target, cfg.Duration, cfg.Iterations, cfg.StopOn = stdio("--mutant", string(m.Name)), selftestFuzzBudget, selftestFuzzIterations, want
		row, err := fuzzRow(ctx, string(m.Name), cfg, want)
		if err != nil {
			return nil, err
		}
		if row.Found == "" && row.Iterations < int64(cfg.Iterations) {
			return nil, fmt.Errorf("selftest: fuzz %s: the machine ran %d of its %d sequences in %s; run the self-test where it has the time", m.Name, row.Iterations, cfg.Iterations, cfg.Duration)
		}
		rows = append(rows, row)
		fmt.Fprintf(stdout, "selftest: %-40s done\n", "fuzz "+m.Name)
	}
	url, stop, err := serve.Start(serve.Options{})
	if err != nil {
		return nil, err
	}
	defer stop()
	for _, t := range []fuzz.Target{stdio(), {URL: url}} {
		cfg := base
		cfg.Target, cfg.Duration, cfg.MaxFindings = t, selftestFuzzReference, 1
		if t.URL != "" {
			cfg.MaxRSS = 0
		}
		row, err := fuzzRow(ctx, "reference", cfg, "")
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		fmt.Fprintf(stdout, "selftest: %-40s done\n", "fuzz reference "+t.Transport())
	}
	return rows, nil
}

// fuzzRow runs one fuzzing and judges it: a planted bug is killed when a
// finding breaks want (the row shows that one, else the first); the
// reference holds when nothing is found.
func fuzzRow(ctx context.Context, name string, cfg fuzz.Options, want fuzz.Invariant) (FuzzKill, error) {
	rep, err := fuzz.Run(ctx, cfg)
	if err != nil {
		return FuzzKill{}, fmt.Errorf("selftest: fuzz %s: %w", name, err)
	}
	row := FuzzKill{Target: name, Transport: cfg.Target.Transport(), Want: string(want), Seconds: rep.Stats.Elapsed.Seconds(), Iterations: rep.Stats.Iterations}
	for i, f := range rep.Findings {
		if i == 0 || f.Violation.Invariant == want {
			row.Found, row.Detail, row.Frames = string(f.Violation.Invariant), f.Violation.Detail, len(f.Case.Frames)
		}
		if f.Violation.Invariant == want {
			break
		}
	}
	row.OK = row.Found == string(want)
	return row, nil
}
