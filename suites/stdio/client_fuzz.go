package stdio

import (
	"fmt"
	"path/filepath"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The stdio fuzz check (kind:fuzz, run with --fuzz): seeded random fake
// servers, each case's expected outcome computed from NG-01 … NG-05 and
// NG-12 for the client's declared budgets (fuzz_gen.go).

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.fuzz.stream-mix",
	Title:       "random mixes of banners, text, damaged and non-object lines and stderr floods end as the rules say",
	Requirement: "Text lines within the budgets are skipped and lose nothing; the first past a budget, or a damaged or non-object line, ends the session at once, failing the pending call and the rest; stderr never blocks nor ends it.",
	Rules:       []string{"NG-01", "NG-02", "NG-03", "NG-05", "NG-12"},
	KilledBy: []mutant.Name{mutant.SkipDamagedBrace, mutant.SkipNonObject, mutant.DamagedFailsLate, mutant.NoLineBudget, mutant.LineBudgetOffByOne,
		mutant.NoByteBudget, mutant.ByteBudgetOffByOne, mutant.TextFatalBeforeInit, mutant.DropAfterText, mutant.NoStderrDrain, mutant.StderrVolumeFatal},
	Fuzz: true,
}, func(c *run.C) {
	l := c.ClientLimits()
	run.Fuzz(c, func(seed int64) stdioFuzzCase { return genStdioCase(seed, l) }, func(fc stdioFuzzCase) {
		path := filepath.Join(c.TempDir(), fmt.Sprintf("fuzz-%d.json", fc.Seed))
		if err := stdiofake.WriteScript(path, fc.Script); err != nil {
			c.Errorf("fuzz case seed %d: %v", fc.Seed, err)
		}
		r := c.RunStdioClient(stdiofake.Options{Case: "script", File: path}, target.Invocation{})
		wantStdioOutcome(c, r, fc)
	})
})

// wantStdioOutcome judges a run by the case's expected outcome: the calls
// before the end succeed, in order; the call pending when the session
// ends fails at once (well before its timeout), and so does every later
// one. Each expectation is judged by the rule it comes from.
func wantStdioOutcome(c *run.C, r *run.ClientRun, fc stdioFuzzCase) {
	if len(r.Calls) == 0 {
		wantReached(c, r) // an adapter that reports calls reached the server
	}
	want, prompt := fc.Want, c.Options().Prompt
	why := "the text lines stay within the budgets, so every one is skipped, stderr neither blocks nor ends the session, and every reply reaches its call"
	if want.Rule != "" {
		why = fmt.Sprintf("the session ends after %d successful call(s): the line there breaks %s", want.OK, want.Rule)
	}
	if !want.Handshake {
		c.RequireRule(want.Rule, r.Connect == nil || r.Connect.Outcome == target.OutcomeError, "the handshake fails: "+why,
			"the handshake succeeded; calls: %s", describeCalls(r.Calls))
	}
	c.RequireRule("NG-12", len(r.Calls) >= want.OK, fmt.Sprintf("at least %d call result(s): %s", want.OK, why), "calls: %s", describeCalls(r.Calls))
	for i, call := range r.Calls {
		if i < want.OK {
			c.RequireRule(okRule(fc.Script.Calls[i]), call.OK() && call.Tool == fc.Script.Tools[i], fmt.Sprintf("call %d is tool %s and succeeds: %s", i+1, fc.Script.Tools[i], why),
				"calls: %s", describeCalls(r.Calls))
			continue
		}
		c.RequireRule(want.Rule, !call.OK(), fmt.Sprintf("calls after t%d fail: %s", want.OK, why), "calls: %s", describeCalls(r.Calls))
		if i == want.OK {
			c.RequireRule(want.Rule, ms(call.ElapsedMS) <= prompt, fmt.Sprintf("the pending call fails within %s, long before its %s timeout", prompt, c.Options().Patience),
				"tool %q failed after %d ms", call.Tool, call.ElapsedMS)
		}
	}
}

// okRule is the rule a call that should succeed breaks when it fails: a
// stderr flood before it must not block or end it (NG-05); skipped text
// must lose no reply (NG-12).
func okRule(call stdiofake.ScriptCall) string {
	if call.Stderr > 0 {
		return "NG-05"
	}
	return "NG-12"
}
