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
	Examples: []string{"mcpconform server --json r.json -- ./my-server && mcpconform badge r.json -o badge.svg"},
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
	b, err := report.ReadInput("badge: the JSON report", rest[0], report.MaxReportFile)
	if err != nil {
		return exitFor(errUsage{err}, stderr)
	}
	var ix report.Index
	if err := json.Unmarshal(b, &ix); err != nil || ix.Tool.Name == "" {
		return exitFor(errUsage{fmt.Errorf("badge: %s is not a JSON report of mcpconform (%v); write one with --json", rest[0], err)}, stderr)
	}
	svg := report.BadgeSVG(&ix)
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
