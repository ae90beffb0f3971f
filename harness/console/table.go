package console

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// DefaultTableWidth is the width a table is cut to when the output is no
// terminal and COLUMNS is not set.
const DefaultTableWidth = 120

// TableWidth is the width tables written to w are cut to: the terminal's,
// else COLUMNS, else DefaultTableWidth.
func TableWidth(w io.Writer, getenv func(string) string) int {
	if width, ok := Terminal(w, getenv); ok {
		if n := width(); n > 0 {
			return n
		}
	}
	var n int
	if _, err := fmt.Sscan(getenv("COLUMNS"), &n); err == nil && n > 0 {
		return n
	}
	return DefaultTableWidth
}

// Table writes rows under header as columns two spaces apart. With width
// above zero, each cell is first cut to its column's limit (zero: none),
// then the last column to what is left of width (at least 12 runes); a
// cut cell ends with "…". Width zero writes every cell whole.
func Table(w io.Writer, width int, header []string, limits []int, rows [][]string) error {
	all := append([][]string{header}, rows...)
	if width > 0 {
		for _, r := range all {
			for i := range r {
				if i < len(limits) && limits[i] > 0 {
					r[i] = Cut(r[i], limits[i])
				}
			}
		}
	}
	cols := len(header)
	widths := make([]int, cols)
	for _, r := range all {
		for i := 0; i < cols-1 && i < len(r); i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	last := 0
	for _, n := range widths[:cols-1] {
		last += n + 2
	}
	var b strings.Builder
	for _, r := range all {
		var line strings.Builder
		for i := 0; i < cols && i < len(r); i++ {
			cell := r[i]
			if i == cols-1 {
				if width > 0 {
					cell = Cut(cell, max(width-last, 12))
				}
				line.WriteString(cell)
				break
			}
			line.WriteString(cell)
			line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+2))
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Cut shortens s to at most n runes, ending a cut one with "…".
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
