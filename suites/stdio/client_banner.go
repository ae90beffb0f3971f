package stdio

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Banners and log lines on stdout: NG-01, NG-03, NG-04, NG-12 (ST-03 is the
// server's rule these servers break).

// bannerFits reports whether lines banner lines, each at most 100 bytes
// (the fake's longest), stay within the client's byte budget, so that a
// check of the line budget is not ended by the byte budget first.
func bannerFits(l run.Limits, lines int64) bool {
	const maxBannerLine = 100
	return l.StdoutTextBytes == 0 || lines*maxBannerLine <= l.StdoutTextBytes
}

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.banner.before-initialize",
	Title:       "banner lines of every shape before the initialize reply are skipped and the call succeeds",
	Requirement: "A stdout line that is not JSON and could not be a damaged message is skipped, within the text budgets, even before the initialize reply: one led by [INFO], a timestamp, an ANSI colour escape or a number as much as one led by a word.",
	Rules:       []string{"NG-01", "NG-03", "ST-03"},
	Eras:        check.BothEras,
	KilledBy: []mutant.Name{mutant.TextFatalBeforeInit, mutant.DropAfterText,
		mutant.BracketTextAsBatch, mutant.DigitTextAsJSON, mutant.EscapeTextFatal},
}, func(c *run.C) {
	// One line of each shape the fake's banners take (a bracketed level
	// first), as many as the budgets let through.
	l := c.ClientLimits()
	n := min(l.StdoutTextLines, int64(stdiofake.BannerShapes()))
	for n > 0 && !bannerFits(l, n) {
		n--
	}
	if n == 0 {
		c.Unimplemented("the client declares a text budget of 0 lines (or under one line of bytes), so no banner may be skipped")
	}
	r := c.RunStdioClient(stdiofake.Options{Case: "banner-before-init", Lines: int(n), Marker: newMarker("banner")}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.banner.between-responses",
	Title:       "text between responses loses and reorders nothing",
	Requirement: "Skipping text lines never loses or reorders messages: every reply still reaches its call.",
	Rules:       []string{"NG-12", "NG-01"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.DropAfterText},
}, func(c *run.C) {
	l := c.ClientLimits()
	const tools, perGap = 3, 1
	gaps := int64(2*(tools+2) + 2) // before and after every response
	if l.StdoutTextLines < gaps*perGap || !bannerFits(l, gaps*perGap) {
		c.Unimplemented(fmt.Sprintf("the client's text budgets (%d lines, %d bytes) are too small for %d banner lines", l.StdoutTextLines, l.StdoutTextBytes, gaps))
	}
	r := c.RunStdioClient(stdiofake.Options{Case: "banner-between", Tools: tools, Lines: perGap, Marker: newMarker("between")}, target.Invocation{})
	wantAllCallsOK(c, r, tools)
	for i, call := range r.Calls {
		want := fmt.Sprintf("t%d", i+1)
		c.Require(call.Tool == want, "the calls complete in order t1, t2, t3", "call %d is %q", i+1, call.Tool)
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.banner.line-budget-exact",
	Title:       "exactly max_stdout_text_lines text lines are skipped and the call succeeds",
	Requirement: "Skipped lines count against max_stdout_text_lines; exactly the budget passes.",
	Rules:       []string{"NG-03"},
	KilledBy:    []mutant.Name{mutant.LineBudgetOffByOne},
}, func(c *run.C) {
	l := c.ClientLimits()
	if l.StdoutTextLines == 0 || !bannerFits(l, l.StdoutTextLines) {
		c.Unimplemented(fmt.Sprintf("the client's line budget %d cannot be met within its byte budget %d", l.StdoutTextLines, l.StdoutTextBytes))
	}
	r := c.RunStdioClient(stdiofake.Options{Case: "banner-lines", Lines: int(l.StdoutTextLines), Marker: newMarker("lines")}, target.Invocation{})
	ok, observed := run.CallsOK(r.Output, 1)
	c.Boundary(l.Declared[target.LimitStdoutTextLines], target.LimitStdoutTextLines, ok,
		fmt.Sprintf("the call succeeds after %d text lines", l.StdoutTextLines), "%s after %d text lines", observed, l.StdoutTextLines)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.banner.line-budget-exceeded",
	Title:       "one text line past max_stdout_text_lines ends the session with a protocol failure",
	Requirement: "The next skippable line once the line budget is spent ends the session with a protocol failure.",
	Rules:       []string{"NG-03"},
	KilledBy:    []mutant.Name{mutant.NoLineBudget},
}, func(c *run.C) {
	l := c.ClientLimits()
	if !bannerFits(l, l.StdoutTextLines+1) {
		c.Unimplemented(fmt.Sprintf("the client's line budget %d cannot be passed within its byte budget %d", l.StdoutTextLines, l.StdoutTextBytes))
	}
	r := c.RunStdioClient(stdiofake.Options{Case: "banner-lines", Lines: int(l.StdoutTextLines) + 1, Marker: newMarker("lines")}, target.Invocation{})
	wantFailedAtBoundary(c, r, l.Declared[target.LimitStdoutTextLines], target.LimitStdoutTextLines, fmt.Sprintf("line %d is past the budget", l.StdoutTextLines+1))
})

// wantFailedAtBoundary expects the first call to fail at once, one past a
// limit: judged against the declared limit, or the seed default (Boundary).
func wantFailedAtBoundary(c *run.C, r *run.ClientRun, declared bool, key, why string) {
	failed, after, observed := callFailure(c, r)
	bound := c.Options().Prompt
	c.Boundary(declared, key, failed && after <= bound,
		fmt.Sprintf("the call fails within %s (%s), long before its %s timeout", bound, why, c.Options().Patience), "%s (%s)", observed, why)
}

// bytesScenario asks the fake for exactly n text bytes spread over at most
// half the line budget, so only the byte budget can be what is spent.
func bytesScenario(l run.Limits, n int64) stdiofake.Options {
	return stdiofake.Options{Case: "banner-bytes", Bytes: n, Lines: int(max(1, l.StdoutTextLines/2)), Marker: newMarker("bytes")}
}

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.banner.byte-budget-exact",
	Title:       "exactly max_stdout_text_bytes text bytes (newlines included) are skipped and the call succeeds",
	Requirement: "Skipped lines count against max_stdout_text_bytes, newlines included; exactly the budget passes.",
	Rules:       []string{"NG-03"},
	KilledBy:    []mutant.Name{mutant.ByteBudgetOffByOne},
}, func(c *run.C) {
	l := c.ClientLimits()
	if l.StdoutTextBytes == 0 || l.StdoutTextLines == 0 {
		c.Unimplemented("the client skips no text (a budget of 0)")
	}
	r := c.RunStdioClient(bytesScenario(l, l.StdoutTextBytes), target.Invocation{})
	ok, observed := run.CallsOK(r.Output, 1)
	c.Boundary(l.Declared[target.LimitStdoutTextBytes], target.LimitStdoutTextBytes, ok,
		fmt.Sprintf("the call succeeds after %d text bytes", l.StdoutTextBytes), "%s after %d text bytes", observed, l.StdoutTextBytes)
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.banner.byte-budget-exceeded",
	Title:       "one text byte past max_stdout_text_bytes ends the session with a protocol failure",
	Requirement: "The next skippable line once the byte budget is spent ends the session with a protocol failure.",
	Rules:       []string{"NG-03"},
	KilledBy:    []mutant.Name{mutant.NoByteBudget},
}, func(c *run.C) {
	l := c.ClientLimits()
	if l.StdoutTextLines == 0 {
		c.Unimplemented("the client skips no text (a line budget of 0)")
	}
	r := c.RunStdioClient(bytesScenario(l, l.StdoutTextBytes+1), target.Invocation{})
	wantFailedAtBoundary(c, r, l.Declared[target.LimitStdoutTextBytes], target.LimitStdoutTextBytes, fmt.Sprintf("%d bytes are past the budget", l.StdoutTextBytes+1))
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.banner.zero-budget",
	Title:       "with a text budget of 0 the first text line is fatal",
	Requirement: "A budget of 0 (lines or bytes) means nothing is skipped: the first text line ends the session.",
	Rules:       []string{"NG-03", "ST-03"},
	KilledBy:    []mutant.Name{mutant.ZeroBudgetMeansDefault},
}, func(c *run.C) {
	for _, key := range []string{target.LimitStdoutTextLines, target.LimitStdoutTextBytes} {
		r := c.RunStdioClient(stdiofake.Options{Case: "banner-lines", Lines: 1, Marker: newMarker("zero")},
			target.Invocation{Limits: map[string]any{key: 0}})
		if v, ok := r.Int(key); !ok || v != 0 {
			c.Unimplemented(fmt.Sprintf("the adapter does not honour %s {%q: 0} (its config line must echo %s: 0)", target.EnvLimits, key, key))
		}
		wantCallFailedWithin(c, r, c.Options().Prompt, key+" is 0")
	}
})

// skipReportRun has the fake print five banner lines before its reply.
func skipReportRun(c *run.C) (*run.ClientRun, string) {
	l := c.ClientLimits()
	if l.StdoutTextLines < 5 || !bannerFits(l, 5) {
		c.Unimplemented("the client's text budget is below 5 lines")
	}
	marker := newMarker("quoted")
	r := c.RunStdioClient(stdiofake.Options{Case: "banner-before-init", Lines: 5, Marker: marker}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
	return r, marker
}

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.banner.not-quoted",
	Title:       "skipped text is never quoted in what the client prints",
	Requirement: "The skipped line is reported without quoting its content (a count and a length are fine; the bytes are not).",
	Rules:       []string{"NG-04"},
	KilledBy:    []mutant.Name{mutant.QuoteSkippedLine},
}, func(c *run.C) {
	r, marker := skipReportRun(c)
	for name, out := range map[string][]byte{"stdout": r.Stdout, "stderr": r.Stderr} {
		c.Require(!strings.Contains(string(out), marker), "the banner's bytes appear nowhere in the client's output",
			"the adapter's %s quotes the skipped banner", name)
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.banner.reported-once",
	Title:       "the first skipped line is reported once on the host's stderr",
	Requirement: "The first skipped line is reported once on the host's stderr; later ones are not reported line by line.",
	Rules:       []string{"NG-04"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.ReportEverySkippedLine},
}, func(c *run.C) {
	r, _ := skipReportRun(c)
	n := stderrLines(r)
	c.Require(n == 1, "exactly one report line on the host's stderr for five skipped lines", "%d stderr line(s)", n)
})
