package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/rules"
)

// measureCoverage is the coverage of the spec rules by the catalogue's
// checks.
func measureCoverage() rules.Coverage {
	cites := map[string][]rules.Citation{}
	for _, d := range check.All() {
		for _, id := range d.Rules {
			cites[id] = append(cites[id], rules.Citation{Check: d.ID, Role: string(d.Role)})
		}
	}
	return rules.Measure(cites)
}

// coverageRule is one spec rule as rules --coverage --format json prints it.
type coverageRule struct {
	ID           string   `json:"id"`
	Level        string   `json:"level"`
	Role         string   `json:"role"`
	SpecVersions []string `json:"spec_versions"`
	Section      string   `json:"section"`
	URL          string   `json:"url"`
	Checks       []string `json:"checks"`
	Reason       string   `json:"reason"`
	// Waiting are the roles the rule binds at MUST or SHOULD, judgeable
	// from the wire, that no check of theirs cites yet.
	Waiting []string `json:"waiting"`
}

// coverageTally is a rules.Tally in JSON: percent is null when no rule
// is judgeable.
type coverageTally struct {
	Rules      int      `json:"rules"`
	WithCheck  int      `json:"with_check"`
	WithReason int      `json:"with_reason"`
	Judgeable  int      `json:"judgeable"`
	Percent    *float64 `json:"percent"`
}

func tallyJSON(t rules.Tally) coverageTally {
	out := coverageTally{Rules: t.Rules, WithCheck: t.WithCheck, WithReason: t.WithReason, Judgeable: t.Judgeable}
	if p, ok := t.Percent(); ok {
		p = math.Round(p*10) / 10
		out.Percent = &p
	}
	return out
}

func rolesJSON(m map[string]rules.Tally) map[string]coverageTally {
	out := map[string]coverageTally{}
	for _, role := range rules.Roles {
		out[role] = tallyJSON(m[role])
	}
	return out
}

type coverageArea struct {
	Area    string                   `json:"area"`
	Name    string                   `json:"name"`
	Counted bool                     `json:"counted"`
	Roles   map[string]coverageTally `json:"roles"`
}

func printCoverage(w io.Writer, format string, cov rules.Coverage) error {
	switch format {
	case "json":
		out := struct {
			Rules  []coverageRule           `json:"rules"`
			Areas  []coverageArea           `json:"areas"`
			Totals map[string]coverageTally `json:"totals"`
		}{Rules: []coverageRule{}, Totals: rolesJSON(cov.Roles)}
		for _, e := range cov.Entries {
			r := coverageRule{ID: e.ID, Level: e.Level, Role: e.Side, SpecVersions: e.VersionNames(), Section: e.Section, URL: e.URL,
				Checks: checkIDs(e), Reason: e.Reason, Waiting: e.Waiting()}
			if r.Waiting == nil {
				r.Waiting = []string{}
			}
			out.Rules = append(out.Rules, r)
		}
		for _, a := range cov.Areas {
			out.Areas = append(out.Areas, coverageArea{Area: a.Code, Name: a.Name, Counted: a.Counted, Roles: rolesJSON(a.Roles)})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "table":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tLEVEL\tROLE\tVERSIONS\tCHECKS OR REASON")
		for _, e := range cov.Entries {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.ID, e.Level, e.Side, e.Versions, judgedBy(e))
		}
		tw.Flush()
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "AREA\tROLE\tMUST/SHOULD\tWITH A CHECK\tWITH A REASON\tJUDGEABLE\tJUDGEABLE WITH A CHECK")
		for _, a := range cov.Areas {
			name := a.Code + " " + a.Name
			if !a.Counted {
				name += " (not counted)"
			}
			for _, role := range rules.Roles {
				if t := a.Roles[role]; t.Rules > 0 {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", name, role, t.Rules, t.WithCheck, t.WithReason, t.Judgeable, percentText(t))
				}
			}
		}
		for _, role := range rules.Roles {
			t := cov.Roles[role]
			fmt.Fprintf(tw, "counted areas\t%s\t%d\t%d\t%d\t%d\t%s\n", role, t.Rules, t.WithCheck, t.WithReason, t.Judgeable, percentText(t))
		}
		return tw.Flush()
	case "markdown":
		writeCoverageSummary(w, cov)
		fmt.Fprintf(w, "\n| Rule | Level | Role | Versions | Checks | Reason |\n| --- | --- | --- | --- | --- | --- |\n")
		for _, e := range cov.Entries {
			checks := strings.Join(checkIDs(e), ", ")
			if waiting := e.Waiting(); len(waiting) > 0 {
				checks = strings.TrimPrefix(checks+"; no check yet for the "+strings.Join(waiting, " and "), "; ")
			}
			fmt.Fprintf(w, "| [%s](%s) | %s | %s | %s | %s | %s |\n", e.ID, e.URL, mdText(e.Level), e.Side, e.Versions, mdText(checks), mdText(e.Reason))
		}
		return nil
	}
	return errUsage{fmt.Errorf("rules: --format must be table, json or markdown, got %q", format)}
}

// writeCoverageSummary writes the coverage by area in Markdown: for each
// role, its MUST and SHOULD rules, those a check of the role cites, those
// with a reason, and the share of the judgeable ones (no reason) with a
// check. The README shows it.
func writeCoverageSummary(w io.Writer, cov rules.Coverage) {
	cells := func(t rules.Tally) string {
		if t.Rules == 0 {
			return "– | – | – | –"
		}
		return fmt.Sprintf("%d | %d | %d | %d / %d (%s)", t.Rules, t.WithCheck, t.WithReason, t.WithCheck, t.Judgeable, percentText(t))
	}
	fmt.Fprintln(w, "| Area | Client rules | with a check | with a reason | judgeable with a check | Server rules | with a check | with a reason | judgeable with a check |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, a := range cov.Areas {
		name := a.Code + " " + a.Name
		if !a.Counted {
			name += " (not counted)"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", name, cells(a.Roles["client"]), cells(a.Roles["server"]))
	}
	fmt.Fprintf(w, "| **counted areas** | %s | %s |\n", cells(cov.Roles["client"]), cells(cov.Roles["server"]))
}

// judgedBy is what judges a rule, for the table: the checks citing it,
// its reason, and the roles still waiting for a check.
func judgedBy(e rules.Entry) string {
	var parts []string
	if ids := checkIDs(e); len(ids) > 0 {
		parts = append(parts, strings.Join(ids, ","))
	}
	if e.Reason != "" {
		parts = append(parts, "reason: "+e.Reason)
	}
	if waiting := e.Waiting(); len(waiting) > 0 {
		parts = append(parts, "no check yet for the "+strings.Join(waiting, " and "))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

func checkIDs(e rules.Entry) []string {
	ids := make([]string, 0, len(e.Checks))
	for _, c := range e.Checks {
		ids = append(ids, c.Check)
	}
	return ids
}

// percentText is a tally's share of judgeable rules with a check, "–"
// when none is judgeable.
func percentText(t rules.Tally) string {
	p, ok := t.Percent()
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", math.Floor(p))
}
