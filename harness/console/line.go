package console

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/harness/check"
)

// order is the order of the outcomes on the live line: what needs
// attention first.
var order = []check.Outcome{check.Fail, check.Error, check.Stale, check.Warn, check.HardenedMiss, check.Pass,
	check.ExpectedFail, check.Info, check.Unimplemented, check.NotApplicable, check.Skipped}

// outcomeWidth is the width of the longest outcome name, UNIMPLEMENTED:
// the plain lines align on it.
const outcomeWidth = 13

// CheckLine is the line of one finished check: its outcome, its ID and
// the time it took, e.g. "PASS           stdio.client.banner.ignored  0.21s".
func CheckLine(colour bool, o check.Outcome, id string, took time.Duration) string {
	pad := strings.Repeat(" ", max(0, outcomeWidth-len(o)))
	return fmt.Sprintf("%s%s  %s  %.2fs", Paint(colour, o, string(o)), pad, id, took.Seconds())
}

// status is what the live line shows.
type status struct {
	finished, total int
	counts          map[check.Outcome]int
	running         []string // in the order they started
	elapsed         time.Duration
	budget          time.Duration // the run's; 0: none
}

// piece is a part of the live line, painted in the colour of its outcome
// (none: plain).
type piece struct {
	text    string
	outcome check.Outcome
}

// line renders the status in at most width-1 columns (the last column
// would wrap on some terminals), painted when colour is on:
//
//	12/63  FAIL 1  PASS 10  N/A 1 · 0:12 elapsed, 51 to go, 9:48 of the budget left · running stdio.client.banner.ignored +2
func (s status) line(width int, colour bool) string {
	ps := []piece{{text: fmt.Sprintf("%d/%d", s.finished, s.total)}}
	for _, o := range order {
		if n := s.counts[o]; n > 0 {
			ps = append(ps, piece{text: "  "}, piece{text: string(o), outcome: o}, piece{text: fmt.Sprintf(" %d", n)})
		}
	}
	times := fmt.Sprintf(" · %s elapsed, %d to go", clock(s.elapsed), max(0, s.total-s.finished))
	if s.budget > 0 {
		times += fmt.Sprintf(", %s of the budget left", clock(max(0, s.budget-s.elapsed)))
	}
	ps = append(ps, piece{text: times})
	room := width - 1 - widthOf(ps)
	if len(s.running) > 0 {
		// As many IDs as fit, then how many more run.
		run := " · running"
		for i, id := range s.running {
			more := ""
			if rest := len(s.running) - i - 1; rest > 0 {
				more = fmt.Sprintf(" +%d", rest)
			}
			if i > 0 && utf8.RuneCountInString(run+" "+id+more) > room {
				run += fmt.Sprintf(" +%d", len(s.running)-i)
				break
			}
			run += " " + id
		}
		ps = append(ps, piece{text: run})
	}
	return render(ps, width-1, colour)
}

func widthOf(ps []piece) int {
	n := 0
	for _, p := range ps {
		n += utf8.RuneCountInString(p.text)
	}
	return n
}

// render joins the pieces, cut at limit columns.
func render(ps []piece, limit int, colour bool) string {
	var b strings.Builder
	for _, p := range ps {
		text := p.text
		if n := utf8.RuneCountInString(text); n > limit {
			text = string([]rune(text)[:max(0, limit)])
		}
		limit -= utf8.RuneCountInString(text)
		b.WriteString(Paint(colour, p.outcome, text))
		if limit <= 0 {
			break
		}
	}
	return b.String()
}

// clock formats a duration as m:ss, or h:mm:ss past the hour.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
