package stdio

import (
	"reflect"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/suites/run"
)

var testLimits = run.Limits{StdoutTextLines: 20, StdoutTextBytes: 4096}

func TestExpectStdio(t *testing.T) {
	text := "log: hello"
	for _, tc := range []struct {
		name string
		s    stdiofake.Script
		want stdioOutcome
	}{
		{"clean", stdiofake.Script{Calls: []stdiofake.ScriptCall{{Reply: true}, {Reply: true}}}, stdioOutcome{Handshake: true, OK: 2}},
		{"banner over the line budget", stdiofake.Script{Banner: repeat(text, 21), Calls: []stdiofake.ScriptCall{{Reply: true}}}, stdioOutcome{Rule: "NG-03"}},
		{"exactly the line budget", stdiofake.Script{Banner: repeat(text, 10), Calls: []stdiofake.ScriptCall{{Before: repeat(text, 10), Reply: true}}}, stdioOutcome{Handshake: true, OK: 1}},
		{"one line past it, after a reply", stdiofake.Script{Calls: []stdiofake.ScriptCall{{Before: repeat(text, 20), Reply: true, After: []string{text}}, {Reply: true}}}, stdioOutcome{Handshake: true, OK: 1, Rule: "NG-03"}},
		{"exactly the byte budget", stdiofake.Script{Calls: []stdiofake.ScriptCall{{Before: []string{fixedText(4096)}, Reply: true}}}, stdioOutcome{Handshake: true, OK: 1}},
		{"one byte past it", stdiofake.Script{Calls: []stdiofake.ScriptCall{{Before: []string{fixedText(4097)}, Reply: true}}}, stdioOutcome{Handshake: true, Rule: "NG-03"}},
		{"damaged", stdiofake.Script{Calls: []stdiofake.ScriptCall{{Reply: true}, {Before: []string{text, `{"id":1,"res`}}}}, stdioOutcome{Handshake: true, OK: 1, Rule: "NG-02"}},
		{"non-object", stdiofake.Script{Calls: []stdiofake.ScriptCall{{Before: []string{"42"}}}}, stdioOutcome{Handshake: true, Rule: "NG-02"}},
		{"stderr never ends it", stdiofake.Script{Calls: []stdiofake.ScriptCall{{Stderr: 1 << 20, Reply: true}}}, stdioOutcome{Handshake: true, OK: 1}},
		{"a budget of 0", stdiofake.Script{Calls: []stdiofake.ScriptCall{{Before: []string{text}, Reply: true}}}, stdioOutcome{Handshake: true, Rule: "NG-03"}},
		{"a long banner line", stdiofake.Script{LongBanner: 4097, Calls: []stdiofake.ScriptCall{{Reply: true}}}, stdioOutcome{Rule: "NG-03"}},
		{"a long banner line within the budget", stdiofake.Script{LongBanner: 4000, Banner: []string{fixedText(96)}, Calls: []stdiofake.ScriptCall{{Reply: true}}}, stdioOutcome{Handshake: true, OK: 1}},
	} {
		l := testLimits
		if tc.name == "a budget of 0" {
			l.StdoutTextLines = 0
		}
		if got := expectStdio(tc.s, l); got != tc.want {
			t.Errorf("%s: expectStdio = %+v; want %+v", tc.name, got, tc.want)
		}
	}
}

// fixedText is a text line of n bytes, newline included, from seed 1.
func fixedText(n int) string { return newFuzzGen(1).textOfSize(n) }

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestStdioCasesDeterministicAndFocused: a seed always builds the same
// case, consecutive seeds cover every focus, and each focus builds what it
// names for the reference's budgets.
func TestStdioCasesDeterministicAndFocused(t *testing.T) {
	seen := map[string]bool{}
	for seed := int64(1); seed <= 200; seed++ {
		fc := genStdioCase(seed, testLimits)
		if again := genStdioCase(seed, testLimits); !reflect.DeepEqual(fc, again) {
			t.Fatalf("seed %d built two different cases", seed)
		}
		seen[fc.Focus] = true
		lines, bytes := textSpent(fc.Script)
		switch fc.Focus {
		case focusLinesExact, focusBytesExact, focusBanner, focusStderrFlood:
			if fc.Want.Rule != "" || fc.Want.OK != len(fc.Script.Calls) {
				t.Errorf("seed %d (%s): want every call to succeed, got %+v", seed, fc.Focus, fc.Want)
			}
		case focusLinesOver, focusBytesOver:
			if fc.Want.Rule != "NG-03" {
				t.Errorf("seed %d (%s): want NG-03 to end the session, got %+v", seed, fc.Focus, fc.Want)
			}
		case focusDamaged, focusNonObject:
			if fc.Want.Rule != "NG-02" {
				t.Errorf("seed %d (%s): want NG-02 to end the session, got %+v", seed, fc.Focus, fc.Want)
			}
		case focusLongBanner:
			if fc.Script.LongBanner <= testLimits.StdoutTextBytes || fc.Want != (stdioOutcome{Rule: "NG-03"}) {
				t.Errorf("seed %d (%s): a %d-byte banner; want it to fail the handshake by NG-03, got %+v", seed, fc.Focus, fc.Script.LongBanner, fc.Want)
			}
		}
		if fc.Focus == focusLinesExact && lines != testLimits.StdoutTextLines || fc.Focus == focusBytesExact && bytes != testLimits.StdoutTextBytes {
			t.Errorf("seed %d (%s): %d lines, %d bytes of text", seed, fc.Focus, lines, bytes)
		}
	}
	for _, f := range stdioFocuses {
		if !seen[f] {
			t.Errorf("no case of focus %s in 200 seeds", f)
		}
	}
	for seed := int64(1); seed <= int64(len(stdioFocuses)); seed++ {
		delete(seen, genStdioCase(seed, testLimits).Focus)
	}
	if len(seen) > 0 {
		t.Errorf("seeds 1…%d miss focuses %v", len(stdioFocuses), seen)
	}
}

func textSpent(s stdiofake.Script) (lines, bytes int64) {
	add := func(out []string) {
		for _, l := range out {
			lines, bytes = lines+1, bytes+int64(len(l))+1
		}
	}
	add(s.Banner)
	for _, c := range s.Calls {
		add(c.Before)
		add(c.After)
	}
	return lines, bytes
}
