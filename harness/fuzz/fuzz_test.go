package fuzz

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
)

func TestFuzzReferenceStdioHolds(t *testing.T) {
	rep, err := Run(context.Background(), Options{Target: reference(), Seed: 1, Duration: 3 * time.Second, Slow: []string{"slow"}, ExecOptions: ExecOptions{Timeout: time.Second, MaxRSS: 256 << 20}})
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

// TestFuzzFindsPlantedBugs is the fuzzer's kill matrix on a short budget:
// each planted bug of the reference is found, shrunk to at most five
// frames, and the finding carries a transcript of a run that shows it.
func TestFuzzFindsPlantedBugs(t *testing.T) {
	// A wedge is found by its timeout, so that one is short; the others
	// have a timeout no loaded machine reaches, so that a slow answer is
	// never taken for another invariant's break. A leftover is found by
	// the teardown's wait, which a child living a minute outlasts
	// whatever the grace, so that one is short too: every sequence the
	// shrinker tries waits it out.
	for _, tc := range []struct {
		mutant  string
		want    Invariant
		only    []string
		timeout time.Duration
		grace   time.Duration
	}{
		{"planted-duplicate-reply", OneResponse, nil, 5 * time.Second, 0},
		{"planted-wedge-after-unknown-cancel", AnswersPing, nil, 300 * time.Millisecond, 0},
		{"planted-crash-on-string", Alive, []string{"test_sampling", "test_elicitation"}, 5 * time.Second, 0},
		{"planted-setsid-child", NoLeftovers, nil, 5 * time.Second, 300 * time.Millisecond},
		{"planted-response-after-cancel", NoResponseAfterCancel, nil, 5 * time.Second, 0},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			rep, err := Run(context.Background(), Options{Target: reference("--mutant", tc.mutant), Seed: 1, Duration: 30 * time.Second, MaxFindings: 1,
				Slow: []string{"slow"}, Only: tc.only, ExecOptions: ExecOptions{Timeout: tc.timeout, Grace: tc.grace}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Findings) == 0 {
				t.Fatalf("no finding in %d sequences", rep.Stats.Iterations)
			}
			f := rep.Findings[0]
			if f.Violation.Invariant != tc.want || len(f.Case.Frames) > 5 {
				t.Errorf("found %v in %d frames, want %s in at most 5:\n%s", f.Violation, len(f.Case.Frames), tc.want, f.Case.Format())
			}
			if len(f.Violation.Transcript) == 0 {
				t.Error("the finding carries no transcript")
			}
		})
	}
}

// TestRetryDelayIsNotTheServersTime: the reference's test_reconnection
// ends its stream and asks for a 500 ms retry before the answer, which a
// 300 ms timeout must not count against it.
func TestRetryDelayIsNotTheServersTime(t *testing.T) {
	url, stop, err := serve.Start(serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	out, err := Execute(Target{URL: url}, frames(initFrame,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_reconnection","arguments":{}}}`,
	), ExecOptions{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if out.Violation != nil {
		t.Fatalf("the reference broke %v", out.Violation)
	}
}

// TestFuzzCallsWhatThePolicyAllows: the fuzzer calls the tools the policy
// lets it call (every tool of the reference is read-only) and names each
// tool it leaves out, with why.
func TestFuzzCallsWhatThePolicyAllows(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  toolpolicy.Policy
		called  int // at least
		skipped []string
	}{
		{"read-only", toolpolicy.Policy{}, 15, nil},
		{"unsafe", toolpolicy.Policy{Mode: toolpolicy.All, Unsafe: []string{"test_simple_text"}}, 15, []string{"test_simple_text (listed under unsafe: in the fixtures file)"}},
		{"none", toolpolicy.Policy{Mode: toolpolicy.None}, 0, []string{"test_simple_text (call-tools is none)", "slow (call-tools is none)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Run(context.Background(), Options{Target: reference(), Seed: 1, Iterations: 1, Policy: tc.policy, Slow: []string{"slow"}, ExecOptions: ExecOptions{Timeout: 5 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Tools) < tc.called || tc.called == 0 && len(rep.Tools) > 0 {
				t.Errorf("called %v, want at least %d tools", rep.Tools, tc.called)
			}
			for _, s := range tc.skipped {
				if !slices.Contains(rep.Skipped, s) {
					t.Errorf("left out %v, want %q among them", rep.Skipped, s)
				}
				if name, _, _ := strings.Cut(s, " "); slices.Contains(rep.Tools, name) {
					t.Errorf("%s was called", name)
				}
			}
		})
	}
}
