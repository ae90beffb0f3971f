package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/usage"
)

var baselineHelp = usage.Help{
	Command:  "mcpconform baseline",
	Synopsis: []string{"REPORT.json [OLD_BASELINE] > expected-failures.yaml"},
	About: `
Writes an expected-failures baseline (YAML, to standard output) from a JSON
report of mcpconform client, server or the default run: one entry for every
check that FAILed or WARNed (or was XFAIL against the run's own baseline),
under its role. HARDENED outcomes stay out: they fail nothing under
--profile spec, and under --profile hardened such a miss is a FAIL. A new
entry's reason is a TODO with the check's outcome, level, rules and observed
line: replace it with the evidence. With OLD_BASELINE, an entry it already
had keeps its reason, its fuzz: entries are kept, and the entries for checks
that no longer miss are named in a closing comment. A run given the output
as --expected-failures gives XFAIL for every entry.`,
	Examples: []string{
		"mcpconform server --json r.json -- ./my-server; mcpconform baseline r.json > expected-failures.yaml",
		"mcpconform baseline r.json expected-failures.yaml > new.yaml && diff expected-failures.yaml new.yaml",
	},
}

func baselineCommand(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("baseline")
	rest, err := baselineHelp.ParseInterspersed(fs, args, stdout)
	if err != nil {
		return exitFor(err, stderr)
	}
	if len(rest) < 1 || len(rest) > 2 {
		return exitFor(errUsage{errors.New("baseline: name one JSON report and at most one old baseline, e.g. mcpconform baseline r.json [expected-failures.yaml] > new.yaml")}, stderr)
	}
	ix, err := readReport("baseline", rest[0])
	if err != nil {
		return exitFor(err, stderr)
	}
	var old *report.Baseline
	if len(rest) == 2 {
		if old, err = report.LoadBaseline(rest[1]); err != nil {
			return exitFor(errUsage{fmt.Errorf("baseline: %w", err)}, stderr)
		}
	}
	out, err := report.Skeleton(ix, old)
	if err != nil {
		return exitFor(err, stderr)
	}
	if _, err := stdout.Write(out); err != nil {
		return exitFor(err, stderr)
	}
	return 0
}
