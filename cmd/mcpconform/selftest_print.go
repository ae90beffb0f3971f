package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/selftest"
)

// The self-test's console: the kill matrix, the permitted variants, the
// fuzzer's kill matrix and the rerun stability; each printer says whether
// what it printed fails the self-test.

func printKillMatrix(w io.Writer, km selftest.KillMatrix) int {
	fmt.Fprintln(w, "\nmutant                         killed  checks")
	bad := len(km.Unkilled) > 0 || len(km.ReferenceFailures) > 0
	for _, m := range km.Mutants {
		status := "killed"
		if len(m.Survived) > 0 || len(m.Killed) == 0 {
			status, bad = "SURVIVED", true
		}
		fmt.Fprintf(w, "%-30s %-7s %s\n", m.Name, status, strings.Join(m.Killed, ", "))
		if len(m.Survived) > 0 {
			fmt.Fprintf(w, "%-30s         survived: %s\n", "", strings.Join(m.Survived, ", "))
		}
		if len(m.Collateral) > 0 {
			fmt.Fprintf(w, "%-30s         also failed: %s\n", "", strings.Join(m.Collateral, ", "))
		}
	}
	if printVariants(w, km.Variants) {
		bad = true
	}
	if printFuzzMatrix(w, km.Fuzz) {
		bad = true
	}
	fmt.Fprintf(w, "\n%d checks, %d mutants and %d permitted variants run; unkilled checks: %d; reference failures: %d\n",
		len(km.Checks), len(km.Mutants), len(km.Variants), len(km.Unkilled), len(km.ReferenceFailures))
	if len(km.Unused) > 0 {
		fmt.Fprintf(w, "not run (no check names them yet): %s\n", strings.Join(km.Unused, ", "))
	}
	for _, id := range km.Unkilled {
		fmt.Fprintln(w, "  unkilled:", id)
	}
	for _, id := range km.ReferenceFailures {
		fmt.Fprintln(w, "  reference failure:", id)
	}
	if bad {
		return 1
	}
	return 0
}

// printVariants prints each variant's spec-profile tally and its kills
// under hardened; it reports whether one failed under spec or survived a
// check naming it.
func printVariants(w io.Writer, vs []selftest.VariantResult) (bad bool) {
	if len(vs) == 0 {
		return false
	}
	fmt.Fprintln(w, "\npermitted variant              spec profile                    hardened: killed by")
	for _, v := range vs {
		status := "ok"
		if len(v.Spec.Fail) > 0 || len(v.Hardened.Survived) > 0 {
			status, bad = "BAD", true
		}
		killed := strings.Join(v.Hardened.Killed, ", ")
		if killed == "" {
			killed = "(no check names it)"
		}
		fmt.Fprintf(w, "%-30s %-3s %-27s %s\n", v.Name, status, countOutcomes(v.Spec.Outcomes), killed)
		if len(v.Spec.Fail) > 0 {
			fmt.Fprintf(w, "%-30s     FAIL under spec: %s\n", "", strings.Join(v.Spec.Fail, ", "))
		}
		if len(v.Hardened.Survived) > 0 {
			fmt.Fprintf(w, "%-30s     survived under hardened: %s\n", "", strings.Join(v.Hardened.Survived, ", "))
		}
	}
	return bad
}

// countOutcomes summarises a run: "0 FAIL, 3 HARDENED, 1 WARN".
func countOutcomes(res map[string]check.Outcome) string {
	n := map[check.Outcome]int{}
	for _, o := range res {
		n[o]++
	}
	parts := []string{fmt.Sprintf("%d FAIL", n[check.Fail]+n[check.Stale])}
	for _, o := range []check.Outcome{check.HardenedMiss, check.Warn, check.Info} {
		if n[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[o], o))
		}
	}
	return strings.Join(parts, ", ")
}

// printFuzzMatrix prints the fuzzer's kill matrix; it reports whether a
// planted bug survived or the reference broke an invariant.
func printFuzzMatrix(w io.Writer, rows []selftest.FuzzKill) (bad bool) {
	if len(rows) == 0 {
		return false
	}
	fmt.Fprintln(w, "\nfuzzer (seed as above)              transport  result")
	for _, r := range rows {
		var status string
		switch {
		case r.Want == "" && r.OK:
			status = fmt.Sprintf("holds: no finding in %.1fs", r.Seconds)
		case r.Want == "":
			status = fmt.Sprintf("BROKE %s: %s", r.Found, r.Detail)
		case r.OK:
			status = fmt.Sprintf("killed: %s broken within %d sequences, shrunk to %d frames, %.1fs", r.Found, r.Iterations, r.Frames, r.Seconds)
		case r.Found == "":
			status = fmt.Sprintf("SURVIVED: %s not broken in %d sequences", r.Want, r.Iterations)
		default:
			status = fmt.Sprintf("SURVIVED: found %s (%s), not %s", r.Found, r.Detail, r.Want)
		}
		if !r.OK {
			bad = true
		}
		fmt.Fprintf(w, "%-36s %-10s %s\n", r.Target, r.Transport, strings.TrimSpace(status))
	}
	return bad
}
func printStability(w io.Writer, n int, results []selftest.StabilityResult) int {
	code := 0
	for _, r := range results {
		if len(r.Differs) == 0 && len(r.Unearned) == 0 && len(r.Stopped) == 0 {
			fmt.Fprintf(w, "%s: every check gave the same outcome in %d runs, none FAIL, WARN or ERROR\n", r.Target, n)
			continue
		}
		code = 1
		fmt.Fprintf(w, "%s: NOT STABLE\n", r.Target)
		for _, d := range r.Differs {
			outs := make([]string, len(d.Outcomes))
			for k, o := range d.Outcomes {
				outs[k] = cmp.Or(string(o), "absent")
			}
			fmt.Fprintf(w, "  %s differs between runs: %s\n", d.ID, strings.Join(outs, ", "))
		}
		for _, u := range r.Unearned {
			fmt.Fprintf(w, "  unearned verdict %s\n", u)
		}
		for _, s := range r.Stopped {
			fmt.Fprintf(w, "  stopped before its checks in %s\n", s)
		}
	}
	return code
}
