package transcript

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ClipMark ends what Clip kept of a text, before the count of the bytes
// it cut; Redact masks the start of a secret the cut left before it.
const ClipMark = "…"

// Clip returns s whole when it is at most max bytes long, and otherwise
// its first max bytes or fewer (a character is not split) followed by
// "… (N bytes cut)".
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	keep := runeCut(s, max)
	return s[:keep] + cutNote(len(s)-keep)
}

// Excerpt renders a text that may hold anything for one line of a
// transcript or a message: its first ExcerptBytes bytes, as Clip cuts
// them, each character a terminal or a report would not show as itself (a
// control character, a byte that is no UTF-8) written as a Go escape:
// \x1b, \r, \t, \xff.
func Excerpt(s string) string { return excerpt(s, len(s)) }

// excerpt is Excerpt of the first bytes of a text of total bytes.
func excerpt(s string, total int) string {
	keep := len(s)
	if keep > ExcerptBytes {
		keep = runeCut(s, ExcerptBytes)
	}
	var b strings.Builder
	for i := 0; i < keep; {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	if keep < total {
		b.WriteString(cutNote(total - keep))
	}
	return b.String()
}

// runeCut is the longest prefix of s of at most max bytes that ends at a
// character's boundary.
func runeCut(s string, max int) int {
	keep := max
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return keep
}

// cutNote is what follows a clipped text: the mark and the bytes cut.
func cutNote(cut int) string { return fmt.Sprintf("%s (%d bytes cut)", ClipMark, cut) }
