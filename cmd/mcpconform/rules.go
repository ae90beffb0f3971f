package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/rules"
	"github.com/mcpconform/mcpconform/harness/usage"
)

// ruleEntry is one rule of the table as mcpconform rules prints it: its
// sentence, where it comes from and the checks that cite it.
type ruleEntry struct {
	ID    string `json:"id"`
	Level string `json:"level"`
	// Role is the party the rule binds: client, server or both.
	Role string `json:"role"`
	Text string `json:"text"`
	// Source is spec (a requirement of the MCP specification) or hardened
	// (a seed behaviour).
	Source string `json:"source"`
	// SpecVersions are the protocol versions a spec rule belongs to.
	SpecVersions []string `json:"spec_versions"`
	// Section is the section of the specification digest, or the seed family.
	Section string `json:"section"`
	// URL is the section of the specification in the newest version the
	// rule belongs to, or the seed document.
	URL    string   `json:"url"`
	Checks []string `json:"checks"`
	// Reason says why the rule cannot be judged from the wire ("" when a
	// check can judge it); "client: …" or "server: …" limits it to a role.
	Reason string `json:"reason"`
}

// ruleEntries returns every rule of the table, sorted by ID, with the
// checks of the catalogue that cite it.
func ruleEntries() []ruleEntry {
	citing := map[string][]string{}
	for _, d := range check.All() {
		for _, id := range d.Rules {
			citing[id] = append(citing[id], d.ID)
		}
	}
	var out []ruleEntry
	for _, r := range rules.All() {
		e := ruleEntry{ID: r.ID, Level: r.Level, Role: r.Side, Text: r.Text, Source: string(r.Source),
			SpecVersions: []string{}, Section: r.Section, URL: r.URL, Checks: citing[r.ID], Reason: r.Reason}
		if r.Source == rules.Spec {
			e.SpecVersions = r.VersionNames()
		}
		if e.Checks == nil {
			e.Checks = []string{}
		}
		out = append(out, e)
	}
	return out
}

func rulesCommand(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("rules")
	format := fs.String("format", "table", "table, json or markdown")
	verbose := fs.Bool("v", false, "table: every column, every cell whole, however wide")
	coverage := fs.Bool("coverage", false, "list the spec rules with the checks that cite each or the reason none can, and the share of judgeable MUST and SHOULD rules with a check per area and role")
	if err := rulesHelp.Parse(fs, args, stdout); err != nil {
		return exitFor(err, stderr)
	}
	if fs.NArg() > 0 {
		return exitFor(fmt.Errorf("rules: unexpected argument %q", fs.Arg(0)), stderr)
	}
	if *coverage {
		return exitFor(printCoverage(stdout, *format, measureCoverage()), stderr)
	}
	entries := ruleEntries()
	switch *format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"rules": entries}); err != nil {
			return exitFor(err, stderr)
		}
	case "table":
		header := []string{"ID", "LEVEL", "ROLE", "SOURCE", "CHECKS", "TEXT"}
		if *verbose {
			header = []string{"ID", "LEVEL", "ROLE", "SOURCE", "VERSIONS", "SECTION", "URL", "CHECKS", "REASON", "TEXT"}
		}
		rows := make([][]string, 0, len(entries))
		for _, e := range entries {
			checks := strings.Join(e.Checks, ",")
			if !*verbose {
				// The count, with the reason where none can judge it.
				checks = fmt.Sprint(len(e.Checks))
				if e.Reason != "" {
					checks = "-"
				}
				rows = append(rows, []string{e.ID, e.Level, e.Role, e.Source, checks, strings.Join(strings.Fields(e.Text), " ")})
				continue
			}
			r, _ := rules.Lookup(e.ID)
			rows = append(rows, []string{e.ID, e.Level, e.Role, e.Source, r.Versions, e.Section, e.URL, checks, orDash(e.Reason), e.Text})
		}
		if err := table(stdout, *verbose, header, []int{0, 10}, rows); err != nil {
			return exitFor(err, stderr)
		}
		fmt.Fprintf(stdout, "%d rules (-v: every column, whole)\n", len(entries))
	case "markdown":
		fmt.Fprintf(stdout, "| Rule | Level | Role | Source | Section | Checks | Text | Reason |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, e := range entries {
			id, source := e.ID, e.Source
			if e.Source == string(rules.Spec) {
				id = "[" + e.ID + "](" + e.URL + ")"
				source += " " + strings.Join(e.SpecVersions, ", ")
			} else {
				source += " (" + e.URL + ")"
			}
			fmt.Fprintf(stdout, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", id, mdText(e.Level), e.Role, mdText(source), mdText(e.Section),
				mdText(strings.Join(e.Checks, ", ")), mdText(e.Text), mdText(e.Reason))
		}
	default:
		return exitFor(errUsage{fmt.Errorf("rules: --format must be table, json or markdown, got %q", *format)}, stderr)
	}
	return 0
}

// orDash is s, or "-" for an empty table cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mdText keeps a rule's Markdown (its code spans and emphasis) but not a
// pipe or a line break, which would end the table cell.
var mdText = strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\n", "<br>").Replace
