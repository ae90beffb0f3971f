package main

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
)

// TestMarkdownOfTheWholeCatalogueFits fails every catalogued check with a
// long message: the summary stays under report.MarkdownLimit, and every
// row still shows its observed: line.
func TestMarkdownOfTheWholeCatalogueFits(t *testing.T) {
	long := strings.Repeat(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x_y"}]}} `, 20)
	var rs []check.Result
	for _, d := range check.All() {
		rs = append(rs, check.Result{Descriptor: d, Outcome: check.Fail,
			Message: "requirement (MUST, " + strings.Join(d.Rules, ", ") + "): " + d.Requirement +
				"\nexpected: " + long + "\nobserved: " + long + "\ntranscript (last lines):\n  " + long})
	}
	md := string(report.RenderMarkdown(report.NewIndex(report.Tool{Name: "mcpconform", Version: Version}, nil, 1, rs)))
	if len(md) >= report.MarkdownLimit {
		t.Errorf("the Markdown of %d failing checks is %d bytes, over %d", len(rs), len(md), report.MarkdownLimit)
	}
	rows := 0
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "| FAIL |") {
			rows++
			if !strings.Contains(line, "<br>observed: ") {
				t.Fatalf("a row lost its observed: line: %s", line)
			}
		}
	}
	if rows != len(rs) {
		t.Errorf("%d rows for %d checks", rows, len(rs))
	}
	t.Logf("%d checks failing: %d bytes", len(rs), len(md))
}
