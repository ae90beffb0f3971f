package transcript

import (
	"strings"
	"testing"
)

func TestClipSaysWhatItCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"0123456789abc", 10, "0123456789… (3 bytes cut)"},
		{"ab€cd", 3, "ab… (5 bytes cut)"}, // € is 3 bytes: not split
	} {
		if got := Clip(c.in, c.max); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestExcerptShowsTheBytesPrintably(t *testing.T) {
	if got, want := Excerpt("\x1b[31mred\x1b[0m\ttab\r\xff ok é"), `\x1b[31mred\x1b[0m\ttab\r\xff ok é`; got != want {
		t.Errorf("Excerpt = %q, want %q", got, want)
	}
	long := strings.Repeat("a", ExcerptBytes+50)
	if got, want := Excerpt(long), strings.Repeat("a", ExcerptBytes)+"… (50 bytes cut)"; got != want {
		t.Errorf("Excerpt of %d bytes = %q", len(long), got)
	}
}
