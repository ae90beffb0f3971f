package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/usage"
)

var badgeHelp = usage.Help{
	Command:  "mcpconform badge",
	Synopsis: []string{"REPORT.json [-o FILE]"},
	About: `
Writes an SVG badge (shields style) from a JSON report of mcpconform client,
server or the default run: the spec MUST checks passed, the profile, and the
roles and transports that ran. Green when no spec check failed, red
otherwise. Without -o the SVG goes to standard output.`,
	Examples: []string{"mcpconform server --json r.json -- ./my-server; mcpconform badge r.json -o badge.svg"},
}

func badgeCommand(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("badge")
	out := fs.String("o", "", "write the SVG to `FILE`")
	rest, err := badgeHelp.ParseInterspersed(fs, args, stdout)
	if err != nil {
		return exitFor(err, stderr)
	}
	if len(rest) != 1 {
		return exitFor(errUsage{errors.New("badge: name one JSON report, e.g. mcpconform badge r.json -o badge.svg")}, stderr)
	}
	ix, err := readReport("badge", rest[0])
	if err != nil {
		return exitFor(err, stderr)
	}
	svg := report.BadgeSVG(ix)
	if *out == "" {
		_, err = stdout.Write(svg)
	} else {
		err = report.WriteFile(*out, svg)
	}
	if err != nil {
		return exitFor(err, stderr)
	}
	return 0
}

// readReport reads the JSON report a command (badge, baseline) is given;
// a file that is not one is a usage error.
func readReport(command, path string) (*report.Index, error) {
	b, err := report.ReadInput(command+": the JSON report", path, report.MaxReportFile)
	if err != nil {
		return nil, errUsage{err}
	}
	var ix report.Index
	if err := json.Unmarshal(b, &ix); err != nil || ix.Tool.Name == "" {
		return nil, errUsage{fmt.Errorf("%s: %s is not a JSON report of mcpconform (%v); write one with --json", command, path, err)}
	}
	return &ix, nil
}
