package report

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

func TestPassingTranscriptsAreBoundedAndFailuresWhole(t *testing.T) {
	var lines []string
	for range 400 {
		lines = append(lines, "s2c "+strings.Repeat("x", 200))
	}
	lines[0], lines[len(lines)-1] = "c2s first", "s2c last"
	clipped := clipPassing(check.Pass, lines)
	size := 0
	for _, l := range clipped {
		size += len(l) + 1
	}
	if size > MaxPassingTranscript+200 || clipped[0] != "c2s first" || clipped[len(clipped)-1] != "s2c last" {
		t.Errorf("a passing check keeps %d bytes in %d lines, from %q to %q", size, len(clipped), clipped[0], clipped[len(clipped)-1])
	}
	var note string
	for _, l := range clipped {
		if strings.HasPrefix(l, "note … ") {
			note = l
		}
	}
	if !strings.Contains(note, "lines (") || !strings.Contains(note, "PASS check") {
		t.Errorf("no note of what was left out: %q", note)
	}
	for _, o := range []check.Outcome{check.Fail, check.Warn, check.HardenedMiss, check.ExpectedFail, check.Stale, check.Error} {
		if got := clipPassing(o, lines); len(got) != len(lines) {
			t.Errorf("%s keeps %d of %d lines", o, len(got), len(lines))
		}
	}
	short := lines[:3]
	if got := clipPassing(check.Pass, short); len(got) != 3 {
		t.Errorf("a short transcript was cut to %d lines", len(got))
	}
}
