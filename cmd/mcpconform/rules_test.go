package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/rules"
)

// TestRulesJSONTracesEveryCitedRule is the condition: every rule
// ID a check cites has its sentence and its source, a spec rule its
// versions, section and a URL of the specification, and lists the check.
func TestRulesJSONTracesEveryCitedRule(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"rules", "--format", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got struct{ Rules []ruleEntry }
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	byID := map[string]ruleEntry{}
	for _, e := range got.Rules {
		byID[e.ID] = e
	}
	for _, d := range check.All() {
		for _, id := range d.Rules {
			e, ok := byID[id]
			if !ok {
				t.Errorf("%s cites %s, which rules does not list", d.ID, id)
				continue
			}
			if e.Text == "" || e.Source == "" || e.Section == "" || e.Level == "" || e.Role == "" {
				t.Errorf("%s: text %q source %q section %q level %q role %q", id, e.Text, e.Source, e.Section, e.Level, e.Role)
			}
			switch e.Source {
			case "spec":
				if !strings.HasPrefix(e.URL, "https://modelcontextprotocol.io/specification/") || len(e.SpecVersions) == 0 {
					t.Errorf("%s: url %q versions %v", id, e.URL, e.SpecVersions)
				} else if newest := e.SpecVersions[len(e.SpecVersions)-1]; !strings.Contains(e.URL, "/"+newest+"/") {
					t.Errorf("%s: url %q is not of version %s", id, e.URL, newest)
				}
			case "hardened":
				if !strings.HasPrefix(e.URL, "seeds/") {
					t.Errorf("%s: url %q names no seed document", id, e.URL)
				}
			default:
				t.Errorf("%s: source %q", id, e.Source)
			}
			if !slices.Contains(e.Checks, d.ID) {
				t.Errorf("%s: checks %v leave out %s, which cites it", id, e.Checks, d.ID)
			}
		}
	}
}

func TestRulesFormats(t *testing.T) {
	for _, tc := range []struct{ format, want string }{
		{"table", "ST-03   MUST NOT"},
		{"markdown", "| [ST-03](https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio) | MUST NOT | server | spec 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 | 3 stdio transport |"},
		{"markdown", "| NG-03 | MUST | client | hardened (seeds/neograph-stdio-client-config.txt) | NG: stdio client |"},
	} {
		var stdout, stderr bytes.Buffer
		if code := dispatch([]string{"rules", "--format", tc.format}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.format, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%s: no %q in\n%.2000s", tc.format, tc.want, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"rules", "--format", "xml"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "table, json or markdown") {
		t.Errorf("--format xml: exit %d, stderr %q", code, stderr.String())
	}
}

func TestListTableShowsRuleURLs(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"list", "-v"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "stdio.client.banner.before-initialize ") {
			// NG-01 and NG-03 share their seed document; ST-03 is a section of the specification.
			if !strings.HasSuffix(line, "  seeds/neograph-stdio-client-config.txt https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio") {
				t.Errorf("rule URLs not at the end of %q", line)
			}
			return
		}
	}
	t.Fatalf("stdio.client.banner.before-initialize not listed in\n%.2000s", stdout.String())
}

// TestListingsFitTheWidth: list and rules cut their tables to $COLUMNS
// (stdout is no terminal here), and -v writes them whole.
func TestListingsFitTheWidth(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	for _, args := range [][]string{{"list"}, {"rules"}, {"list", "--mutants"}} {
		var stdout, stderr bytes.Buffer
		if code := dispatch(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		for _, line := range lines[:len(lines)-1] { // the count line is prose
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("%v: a line of %d runes at COLUMNS=80: %q", args, n, line)
				break
			}
		}
	}
	var stdout, stderr bytes.Buffer
	dispatch([]string{"rules", "-v"}, &stdout, &stderr)
	if !strings.Contains(stdout.String(), "https://modelcontextprotocol.io/specification/") {
		t.Errorf("rules -v has no URL column")
	}
}

// coverageFloor is the share, in per cent, of the judgeable MUST and SHOULD
// rules of the counted areas (no reason for the role) that a check of the
// role cites. It holds what is true now; raise it as checks are added
// (issue 20's target is 90 for each role).
var coverageFloor = map[string]float64{"client": 94, "server": 98}

// TestRulesCoverage keeps the coverage table from drifting: a rule that
// cannot be judged from the wire says why, no check cites a rule as judged
// whose reason says it cannot be, and the share of judgeable rules with a
// check stays at its floor.
func TestRulesCoverage(t *testing.T) {
	cov := measureCoverage()
	for _, e := range cov.Entries {
		if _, ok := rules.AreaOf(e.ID); !ok {
			t.Errorf("%s belongs to no area of the coverage: add its letters to the areas of harness/rules/coverage.go", e.ID)
		}
		for _, role := range rules.Roles {
			if e.ReasonFor(role) != "" && e.CheckedFor(role) {
				t.Errorf("%s: a %s check cites it, yet its reason says it cannot be judged for the %s (%q): drop the reason from harness/rules/rules.tsv",
					e.ID, role, role, e.Reason)
			}
		}
	}
	for _, role := range rules.Roles {
		tally := cov.Roles[role]
		got, _ := tally.Percent()
		if got < coverageFloor[role] {
			var waiting []string
			for _, e := range cov.Entries {
				if a, _ := rules.AreaOf(e.ID); a.Counted && slices.Contains(e.Waiting(), role) {
					waiting = append(waiting, e.ID)
				}
			}
			t.Errorf("%s: %d of %d judgeable MUST and SHOULD rules have a check (%.1f %%), under the floor of %.0f %%; without a check: %s",
				role, tally.WithCheck, tally.Judgeable, got, coverageFloor[role], strings.Join(waiting, " "))
		}
	}
}

func TestRulesCoverageFormats(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"rules", "--coverage", "--format", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got struct {
		Rules []coverageRule
		Areas []struct {
			Area    string
			Counted bool
			Roles   map[string]coverageTally
		}
		Totals map[string]coverageTally
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	byID := map[string]coverageRule{}
	for _, r := range got.Rules {
		byID[r.ID] = r
	}
	if r := byID["EL-10"]; r.Reason == "" || len(r.Checks) != 0 || len(r.Waiting) != 0 {
		t.Errorf("EL-10 (a user interface): %+v", r)
	}
	if r := byID["ST-03"]; r.Reason != "" || !slices.Contains(r.Checks, "server.stdio.stdout-only-jsonrpc") || len(r.SpecVersions) != 4 {
		t.Errorf("ST-03: %+v", r)
	}
	if _, ok := byID["NG-03"]; ok {
		t.Error("a seed rule is listed among the spec rules")
	}
	for _, role := range rules.Roles {
		tot := got.Totals[role]
		if tot.Percent == nil || tot.Rules != tot.WithReason+tot.Judgeable || tot.WithCheck > tot.Judgeable {
			t.Errorf("%s totals do not add up: %+v", role, tot)
		}
	}
	for _, a := range got.Areas {
		if a.Counted == slices.Contains([]string{"MR", "SB", "TK", "AU"}, a.Area) {
			t.Errorf("area %s counted: %v", a.Area, a.Counted)
		}
	}
	for _, tc := range []struct{ format, want string }{
		{"table", "EL-10   MUST "},
		{"table", "counted areas"},
		{"markdown", "| MR multi-round-trip (not counted) |"},
		{"markdown", "| [ST-03](https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio) | MUST NOT | server | all |"},
	} {
		stdout.Reset()
		if code := dispatch([]string{"rules", "--coverage", "--format", tc.format}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.format, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%s: no %q in\n%.2000s", tc.format, tc.want, stdout.String())
		}
	}
}

var updateREADME = flag.Bool("update-readme", false, "write the coverage table into docs/profiles.md")

// TestREADMECoverage keeps the coverage table of docs/profiles.md the one rules
// --coverage --format markdown prints.
func TestREADMECoverage(t *testing.T) {
	const begin, end = "<!-- coverage: mcpconform rules --coverage --format markdown -->\n", "<!-- end of coverage -->\n"
	b, err := os.ReadFile("../../docs/profiles.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("docs/profiles.md has no coverage table between %q and %q", begin, end)
	}
	var want strings.Builder
	writeCoverageSummary(&want, measureCoverage())
	if readme[i+len(begin):j] == want.String() {
		return
	}
	if !*updateREADME {
		t.Fatalf("docs/profiles.md's coverage table is out of date: go test ./cmd/mcpconform -run TestREADMECoverage -update-readme\nwant:\n%s", want.String())
	}
	if err := os.WriteFile("../../docs/profiles.md", []byte(readme[:i+len(begin)]+want.String()+readme[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
}
