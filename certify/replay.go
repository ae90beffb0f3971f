package certify

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/harness/fuzz"
	"github.com/mcpconform/mcpconform/harness/report"
)

// Replay runs the corpus cases in files against o's target (o.URL,
// o.Command, or the reference server over both transports) with
// o.Timeout and o.MaxRSS, printing a line per case and transport to
// stdout; it reports whether a case broke an invariant.
func Replay(files []string, o FuzzOptions, stdout io.Writer) (broke bool, err error) {
	cases := make([]*fuzz.Case, len(files))
	for i, name := range files {
		c, err := readCase(name)
		if err != nil {
			return false, UsageError{fmt.Errorf("replay: %v", err)}
		}
		cases[i] = c
	}
	if o.URL != "" && len(o.Command) > 0 {
		return false, UsageError{errors.New("replay: give either --url or a command after --, not both")}
	}
	targets, err := o.targets()
	if err != nil {
		return false, err
	}
	defer stopTargets(targets)
	for _, t := range targets {
		for i, c := range cases {
			tr := t.target.Transport()
			if c.Transport != "any" && c.Transport != tr {
				fmt.Fprintf(stdout, "SKIP %s over %s: the case is for %s\n", files[i], tr, c.Transport)
				continue
			}
			opt := fuzz.ExecOptions{Timeout: o.Timeout, MaxRSS: o.MaxRSS, Outputs: c.Outputs, SlowTools: c.Slow}
			if tr == "http" {
				opt.MaxRSS = 0
			}
			out, err := fuzz.Execute(t.target, c.Frames, opt)
			if err != nil {
				return false, fmt.Errorf("replay %s: %w", files[i], err)
			}
			switch v := out.Violation; {
			case v == nil:
				fmt.Fprintf(stdout, "PASS %s over %s: %s held through %d frames\n", files[i], tr, c.Invariant, len(c.Frames))
			case v.Invariant == c.Invariant:
				broke = true
				fmt.Fprintf(stdout, "FAIL %s over %s: %s broke again: %s\n", files[i], tr, c.Invariant, v)
			default:
				broke = true
				fmt.Fprintf(stdout, "FAIL %s over %s: %s broke (the case shows %s): %s\n", files[i], tr, v.Invariant, c.Invariant, v)
			}
			for _, w := range out.Warnings {
				fmt.Fprintf(stdout, "WARN %s over %s: %s (SHOULD): %s\n", files[i], tr, w.Invariant, w.Detail)
			}
		}
	}
	return broke, nil
}

// readCase reads one case file, refusing what is not a regular file or
// is past report.MaxCaseFile.
func readCase(name string) (*fuzz.Case, error) {
	f, err := report.OpenInput("case file", name, report.MaxCaseFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return fuzz.ParseCase(strings.TrimPrefix(name, "./"), f)
}
