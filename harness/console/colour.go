package console

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/mcpconform/mcpconform/harness/check"
)

// Mode is the --color setting.
type Mode string

// Modes of --color.
const (
	// Auto colours a terminal unless NO_COLOR is set (https://no-color.org)
	// or TERM is dumb.
	Auto   Mode = "auto"
	Always Mode = "always"
	Never  Mode = "never"
)

// ParseMode validates a --color value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Auto, Always, Never:
		return m, nil
	}
	return "", fmt.Errorf("--color %q: use auto (colour on a terminal unless NO_COLOR is set), always or never", s)
}

// Colour reports whether output to a terminal (or not) is coloured in
// this mode, with getenv reading the environment.
func (m Mode) Colour(terminal bool, getenv func(string) string) bool {
	switch m {
	case Always:
		return true
	case Never:
		return false
	}
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// Terminal reports whether w is a terminal that can redraw a line (not
// TERM=dumb), and returns a function giving its width in columns.
func Terminal(w io.Writer, getenv func(string) string) (width func() int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) || getenv("TERM") == "dumb" {
		return nil, false
	}
	return func() int {
		w, _, err := term.GetSize(int(f.Fd()))
		if err != nil {
			return 0
		}
		return w
	}, true
}

// SGR codes of the outcomes: failures red, warnings yellow, passes green,
// the ones that judged nothing grey.
var sgr = map[check.Outcome]string{
	check.Pass:          "32",
	check.Fail:          "1;31",
	check.Error:         "1;31",
	check.Stale:         "31",
	check.Warn:          "33",
	check.HardenedMiss:  "33",
	check.ExpectedFail:  "36",
	check.Info:          "36",
	check.Unimplemented: "90",
	check.NotApplicable: "90",
	check.Skipped:       "90",
}

// Paint returns text in the colour of outcome o when on, else as it is.
func Paint(on bool, o check.Outcome, text string) string {
	code, ok := sgr[o]
	if !on || !ok {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}
