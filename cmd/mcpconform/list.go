package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/rules"
	"github.com/mcpconform/mcpconform/harness/usage"
	"github.com/mcpconform/mcpconform/suites/run"
)

// reference is one rule a check cites, as the rule table has it.
type reference struct {
	ID     string `json:"id"`
	Level  string `json:"level"`
	Side   string `json:"side"`
	Source string `json:"source"`
	URL    string `json:"url"`
	Text   string `json:"text"`
}

type listEntry struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Requirement string   `json:"requirement"`
	Rules       []string `json:"rules"`
	// RuleURLs are the URLs of the rules, in the order of Rules: a section
	// of the MCP specification, or the seed document.
	RuleURLs []string `json:"rule_urls"`
	Level    string   `json:"level"`
	Source   string   `json:"source"`
	// References resolve each rule ID in the rule table.
	References []reference   `json:"references"`
	Role       string        `json:"role"`
	Transport  string        `json:"transport"`
	Eras       []string      `json:"eras"`
	KilledBy   []mutant.Name `json:"killed_by"`
	Property   bool          `json:"property,omitempty"`
	Fuzz       bool          `json:"fuzz,omitempty"`
	// Waits are the check's declared waits with their default durations:
	// a client check's as the built-in reference client spends them.
	Waits []waitEntry `json:"waits"`
}

// waitEntry is one declared wait: what for, the setting that gives its
// duration (for a server check the flag that sets it), whether it always
// elapses, and its duration in one run of the check, every time it
// elapses; a client-limit wait also names the limit, and a wait that
// elapses other than once says how many times.
type waitEntry struct {
	What       string  `json:"what"`
	Setting    string  `json:"setting"`
	Always     bool    `json:"always"`
	DurationMS int64   `json:"duration_ms"`
	Limit      string  `json:"limit,omitempty"`
	Times      float64 `json:"times,omitempty"`
}

func list(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("list")
	format := fs.String("format", "table", "table or json")
	mutants := fs.Bool("mutants", false, "list the mutants and permitted variants of the references instead of the checks")
	if err := listHelp.Parse(fs, args, stdout); err != nil {
		return exitFor(err, stderr)
	}
	if fs.NArg() > 0 {
		return exitFor(fmt.Errorf("list: unexpected argument %q", fs.Arg(0)), stderr)
	}
	if *mutants {
		return listMutants(*format, stdout, stderr)
	}
	all := check.All()
	defaults, referenceLine := run.Options{}.WithDefaults(), run.ReferenceConfigLine()
	switch *format {
	case "json":
		entries := make([]listEntry, 0, len(all))
		for _, d := range all {
			e := listEntry{ID: d.ID, Title: d.Title, Requirement: d.Requirement, Rules: d.Rules, Level: string(d.Level), Source: string(d.Source),
				Role: string(d.Role), Transport: string(d.Transport), KilledBy: d.KilledBy, Property: d.Property, Fuzz: d.Fuzz}
			for _, id := range d.Rules {
				r, _ := rules.Lookup(id)
				e.References = append(e.References, reference{ID: r.ID, Level: r.Level, Side: r.Side, Source: string(r.Source), URL: r.URL, Text: r.Text})
				e.RuleURLs = append(e.RuleURLs, r.URL)
			}
			for _, era := range d.EraList() {
				e.Eras = append(e.Eras, string(era))
			}
			e.Waits = []waitEntry{}
			for _, w := range d.Waits {
				e.Waits = append(e.Waits, waitEntry{What: w.What, Setting: string(w.Setting), Always: w.Setting.Always(),
					DurationMS: defaults.WaitDuration(w, referenceLine).Milliseconds(), Limit: w.Limit, Times: w.Times})
			}
			entries = append(entries, e)
		}
		if err := writeIndented(stdout, map[string]any{"checks": entries}); err != nil {
			return exitFor(err, stderr)
		}
	case "table":
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tLEVEL\tSOURCE\tROLE\tTRANSPORT\tRULES\tTITLE\tRULE URLS")
		for _, d := range all {
			title := d.Title
			if d.Fuzz {
				title = "[" + check.FuzzLabel + "] " + title // off by default: --fuzz runs it
			}
			var urls []string
			for _, id := range d.Rules {
				if r, _ := rules.Lookup(id); !slices.Contains(urls, r.URL) {
					urls = append(urls, r.URL)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.ID, d.Level, d.Source, d.Role, d.Transport, strings.Join(d.Rules, ","), title,
				strings.Join(urls, " "))
		}
		tw.Flush()
		fmt.Fprintf(stdout, "%d checks\n", len(all))
	default:
		return exitFor(errUsage{fmt.Errorf("list: --format must be table or json, got %q", *format)}, stderr)
	}
	return 0
}

// writeIndented writes v as JSON indented by two spaces, the format of the
// listing commands.
func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
