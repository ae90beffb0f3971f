package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/console"
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
	verbose := fs.Bool("v", false, "table: every cell whole and the rules' URLs, however wide")
	if err := listHelp.Parse(fs, args, stdout); err != nil {
		return exitFor(err, stderr)
	}
	if fs.NArg() > 0 {
		return exitFor(fmt.Errorf("list: unexpected argument %q", fs.Arg(0)), stderr)
	}
	if *mutants {
		return listMutants(*format, *verbose, stdout, stderr)
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
		// The ID names the role and transport; -v adds them, the source,
		// the rules and their URLs.
		header := []string{"ID", "LEVEL", "TITLE"}
		if *verbose {
			header = []string{"ID", "LEVEL", "SOURCE", "ROLE", "TRANSPORT", "RULES", "TITLE", "RULE URLS"}
		}
		rows := make([][]string, 0, len(all))
		for _, d := range all {
			title := d.Title
			if d.Fuzz {
				title = "[" + check.FuzzLabel + "] " + title // off by default: --fuzz runs it
			}
			row := []string{d.ID, string(d.Level), title}
			if *verbose {
				row = []string{d.ID, string(d.Level), string(d.Source), string(d.Role), string(d.Transport), strings.Join(d.Rules, ","), title}
				var urls []string
				for _, id := range d.Rules {
					if r, _ := rules.Lookup(id); !slices.Contains(urls, r.URL) {
						urls = append(urls, r.URL)
					}
				}
				row = append(row, strings.Join(urls, " "))
			}
			rows = append(rows, row)
		}
		if err := table(stdout, *verbose, header, nil, rows); err != nil {
			return exitFor(err, stderr)
		}
		fmt.Fprintf(stdout, "%d checks (-v: every column, whole)\n", len(all))
	default:
		return exitFor(errUsage{fmt.Errorf("list: --format must be table or json, got %q", *format)}, stderr)
	}
	return 0
}

// table writes a listing's table to stdout cut to the terminal's width
// (console.TableWidth), or whole with -v; limits cut the columns before
// the last, which gets what is left.
func table(stdout io.Writer, whole bool, header []string, limits []int, rows [][]string) error {
	width := 0
	if !whole {
		width = console.TableWidth(stdout, os.Getenv)
	}
	return console.Table(stdout, width, header, limits, rows)
}

// writeIndented writes v as JSON indented by two spaces, the format of the
// listing commands.
func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
