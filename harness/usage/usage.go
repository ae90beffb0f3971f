// Package usage is the -h text of mcpconform's commands and the flag
// parsing that shows it: a synopsis, what the command does, examples, then
// the flags. -h and --help print it on standard output and the command
// exits 0; a bad flag is an error that names the command's -h, and the
// flag package itself prints nothing.
package usage

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Help is a command's -h text.
type Help struct {
	// Command is the command line's start, e.g. "mcpconform server".
	Command string
	// Synopsis has a line per way to call the command, each after Command:
	// "[flags] -- CMD…   a stdio server, a fresh process per check"; a line
	// that starts with a space continues the one before.
	Synopsis []string
	// About says what the command does; paragraphs are separated by blank
	// lines.
	About string
	// Examples are command lines, shown as they are to copy.
	Examples []string
	// Hidden names flags the command accepts but does not list: flags of
	// a shared set that do nothing here and answer with why.
	Hidden []string
}

// NewFlagSet returns a flag set that prints nothing of its own: Parse
// shows the help and builds the errors.
func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// Write writes the help and fs's flags (nil: none) to w.
func (h Help) Write(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	b.WriteString("Usage:\n")
	for _, s := range h.Synopsis {
		start := h.Command + " "
		if strings.HasPrefix(s, " ") {
			// The rest of the line before: under it, not a new call.
			start = strings.Repeat(" ", len(start))
		}
		b.WriteString("  " + strings.TrimRight(start+s, " ") + "\n")
	}
	if h.About != "" {
		b.WriteString("\n" + strings.TrimSpace(h.About) + "\n")
	}
	if len(h.Examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range h.Examples {
			b.WriteString("  " + e + "\n")
		}
	}
	if fs != nil && hasFlags(fs) {
		shown := fs
		if len(h.Hidden) > 0 {
			shown = flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
			fs.VisitAll(func(f *flag.Flag) {
				if !slices.Contains(h.Hidden, f.Name) {
					shown.Var(f.Value, f.Name, f.Usage)
				}
			})
		}
		b.WriteString("\nFlags:\n")
		shown.SetOutput(&b)
		shown.PrintDefaults()
		shown.SetOutput(io.Discard)
	}
	_, _ = io.WriteString(w, b.String())
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// Parse parses args with fs (from NewFlagSet). On -h or --help it writes
// the help to stdout and returns flag.ErrHelp, which the command turns into
// exit status 0; a bad flag's error says where the flags are listed.
func (h Help) Parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		h.Write(stdout, fs)
		return err
	case err != nil:
		return fmt.Errorf("%w; %s -h lists the flags", err, h.Command)
	}
	return nil
}

// Exit is what a command does with Parse's error: after the help (ErrHelp)
// it is done with status 0, after a bad flag (printed to stderr, after
// prefix when not empty) with status 2; on nil it is not done.
func Exit(err error, stderr io.Writer, prefix string) (code int, done bool) {
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	case prefix != "":
		fmt.Fprintln(stderr, prefix+":", err)
	default:
		fmt.Fprintln(stderr, err)
	}
	return 2, true
}

// ParseInterspersed is Parse for a command whose flags may come before or
// after its positional arguments; it returns the positional arguments.
func (h Help) ParseInterspersed(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	var rest []string
	for {
		if err := h.Parse(fs, args, stdout); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
