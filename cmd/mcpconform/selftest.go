package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/usage"
	"github.com/mcpconform/mcpconform/selftest"
)

// selftestCommand parses mcpconform selftest's flags, runs the self-test
// (package selftest), writes its JSON, prints the kill matrix or the
// stability tally and returns the exit status.
func selftestCommand(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("selftest")
	jsonPath := fs.String("json", "", "write the kill matrix as JSON to `FILE`")
	matrix := fs.Bool("matrix", false, "run every mutant against every check (slow), proving nothing else changes")
	parallel := fs.Int("parallel", 8, "mutant runs at once")
	seed := fs.Int64("seed", 1, "seed of the property checks")
	verbose := fs.Bool("v", false, "print each run's command")
	withFuzz := fs.Bool("fuzz", true, "also run the fuzzer's kill matrix: each planted bug found, the reference holding")
	only := fs.String("mutants", "", "run only the mutants and variants whose name matches `GLOB` (auth-*), and the references on the checks that name them")
	repeat := fs.Int("repeat", 0, "instead of the kill matrix, certify the reference server and a slow-starting variant of it N times under CPU load, failing when a check's outcome differs between runs or any is FAIL, WARN or ERROR")
	if err := selftestHelp.Parse(fs, args, stdout); err != nil {
		return exitFor(err, stderr)
	}
	if fs.NArg() > 0 || *parallel < 1 || *repeat < 0 || *repeat == 1 {
		return exitFor(fmt.Errorf("selftest: unexpected argument %q, --parallel below 1 or --repeat below 2; usage: mcpconform selftest [--json F] [--matrix] [--fuzz=false] [--repeat N]", strings.Join(fs.Args(), " ")), stderr)
	}
	if *repeat > 0 {
		results, err := selftest.Repeat(*repeat, *seed, stdout)
		if err == nil {
			err = writeJSON(*jsonPath, map[string]any{"repeat": *repeat, "targets": results})
		}
		if err != nil {
			return exitFor(err, stderr)
		}
		return printStability(stdout, *repeat, results)
	}
	km, err := selftest.Run(context.Background(), selftest.Options{Matrix: *matrix, Parallel: *parallel, Seed: *seed, Fuzz: *withFuzz,
		Mutants: *only, Progress: stdout, Verbose: *verbose, Log: stderr})
	if err == nil {
		err = writeJSON(*jsonPath, km)
	}
	if err != nil {
		return exitFor(err, stderr)
	}
	return printKillMatrix(stdout, km)
}

// writeJSON writes v indented to path; nothing when path is "".
func writeJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return report.WriteFile(path, append(b, '\n'))
}
