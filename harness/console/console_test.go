package console

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/harness/check"
)

// fakeTerminal records what a console writes, from any goroutine.
type fakeTerminal struct {
	mu  sync.Mutex
	out bytes.Buffer
}

func (t *fakeTerminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.Write(p)
}

// screen is what a terminal shows after the output so far: a carriage
// return goes back to the line's start, ESC[2K erases the line, and
// colours show nothing.
func (t *fakeTerminal) screen() []string {
	t.mu.Lock()
	out := t.out.String()
	t.mu.Unlock()
	lines := [][]rune{{}}
	col := 0
	for i := 0; i < len(out); {
		last := len(lines) - 1
		switch {
		case strings.HasPrefix(out[i:], "\x1b["):
			j := i + 2
			for j < len(out) && (out[j] < '@' || out[j] > '~') {
				j++
			}
			if out[i+2:j+1] == "2K" {
				lines[last] = lines[last][:0]
			}
			i = j + 1
		case out[i] == '\r':
			col = 0
			i++
		case out[i] == '\n':
			lines = append(lines, []rune{})
			col = 0
			i++
		default:
			r, n := utf8.DecodeRuneInString(out[i:])
			if col < len(lines[last]) {
				lines[last][col] = r
			} else {
				lines[last] = append(lines[last], r)
			}
			col++
			i += n
		}
	}
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = string(l)
	}
	return s
}

// TestLiveLine runs a console on a fake terminal under a fake clock: the
// live line counts the outcomes, names the checks running, and moves the
// elapsed time and the budget left on its own; a failure keeps a line of
// its own above it, a pass does not; Close erases the live line.
func TestLiveLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		term := &fakeTerminal{}
		c := New(term, Options{Live: true, Width: func() int { return 200 }, Total: 3, Budget: time.Minute})
		c.Started("server.ping.after-initialize")
		c.Started("server.tools.list")
		time.Sleep(3 * time.Second)
		synctest.Wait()
		want := []string{"0/3 · 0:03 elapsed, 3 to go, 0:57 of the budget left · running server.ping.after-initialize server.tools.list"}
		if got := term.screen(); !equal(got, want) {
			t.Errorf("after 3s the screen shows\n%q\nwant\n%q", got, want)
		}
		c.Finished("server.ping.after-initialize", check.Pass, 2*time.Second)
		c.Finished("server.tools.list", check.Fail, 3*time.Second)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		want = []string{
			"FAIL           server.tools.list  3.00s",
			"2/3  FAIL 1  PASS 1 · 0:05 elapsed, 1 to go, 0:55 of the budget left",
		}
		if got := term.screen(); !equal(got, want) {
			t.Errorf("after two checks the screen shows\n%q\nwant\n%q", got, want)
		}
		c.Close()
		if got := term.screen(); !equal(got, []string{want[0], ""}) {
			t.Errorf("after Close the screen shows %q, want the failure and an empty line", got)
		}
	})
}

// TestLiveLineFitsTheTerminal: however many checks run, the line stays
// within the terminal's width less one column, naming as many as fit and
// counting the others.
func TestLiveLineFitsTheTerminal(t *testing.T) {
	s := status{finished: 4, total: 121, counts: map[check.Outcome]int{check.Pass: 3, check.Warn: 1}, elapsed: 75 * time.Second,
		running: []string{"http.server.get.no-responses", "server.reverse.sampling-only-when-declared", "stdio.client.banner.ignored", "server.ping.after-initialize"}}
	for _, width := range []int{20, 80, 140} {
		got := s.line(width, false)
		if n := utf8.RuneCountInString(got); n > width-1 {
			t.Errorf("width %d: %d columns: %q", width, n, got)
		}
		if width == 140 && !strings.HasSuffix(got, "running http.server.get.no-responses server.reverse.sampling-only-when-declared +2") {
			t.Errorf("width %d: %q does not name the first two checks and count the other two", width, got)
		}
	}
	if got := s.line(80, true); !strings.Contains(got, "\x1b[32mPASS\x1b[0m 3") || !strings.Contains(got, "\x1b[33mWARN\x1b[0m 1") {
		t.Errorf("colour on: %q does not paint the outcomes", got)
	}
}

// TestPlainLines: off a terminal, each finished check is one line of its
// own, without an escape code, and nothing else is written.
func TestPlainLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		c := New(&out, Options{Total: 2})
		c.Started("stdio.client.banner.ignored")
		time.Sleep(5 * time.Second)
		c.Finished("stdio.client.banner.ignored", check.Pass, 210*time.Millisecond)
		c.Finished("server.discover.result", check.NotApplicable, 0)
		c.Close()
		want := "PASS           stdio.client.banner.ignored  0.21s\nN/A            server.discover.result  0.00s\n"
		if out.String() != want {
			t.Errorf("got %q, want %q", out.String(), want)
		}
	})
}

func TestColourModes(t *testing.T) {
	env := func(noColor, term string) func(string) string {
		return func(k string) string { return map[string]string{"NO_COLOR": noColor, "TERM": term}[k] }
	}
	for _, tc := range []struct {
		mode          Mode
		terminal      bool
		noColor, term string
		want          bool
		what          string
	}{
		{Auto, true, "", "xterm", true, "auto on a terminal"},
		{Auto, false, "", "xterm", false, "auto on a file"},
		{Auto, true, "1", "xterm", false, "auto with NO_COLOR"},
		{Auto, true, "", "dumb", false, "auto with TERM=dumb"},
		{Always, false, "1", "dumb", true, "always, whatever the environment"},
		{Never, true, "", "xterm", false, "never"},
	} {
		if got := tc.mode.Colour(tc.terminal, env(tc.noColor, tc.term)); got != tc.want {
			t.Errorf("%s: colour %v, want %v", tc.what, got, tc.want)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil || !strings.Contains(err.Error(), "auto") {
		t.Errorf("ParseMode(sometimes): %v", err)
	}
}

func equal(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }
