package stdio

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Property checks: random scripts for the fake, with the client's expected
// outcome computed from the rules. Seeded; the seed is printed on failure and
// --seed reproduces the run.

// textLine generates a stdout line that is skippable text (NG-01): led by
// a word, a digit, a timestamp, a number, a quote or a bracketed level, or
// a very long one (1 to 3 KiB). Each is kept only if the line classifier
// agrees it is text, so the expected outcome follows from the rule.
func textLine() gopter.Gen {
	word := gen.AlphaString()
	return gen.Weighted([]gen.WeightedGen{
		{Weight: 3, Gen: word.Map(func(s string) string { return "log: " + s })},
		{Weight: 2, Gen: gopter.CombineGens(gen.IntRange(0, 9999), word).Map(func(v []any) string { return fmt.Sprintf("%d %s", v[0], v[1]) })},
		{Weight: 2, Gen: gopter.CombineGens(gen.IntRange(0, 86399), word).Map(func(v []any) string {
			t := v[0].(int)
			return fmt.Sprintf("2026-01-01 %02d:%02d:%02d INFO %s", t/3600, t/60%60, t%60, v[1])
		})},
		{Weight: 1, Gen: word.Map(func(s string) string { return "3.14 " + s + " ready" })},
		{Weight: 2, Gen: word.Map(func(s string) string { return `"` + s + `" said the server` })},
		{Weight: 1, Gen: word.Map(func(s string) string { return "[INFO] " + s })},
		{Weight: 1, Gen: gen.IntRange(1<<10, 3<<10).Map(func(n int) string { return "long " + strings.Repeat("x", n) })},
	}).SuchThat(func(s string) bool { return jsonrpc.ClassifyLine([]byte(s)) == jsonrpc.ClassText })
}

// fatalLine generates a line that ends the session: possibly damaged and
// not parsing (NG-01, NG-02), or JSON that is neither an object nor a
// batch (NG-02: 42, "x", null, true).
func fatalLine() gopter.Gen {
	return gen.OneGenOf(
		gen.AlphaString().Map(func(s string) string { return `{"jsonrpc":"2.0","id":` + s }),
		gen.AlphaString().Map(func(s string) string { return "[{" + s }),
		gen.AlphaString().Map(func(s string) string { return `{"id":1,"` + s }),
		gen.AlphaString().Map(func(s string) string { return s + " jsonrpc " + s }),
		gen.AlphaString().Map(func(s string) string { return "2026-01-01 12:00:00 jsonrpc " + s }),
		gen.IntRange(1, 40).Map(func(n int) string {
			full := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`
			return full[:n]
		}),
		gen.IntRange(-1000, 1000).Map(func(n int) string { return fmt.Sprint(n) }),
		gen.AlphaString().Map(func(s string) string { return fmt.Sprintf("%q", s) }),
		gen.OneConstOf("null", "true", "false", "[]", "[1]", "3.5e2"),
	).SuchThat(func(s string) bool {
		c := jsonrpc.ClassifyLine([]byte(s))
		return c == jsonrpc.ClassDamaged || c == jsonrpc.ClassNonObject
	})
}

// propertyCheck runs body over generated scripts until one fails or the
// run's sample count passes.
func propertyCheck(c *run.C, g gopter.Gen, judge func(s stdiofake.Script) (bool, string)) {
	seed := c.Options().Seed
	c.SetSeed(seed)
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = c.Options().PropertySamples
	params.MaxSize = 24
	params.MaxShrinkCount = 0
	var firstFailure string
	// A verdict other than a failure (UNIMPLEMENTED: an adapter without
	// stdio; ERROR) ends the check as it is: gopter would take its panic
	// for a failing case.
	var escaped any
	result := prop.ForAll(func(s stdiofake.Script) (ok bool) {
		if escaped != nil {
			return true
		}
		defer func() {
			if r := recover(); r != nil {
				escaped, ok = r, true
			}
		}()
		ok, msg := judge(s)
		if !ok && firstFailure == "" {
			firstFailure = msg
		}
		return ok
	}, g).Check(params)
	if escaped != nil {
		panic(escaped)
	}
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
func runScript(c *run.C, s stdiofake.Script, want func(r *run.ClientRun)) (bool, string) {
	path := filepath.Join(c.TempDir(), fmt.Sprintf("script-%d.json", len(s.Calls)))
	if err := stdiofake.WriteScript(path, s); err != nil {
		return false, "harness error: " + err.Error()
	}
	failed, msg := c.Try(func() {
		want(c.RunStdioClient(stdiofake.Options{Case: "script", File: path}, target.Invocation{}))
	})
	return !failed, msg
}

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.property.interleaving",
	Title:       "random interleavings of skippable text and replies complete every call with its own result",
	Requirement: "Text lines within the budgets are skipped wherever they fall; every call still gets its own reply, in order.",
	Rules:       []string{"NG-01", "NG-03", "NG-12"},
	KilledBy:    []mutant.Name{mutant.DropAfterText},
	Property:    true,
}, func(c *run.C) {
	l := c.ClientLimits()
	if l.StdoutTextLines == 0 || l.StdoutTextBytes == 0 {
		c.Unimplemented("the client skips no text (a budget of 0), so no interleaving can succeed")
	}
	call := func(first bool) gopter.Gen {
		minBefore := 0
		if first {
			minBefore = 1 // at least one text line right before a reply
		}
		return gopter.CombineGens(gen.SliceOfN(2, textLine()), gen.IntRange(minBefore, 2), gen.SliceOfN(2, textLine()), gen.IntRange(0, 2)).
			Map(func(v []any) stdiofake.ScriptCall {
				before, after := v[0].([]string), v[2].([]string)
				return stdiofake.ScriptCall{Before: before[:v[1].(int)], Reply: true, After: after[:v[3].(int)]}
			})
	}
	g := gopter.CombineGens(call(true), call(false), call(false), gen.IntRange(1, 3)).Map(func(v []any) stdiofake.Script {
		n := v[3].(int)
		s := stdiofake.Script{}
		for i := 0; i < n; i++ {
			s.Tools = append(s.Tools, fmt.Sprintf("t%d", i+1))
			s.Calls = append(s.Calls, v[i].(stdiofake.ScriptCall))
		}
		return s
	})
	propertyCheck(c, g, func(s stdiofake.Script) (bool, string) {
		want := expectStdio(s, l).OK
		return runScript(c, s, func(r *run.ClientRun) {
			if want == len(s.Tools) {
				wantAllCallsOK(c, r, len(s.Tools))
			}
			got := make([]string, 0, len(r.Calls))
			for i, call := range r.Calls {
				got = append(got, call.Tool)
				expected := fmt.Sprintf("calls t1…t%d succeed and the rest fail (the text budgets, %d lines and %d bytes, end the session there)", want, l.StdoutTextLines, l.StdoutTextBytes)
				c.Require(call.OK() == (i < want), expected, "tool %q ended %s: %s", call.Tool, call.Outcome, describeCalls(r.Calls))
			}
			c.Require(len(got) >= want && strings.Join(got[:want], ",") == strings.Join(s.Tools[:want], ","), "calls complete in order", "order %v", got)
		})
	})
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.property.damaged",
	Title:       "a random damaged or non-object line after random text ends the session within the bound",
	Requirement: "Whatever text precedes it, a damaged line ends the session at once with a protocol failure.",
	Rules:       []string{"NG-01", "NG-02"},
	KilledBy:    []mutant.Name{mutant.DamagedFailsLate},
	Property:    true,
}, func(c *run.C) {
	// Text past a budget ends the session too, so the expected outcome is
	// the same whatever the budgets.
	if c.ClientLimits().StdoutTextLines < 2 {
		c.Unimplemented("the client's text budget is below the 2 lines a generated case may need")
	}
	g := gopter.CombineGens(gen.SliceOfN(2, textLine()), gen.IntRange(0, 2), fatalLine()).Map(func(v []any) stdiofake.Script {
		before := append(v[0].([]string)[:v[1].(int)], v[2].(string))
		return stdiofake.Script{Tools: []string{"t1"}, Calls: []stdiofake.ScriptCall{{Before: before}}}
	})
	propertyCheck(c, g, func(s stdiofake.Script) (bool, string) {
		return runScript(c, s, func(r *run.ClientRun) {
			wantCallFailedWithin(c, r, c.Options().Prompt, "the server wrote a damaged line")
		})
	})
})
