package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/harness/fuzz"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/usage"
)

var replayHelp = usage.Help{
	Command: "mcpconform replay",
	Synopsis: []string{
		"[flags] FILE… -- CMD…   replay against the stdio server CMD…",
		"[flags] FILE… --url U   replay against the streamable HTTP server at U",
		"[flags] FILE…           replay against the built-in reference server, both transports",
	},
	About: `
Runs corpus cases (see corpus/README.md) against a server: each case's
frames in order, a probe ping after each, the fuzzer's invariants after
every frame. A case marked for one transport is skipped on the other. Flags
may come before or after the files.

Exit status: 0 every invariant held; 1 one broke; 2 usage or harness error.`,
	Examples: []string{
		"mcpconform replay corpus/*.case",
		"mcpconform replay corpus/edge-ids.case --timeout 10s -- ./my-server --stdio",
	},
}

func replayCommand(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("replay")
	timeout := fs.Duration("timeout", fuzz.DefaultTimeout, "how long a request's answer may take")
	rss := fs.String("max-rss", "256MiB", "the most resident memory the server's process group may hold (stdio); 0 turns the check off")
	url := fs.String("url", "", "replay against the streamable HTTP server at `URL`")
	var secrets secretList
	fs.Var(&secrets, "secret", secretFlagUsage)
	rest, command := splitCommand(args)
	// Flags may follow the files.
	files, err := replayHelp.ParseInterspersed(fs, rest, stdout)
	if err != nil {
		return exitFor(err, stderr)
	}
	maxRSS, err := parseBytes(*rss)
	if err != nil {
		return exitFor(errUsage{fmt.Errorf("replay: --max-rss %q: %v", *rss, err)}, stderr)
	}
	mask := runSecrets(secrets, *url)
	stdout, stderr = masked(stdout, mask), masked(stderr, mask)
	if len(files) == 0 {
		return exitFor(errUsage{errors.New("replay: name at least one case file, e.g. mcpconform replay corpus/*.case")}, stderr)
	}
	cases := make([]*fuzz.Case, len(files))
	for i, name := range files {
		c, err := readCase(name)
		if err != nil {
			return exitFor(errUsage{fmt.Errorf("replay: %v", err)}, stderr)
		}
		cases[i] = c
	}
	o := &fuzzOptions{url: *url, command: command, mask: mask}
	if o.url != "" && len(command) > 0 {
		return exitFor(errUsage{errors.New("replay: give either --url or a command after --, not both")}, stderr)
	}
	targets, err := o.targets()
	if err != nil {
		return exitFor(err, stderr)
	}
	defer stopTargets(targets)
	broke := false
	for _, t := range targets {
		for i, c := range cases {
			tr := t.target.Transport()
			if c.Transport != "any" && c.Transport != tr {
				fmt.Fprintf(stdout, "SKIP %s over %s: the case is for %s\n", files[i], tr, c.Transport)
				continue
			}
			opt := fuzz.ExecOptions{Timeout: *timeout, MaxRSS: maxRSS, Outputs: c.Outputs}
			if tr == "http" {
				opt.MaxRSS = 0
			}
			out, err := fuzz.Execute(t.target, c.Frames, opt)
			if err != nil {
				return exitFor(fmt.Errorf("replay %s: %w", files[i], err), stderr)
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
	if broke {
		return 1
	}
	return 0
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
