package stdio

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Property checks: random scripts for the fake, with the client's expected
// outcome computed from the rules. Seeded; the seed is printed on failure and
// --seed reproduces the run.

// textLine generates a stdout line that is skippable text.
func textLine() gopter.Gen {
	return gen.AlphaString().Map(func(s string) string { return "log: " + s }).
		SuchThat(func(s string) bool { return jsonrpc.ClassifyLine([]byte(s)) == jsonrpc.ClassText })
}

// damagedLine generates a line the client must treat as damaged.
func damagedLine() gopter.Gen {
	return gen.OneGenOf(
		gen.AlphaString().Map(func(s string) string { return `{"jsonrpc":"2.0","id":` + s }),
		gen.AlphaString().Map(func(s string) string { return "[{" + s }),
		gen.AlphaString().Map(func(s string) string { return s + " jsonrpc " + s }),
		gen.IntRange(1, 40).Map(func(n int) string {
			full := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`
			return full[:n]
		}),
	).SuchThat(func(s string) bool { return jsonrpc.ClassifyLine([]byte(s)) == jsonrpc.ClassDamaged })
}

// propertyCheck runs body over generated scripts until one fails or the
// run's sample count passes.
func propertyCheck(c *run.C, g gopter.Gen, judge func(s fakeservers.Script) (bool, string)) {
	seed := c.Config().Seed
	c.SetSeed(seed)
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = c.Config().PropertySamples
	params.MaxSize = 24
	params.MaxShrinkCount = 0
	var firstFailure string
	result := prop.ForAll(func(s fakeservers.Script) bool {
		ok, msg := judge(s)
		if !ok && firstFailure == "" {
			firstFailure = msg
		}
		return ok
	}, g).Check(params)
	if !result.Passed() {
		detail := firstFailure
		if result.Error != nil {
			detail += fmt.Sprintf(" (property error: %v)", result.Error)
		}
		c.Failf("every generated case passes", "a case failed after %d passed: %s\ncase: %v", result.Succeeded, detail, result.Args)
	}
}

// runScript runs the client against the script fake and judges the run
// with want, returning whether it held.
func runScript(c *run.C, s fakeservers.Script, want func(r *run.ClientRun)) (bool, string) {
	path := filepath.Join(c.TempDir(), fmt.Sprintf("script-%d.json", len(s.Calls)))
	if err := fakeservers.WriteScript(path, s); err != nil {
		return false, "harness error: " + err.Error()
	}
	failed, msg := c.Try(func() {
		want(c.RunStdioClient(fakeservers.Options{Case: "script", File: path}, target.Invocation{}))
	})
	return !failed, msg
}

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.property.interleaving",
	Title:       "random interleavings of skippable text and replies complete every call with its own result",
	Requirement: "Text lines within the budgets are skipped wherever they fall; every call still gets its own reply, in order.",
	Rules:       []string{"NG-01", "NG-03", "NG-12"},
	KilledBy:    killers(mutant.DropAfterText),
	Property:    true,
}, func(c *run.C) {
	l := c.ClientLimits()
	if l.StdoutTextLines < 13 || !bannerFits(l, 13) {
		c.Unimplemented("the client's text budget is below the 13 lines a generated case may need")
	}
	call := func(first bool) gopter.Gen {
		minBefore := 0
		if first {
			minBefore = 1 // at least one text line right before a reply
		}
		return gopter.CombineGens(gen.SliceOfN(2, textLine()), gen.IntRange(minBefore, 2), gen.SliceOfN(2, textLine()), gen.IntRange(0, 2)).
			Map(func(v []any) fakeservers.ScriptCall {
				before, after := v[0].([]string), v[2].([]string)
				return fakeservers.ScriptCall{Before: before[:v[1].(int)], Reply: true, After: after[:v[3].(int)]}
			})
	}
	g := gopter.CombineGens(call(true), call(false), call(false), gen.IntRange(1, 3)).Map(func(v []any) fakeservers.Script {
		n := v[3].(int)
		s := fakeservers.Script{}
		for i := 0; i < n; i++ {
			s.Tools = append(s.Tools, fmt.Sprintf("t%d", i+1))
			s.Calls = append(s.Calls, v[i].(fakeservers.ScriptCall))
		}
		return s
	})
	propertyCheck(c, g, func(s fakeservers.Script) (bool, string) {
		return runScript(c, s, func(r *run.ClientRun) {
			wantAllCallsOK(c, r, len(s.Tools))
			got := make([]string, len(r.Calls))
			for i, call := range r.Calls {
				got[i] = call.Tool
			}
			c.Require(strings.Join(got, ",") == strings.Join(s.Tools, ","), "calls complete in order", "order %v", got)
		})
	})
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.property.damaged",
	Title:       "a random damaged line after random text ends the session within the bound",
	Requirement: "Whatever text precedes it, a damaged line ends the session at once with a protocol failure.",
	Rules:       []string{"NG-01", "NG-02"},
	KilledBy:    killers(mutant.DamagedFailsLate),
	Property:    true,
}, func(c *run.C) {
	if c.ClientLimits().StdoutTextLines < 2 {
		c.Unimplemented("the client's text budget is below the 2 lines a generated case may need")
	}
	g := gopter.CombineGens(gen.SliceOfN(2, textLine()), gen.IntRange(0, 2), damagedLine()).Map(func(v []any) fakeservers.Script {
		before := append(v[0].([]string)[:v[1].(int)], v[2].(string))
		return fakeservers.Script{Tools: []string{"t1"}, Calls: []fakeservers.ScriptCall{{Before: before}}}
	})
	propertyCheck(c, g, func(s fakeservers.Script) (bool, string) {
		return runScript(c, s, func(r *run.ClientRun) {
			wantCallFailedWithin(c, r, c.Config().Prompt, "the server wrote a damaged line")
		})
	})
})
