package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

// cells splits a Markdown table row on its unescaped pipes.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	return strings.Split(strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|"), "|")
}

func TestMarkdownEscapesCells(t *testing.T) {
	hostile := result("stdio.server.hostile", check.Fail, "got a|b\r\nthen </details> <script>x</script>")
	hostile.Title = "title | with\nnewline"
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 0, []check.Result{hostile})
	path := filepath.Join(t.TempDir(), "summary.md")
	if err := WriteMarkdown(path, ix); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, path)
	// One failing check: no "Other checks" fold, so no </details> at all.
	if strings.Count(md, "</details>") != 0 || strings.Contains(md, "<script>") {
		t.Errorf("message markup reached the Markdown:\n%s", md)
	}
	var rows []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| stdio.server.hostile") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 1 {
		t.Fatalf("want the check in the attention table only, got rows %q in\n%s", rows, md)
	}
	if n := len(cells(rows[0])); n != 7 {
		t.Errorf("attention row has %d cells, want 7: %s", n, rows[0])
	}
	wantContains(t, rows[0], "got a&#124;b<br>then &lt;/details&gt;")
}

func TestMarkdownLayout(t *testing.T) {
	ix := NewIndex(Tool{Name: "mcpconform", Version: "0.1.0"}, map[string]any{"url": "http://127.0.0.1:1/mcp", "argv": []string{"srv", "-v"}}, 42, []check.Result{
		result("a.pass", check.Pass, ""),
		result("b.warn", check.Warn, "should be faster\nsecond line"),
		result("c.fail", check.Fail, "broke the rule"),
		result("d.skipped", check.Skipped, ""),
		result("e.stale", check.Stale, "entry is stale"),
	})
	md := string(RenderMarkdown(ix))
	wantContains(t, md, "## mcpconform 0.1.0: FAILED", "**1** pass", "**1** fail", "**1** warn", "**1** stale", "seed 42",
		`argv: \["srv","-v"\]`, "### Needs attention (3)", "<details><summary>Other checks (2)</summary>")
	if strings.Contains(md, "**0** info") {
		t.Error("zero counts other than pass and fail are listed")
	}
	attention := md[strings.Index(md, "### Needs attention"):strings.Index(md, "<details>")]
	fail, stale, warn := strings.Index(attention, "c.fail"), strings.Index(attention, "e.stale"), strings.Index(attention, "b.warn")
	if !(fail >= 0 && fail < stale && stale < warn) {
		t.Errorf("attention table not ordered FAIL, STALE, WARN:\n%s", attention)
	}
	if strings.Contains(attention, "a.pass") || strings.Contains(attention, "d.skipped") {
		t.Errorf("attention table lists a pass or a skip:\n%s", attention)
	}
	wantContains(t, attention, "should be faster<br>second line")

	passed := string(RenderMarkdown(NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 0, []check.Result{result("a", check.Pass, "")})))
	wantContains(t, passed, ": passed", "Every check that ran passed.")
}

func TestOneLineTruncates(t *testing.T) {
	long := strings.Repeat("é", maxMessageRunes+5)
	got := oneLine(long, maxMessageRunes)
	if want := strings.Repeat("é", maxMessageRunes) + " …"; got != want {
		t.Errorf("oneLine cut to %d runes", len([]rune(got)))
	}
	if got := oneLine("\n  only line \n\n", maxMessageRunes); got != "only line" {
		t.Errorf("oneLine = %q", got)
	}
}
