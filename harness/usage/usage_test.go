package usage

import (
	"bytes"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
)

var h = Help{
	Command:  "mcpconform thing",
	Synopsis: []string{"[flags] -- CMD…   run CMD…", "  under the line before", "[flags]"},
	About:    "\nDoes a thing.\n",
	Examples: []string{"mcpconform thing -- ./x"},
}

// TestHelpOnStdout: -h and --help write the synopsis, the text, the
// examples and the flags to stdout and return flag.ErrHelp; the flag set
// itself writes nothing.
func TestHelpOnStdout(t *testing.T) {
	want := "Usage:\n" +
		"  mcpconform thing [flags] -- CMD…   run CMD…\n" +
		"                     under the line before\n" +
		"  mcpconform thing [flags]\n" +
		"\nDoes a thing.\n" +
		"\nExamples:\n  mcpconform thing -- ./x\n" +
		"\nFlags:\n  -n int\n    \thow many (default 1)\n"
	for _, arg := range []string{"-h", "--help"} {
		fs := NewFlagSet("thing")
		fs.Int("n", 1, "how many")
		var stdout bytes.Buffer
		if err := h.Parse(fs, []string{arg}, &stdout); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s: error %v, want flag.ErrHelp", arg, err)
		}
		if stdout.String() != want {
			t.Errorf("%s wrote\n%s\nwant\n%s", arg, stdout.String(), want)
		}
	}
}

// TestBadFlagNamesTheHelp: a flag the command does not take is an error
// that says where the flags are listed, and nothing is printed.
func TestBadFlagNamesTheHelp(t *testing.T) {
	fs := NewFlagSet("thing")
	var stdout bytes.Buffer
	err := h.Parse(fs, []string{"--bogus"}, &stdout)
	if err == nil || !strings.Contains(err.Error(), "-bogus") || !strings.HasSuffix(err.Error(), "mcpconform thing -h lists the flags") {
		t.Errorf("error %v", err)
	}
	if stdout.Len() > 0 {
		t.Errorf("printed %q", stdout.String())
	}
}

func TestParseInterspersed(t *testing.T) {
	fs := NewFlagSet("thing")
	o := fs.String("o", "", "out")
	rest, err := h.ParseInterspersed(fs, []string{"a", "-o", "f", "b"}, &bytes.Buffer{})
	if err != nil || *o != "f" || !slices.Equal(rest, []string{"a", "b"}) {
		t.Errorf("rest %v, -o %q, error %v", rest, *o, err)
	}
}
