package stdio

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

func TestLineReaderBoundsLines(t *testing.T) {
	long := strings.Repeat("y", readBufferSize+10)
	tests := []struct {
		name    string
		in      string
		max     int
		lines   []string
		newline []bool
		wantErr error
	}{
		{"lines", "a\nbb\n\n", 10, []string{"a", "bb", ""}, []bool{true, true, true}, io.EOF},
		{"last line without newline", "a\nbb", 10, []string{"a", "bb"}, []bool{true, false}, io.EOF},
		{"exactly max", "12345\n", 5, []string{"12345"}, []bool{true}, io.EOF},
		{"one past max", "123456\n", 5, nil, nil, errLineTooLong},
		{"past max without newline", "123456", 5, nil, nil, errLineTooLong},
		{"spanning buffer fills", long + "\nz\n", len(long), []string{long, "z"}, []bool{true, true}, io.EOF},
		{"spanning buffer fills, one past", long + "\n", len(long) - 1, nil, nil, errLineTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := newLineReader(strings.NewReader(tt.in), tt.max)
			for i, want := range tt.lines {
				line, nl, err := lr.next()
				if err != nil || string(line) != want || nl != tt.newline[i] {
					t.Fatalf("line %d = %.20q (newline %v), %v; want %.20q (newline %v)", i, line, nl, err, want, tt.newline[i])
				}
			}
			if _, _, err := lr.next(); !errors.Is(err, tt.wantErr) {
				t.Fatalf("after the lines: %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestClassifyMutantsEachDropOneCriterion: each classifier mutant skips only
// lines that its own criterion alone makes possibly damaged (NG-01, NG-02),
// or ends the session on text of its one shape only.
func TestClassifyMutantsEachDropOneCriterion(t *testing.T) {
	lines := map[string]string{
		"brace":         `{not json`,
		"brace+mention": `{"jsonrpc":"2.0","id":1,"result":{`,
		"batch":         `[{"a":`,
		"mention":       `log: the jsonrpc layer failed`,
		"non-object":    `42`,
		"text":          `hello`,
		"[INFO] text":   `[INFO] ready`,
		"timestamp":     `2026-12-03T13:01:41Z ready`,
		"ANSI colour":   "\x1b[32mINFO\x1b[0m ready",
	}
	text := []string{"text", "[INFO] text", "timestamp", "ANSI colour"}
	without := func(name string) []string {
		var out []string
		for _, l := range text {
			if l != name {
				out = append(out, l)
			}
		}
		return out
	}
	skips := map[mutant.Name][]string{
		"":                        text,
		mutant.SkipDamagedBrace:   slices.Concat(text, []string{"brace"}),
		mutant.SkipDamagedBatch:   slices.Concat(text, []string{"batch"}),
		mutant.SkipJSONRPCMention: slices.Concat(text, []string{"mention"}),
		mutant.SkipNonObject:      slices.Concat(text, []string{"non-object"}),
		mutant.BracketTextAsBatch: without("[INFO] text"),
		mutant.DigitTextAsJSON:    without("timestamp"),
		mutant.EscapeTextFatal:    without("ANSI colour"),
	}
	for m, skipped := range skips {
		for name, line := range lines {
			got := classify([]byte(line), m) == jsonrpc.ClassText
			want := false
			for _, s := range skipped {
				want = want || s == name
			}
			if got != want {
				t.Errorf("mutant %q, line %s: skipped = %v, want %v", m, name, got, want)
			}
		}
	}
}

// TestTextBudgets: NG-03, exactly the budget passes and one more line or
// byte fails; 0 skips nothing; and the budget mutants each break that.
func TestTextBudgets(t *testing.T) {
	type run struct {
		lines, size int // skip lines of size bytes, newline included
	}
	tests := []struct {
		name             string
		m                mutant.Name
		maxLines         int
		maxBytes         int64
		run              run
		wantFailAt       int // 1-based line that fails; 0: none
		wantFailMentions string
	}{
		{"lines exactly", "", 3, 1000, run{3, 10}, 0, ""},
		{"lines one past", "", 3, 1000, run{4, 10}, 4, "budget of 3 lines"},
		{"bytes exactly", "", 100, 30, run{3, 10}, 0, ""},
		{"bytes one past", "", 100, 29, run{3, 10}, 3, "budget of 29 bytes"},
		{"zero lines", "", 0, 1000, run{1, 10}, 1, "budget of 0 lines"},
		{"zero bytes", "", 100, 0, run{1, 10}, 1, "budget of 0 bytes"},
		{"NoLineBudget", mutant.NoLineBudget, 3, 1000, run{4, 10}, 0, ""},
		{"LineBudgetOffByOne", mutant.LineBudgetOffByOne, 3, 1000, run{3, 10}, 3, ""},
		{"NoByteBudget", mutant.NoByteBudget, 100, 29, run{3, 10}, 0, ""},
		{"ByteBudgetOffByOne", mutant.ByteBudgetOffByOne, 100, 30, run{3, 10}, 3, ""},
		{"ZeroBudgetMeansDefault lines", mutant.ZeroBudgetMeansDefault, 0, 1000, run{1, 10}, 0, ""},
		{"ZeroBudgetMeansDefault bytes", mutant.ZeroBudgetMeansDefault, 100, 0, run{1, 10}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{MaxStdoutTextLines: tt.maxLines, MaxStdoutTextBytes: tt.maxBytes, Mutant: tt.m}
			b := newTextBudget(cfg, io.Discard)
			line := []byte(strings.Repeat("t", tt.run.size-1))
			failedAt := 0
			for i := 1; i <= tt.run.lines && failedAt == 0; i++ {
				if f := b.skip(line, int64(tt.run.size)); f != nil {
					failedAt = i
					if !errors.Is(f, failure.ErrProtocol) || !strings.Contains(f.Error(), tt.wantFailMentions) {
						t.Errorf("failure %q: want a protocol failure mentioning %q", f, tt.wantFailMentions)
					}
				}
			}
			if failedAt != tt.wantFailAt {
				t.Fatalf("failed at line %d, want %d", failedAt, tt.wantFailAt)
			}
		})
	}
}

// TestReportOnceWithoutContent: NG-04, one report line for the first
// skipped line, a length and no bytes; the report mutants break it.
func TestReportOnceWithoutContent(t *testing.T) {
	const secret = "SECRET-BANNER"
	for _, tt := range []struct {
		m         mutant.Name
		wantLines int
		wantQuote bool
	}{
		{"", 1, false},
		{mutant.ReportEverySkippedLine, 3, false},
		{mutant.QuoteSkippedLine, 1, true},
	} {
		var report strings.Builder
		b := newTextBudget(Config{MaxStdoutTextLines: 10, MaxStdoutTextBytes: 1000, Mutant: tt.m}, &report)
		for range 3 {
			if f := b.skip([]byte(secret), int64(len(secret)+1)); f != nil {
				t.Fatal(f)
			}
		}
		got := report.String()
		if n := strings.Count(got, "\n"); n != tt.wantLines {
			t.Errorf("mutant %q: %d report lines, want %d:\n%s", tt.m, n, tt.wantLines, got)
		}
		if strings.Contains(got, secret) != tt.wantQuote {
			t.Errorf("mutant %q: report %q quotes the line: %v, want %v", tt.m, got, !tt.wantQuote, tt.wantQuote)
		}
		if tt.m == "" && got != "mcpconform: server wrote non-JSON text to stdout (line of 13 bytes); skipping up to 10 lines / 1000 bytes; contents not shown\n" {
			t.Errorf("report = %q", got)
		}
	}
}

// TestDamagedLinesFailWithClassAndLengthOnly: NG-02, the failure names the
// class and the length, never the content.
func TestDamagedLinesFailWithClassAndLengthOnly(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"SECRET"`,
		`{SECRET`,
		`[{"SECRET":`,
		`[ SECRET`[:1],
		`SECRET says jsonrpc`,
		`42`, `"SECRET"`, `null`, `true`, `[]`, `[1]`,
	} {
		h := &lineHandler{budget: newTextBudget(DefaultConfig(), io.Discard)}
		msgs, f := h.handle([]byte(line), true)
		if f == nil || !errors.Is(f, failure.ErrProtocol) {
			t.Errorf("line %q: messages %v, failure %v; want a protocol failure", line, msgs, f)
			continue
		}
		class := jsonrpc.ClassifyLine([]byte(line)).String()
		if !strings.Contains(f.Error(), class) || !strings.Contains(f.Error(), "line of ") {
			t.Errorf("line %q: failure %q does not give the class %q and the length", line, f, class)
		}
		if strings.Contains(f.Error(), "SECRET") {
			t.Errorf("line %q: failure %q quotes the line", line, f)
		}
	}
}

// TestSkippingKeepsMessagesInOrder: NG-12; mutant DropAfterText loses the
// message after a skipped line, TextFatalBeforeInit fails on a banner.
func TestSkippingKeepsMessagesInOrder(t *testing.T) {
	lines := []string{
		"banner",
		`{"jsonrpc":"2.0","method":"m1"}`,
		"log line",
		`[{"jsonrpc":"2.0","method":"m2"},{"jsonrpc":"2.0","id":"2","result":{}}]`,
		"",
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
	}
	for _, tt := range []struct {
		m    mutant.Name
		want string // methods or ids delivered, in order
		fail bool
	}{
		{"", `m1 m2 "2" 2`, false},
		{mutant.DropAfterText, `"2"`, false},
		{mutant.TextFatalBeforeInit, ``, true},
	} {
		h := &lineHandler{budget: newTextBudget(DefaultConfig(), io.Discard), mutant: tt.m}
		var got []string
		failed := false
		for _, l := range lines {
			msgs, f := h.handle([]byte(l), true)
			if f != nil {
				failed = true
				break
			}
			for _, m := range msgs {
				if m.Method != "" {
					got = append(got, m.Method)
				} else {
					got = append(got, m.ID.String())
				}
			}
		}
		if strings.Join(got, " ") != tt.want || failed != tt.fail {
			t.Errorf("mutant %q: delivered %q, failed %v; want %q, failed %v", tt.m, got, failed, tt.want, tt.fail)
		}
	}
}

// TestInvalidJSONRPCObjectIsAProtocolFailure: a line that is a JSON object
// but not a JSON-RPC message ends the session.
func TestInvalidJSONRPCObjectIsAProtocolFailure(t *testing.T) {
	h := &lineHandler{budget: newTextBudget(DefaultConfig(), io.Discard)}
	for _, line := range []string{`{"id":1,"result":{}}`, `[{"jsonrpc":"2.0","method":"a"},{"x":1}]`} {
		if _, f := h.handle([]byte(line), true); f == nil || !errors.Is(f, failure.ErrProtocol) {
			t.Errorf("line %s: failure %v, want protocol", line, f)
		}
	}
}

// TestDamagedFailsLateMutantStopsDeliveringWithoutFailing: the mutant
// neither fails nor delivers after a damaged line.
func TestDamagedFailsLateMutantStopsDeliveringWithoutFailing(t *testing.T) {
	h := &lineHandler{budget: newTextBudget(DefaultConfig(), io.Discard), mutant: mutant.DamagedFailsLate}
	for _, l := range []string{`{broken`, `{"jsonrpc":"2.0","method":"after"}`} {
		if msgs, f := h.handle([]byte(l), true); f != nil || len(msgs) != 0 {
			t.Fatalf("line %s: messages %v, failure %v; want neither", l, msgs, f)
		}
	}
}
