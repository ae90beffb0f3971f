package stdio

import (
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// textBudget counts skipped stdout text against the session's two budgets
// (NG-03) and reports the first skipped line without quoting it (NG-04).
type textBudget struct {
	maxLines int
	maxBytes int64
	lines    int   // lines skipped so far
	bytes    int64 // bytes skipped so far, newlines included
	report   io.Writer
	mutant   mutant.Name
}

func newTextBudget(cfg Config, report io.Writer) *textBudget {
	b := &textBudget{maxLines: cfg.MaxStdoutTextLines, maxBytes: cfg.MaxStdoutTextBytes, report: report, mutant: cfg.Mutant}
	if cfg.Mutant == mutant.ZeroBudgetMeansDefault {
		if b.maxLines == 0 {
			b.maxLines = DefaultMaxStdoutTextLines
		}
		if b.maxBytes == 0 {
			b.maxBytes = DefaultMaxStdoutTextBytes
		}
	}
	return b
}

// skip counts a text line whose size is its length plus its newline. It
// returns a protocol failure when the line does not fit in what is left of
// either budget: exactly the budget passes, one line or byte more fails.
func (b *textBudget) skip(line []byte, size int64) *failure.Error {
	if b.pastLines(b.lines + 1) {
		return failure.New(failure.ErrProtocol, opReadStdout, fmt.Sprintf(
			"server wrote more non-JSON text to stdout than the budget of %d lines (line %d, of %d bytes); a server writes only JSON-RPC messages to stdout (ST-03)",
			b.maxLines, b.lines+1, len(line)))
	}
	if b.pastBytes(b.bytes + size) {
		return failure.New(failure.ErrProtocol, opReadStdout, fmt.Sprintf(
			"server wrote more non-JSON text to stdout than the budget of %d bytes (%d skipped, then a line of %d bytes); a server writes only JSON-RPC messages to stdout (ST-03)",
			b.maxBytes, b.bytes, len(line)))
	}
	b.lines++
	b.bytes += size
	if b.lines == 1 || b.mutant == mutant.ReportEverySkippedLine {
		b.reportSkipped(line)
	}
	return nil
}

// pastLines reports whether skipping a total of n lines breaks the budget.
func (b *textBudget) pastLines(n int) bool {
	switch b.mutant {
	case mutant.NoLineBudget:
		return false
	case mutant.LineBudgetOffByOne:
		return n >= b.maxLines
	}
	return n > b.maxLines
}

// pastBytes reports whether skipping a total of n bytes breaks the budget.
func (b *textBudget) pastBytes(n int64) bool {
	switch b.mutant {
	case mutant.NoByteBudget:
		return false
	case mutant.ByteBudgetOffByOne:
		return n >= b.maxBytes
	}
	return n > b.maxBytes
}

// reportSkipped writes the one report line to the host's stderr: a length
// and the budgets, never the line's bytes.
func (b *textBudget) reportSkipped(line []byte) {
	if b.mutant == mutant.QuoteSkippedLine {
		fmt.Fprintf(b.report, "mcpconform: server wrote non-JSON text to stdout: %q; skipping up to %d lines / %d bytes\n",
			line, b.maxLines, b.maxBytes)
		return
	}
	fmt.Fprintf(b.report, "mcpconform: server wrote non-JSON text to stdout (line of %d bytes); skipping up to %d lines / %d bytes; contents not shown\n",
		len(line), b.maxLines, b.maxBytes)
}
