package rules

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// specSite is where the MCP specification is published.
const specSite = "https://modelcontextprotocol.io/specification/"

// sectionPages maps a section number of the specification digest to the
// page of the specification it digests; a subsection not listed takes its
// section's page.
var sectionPages = map[string]string{
	"1":   "basic",
	"1.4": "basic#meta",
	"1.5": "basic#json-schema-usage",
	"2":   "basic/lifecycle",
	"2.4": "basic/versioning",
	"3":   "basic/transports#stdio",
	"4":   "basic/transports#streamable-http",
	"4.6": "basic/transports#session-management",
	"5.1": "basic/utilities/ping",
	"5.2": "basic/utilities/cancellation",
	"5.3": "basic/utilities/progress",
	"5.4": "server/utilities/logging",
	"5.5": "server/utilities/pagination",
	"5.6": "server/utilities/completion",
	"6.1": "server/tools",
	"6.2": "server/resources",
	"6.3": "server/prompts",
	"7.1": "client/sampling",
	"7.2": "client/elicitation",
	"7.3": "client/roots",
	"7.4": "client/multi-round-trip",
	"7.5": "client/subscriptions",
	"7.6": "basic/utilities/tasks",
	"8":   "basic/authorization",
	"9":   "basic/security_best_practices",
	"10":  "basic",
}

// versionNames are the published names of the digest's version codes.
var versionNames = map[string]string{"0326": "2025-03-26", "0618": "2025-06-18", "1125": "2025-11-25", "0728": "2026-07-28"}

var (
	headingRow = regexp.MustCompile(`^#{2,3} (\d+(?:\.\d+)?)[. ]\s*(.*?)\s*$`)
	specRow    = regexp.MustCompile(`^\| ([A-Z]{2}-\d+[a-z]?) \| ([^|]+) \| (client|server|both) \| ([^|]+) \| (.*) \|$`)
	seedHead   = regexp.MustCompile(`^## ((NG|RM|CX): [^(]*?) *\(([^)]+)\)`)
	seedRow    = regexp.MustCompile(`^\| ((NG|RM|CX)-\d+) \| (.*) \|$`)
)

// seedSides is the side each seed family binds.
var seedSides = map[string]string{"NG": "client", "RM": "client", "CX": "server"}

// FromDocuments builds the table from the specification digest (spec
// rules) and the seed semantics (hardened rules).
func FromDocuments(spec, seeds []byte) ([]Rule, error) {
	var out []Rule
	seen := map[string]bool{}
	add := func(r Rule) error {
		if seen[r.ID] {
			return fmt.Errorf("rule %s appears twice", r.ID)
		}
		if strings.ContainsAny(r.Text, "\t\n") {
			return fmt.Errorf("rule %s: its text holds a tab or a line break", r.ID)
		}
		seen[r.ID] = true
		out = append(out, r)
		return nil
	}
	section, title := "", ""
	for _, line := range strings.Split(string(spec), "\n") {
		if m := headingRow.FindStringSubmatch(line); m != nil {
			section, title = m[1], m[2]
			continue
		}
		m := specRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		r := Rule{ID: m[1], Level: strings.TrimSpace(m[2]), Side: m[3], Versions: strings.TrimSpace(m[4]), Source: Spec, Section: strings.TrimSpace(section + " " + title), Text: strings.TrimSpace(m[5])}
		r.URL = specURL(section, r.Versions)
		if err := add(r); err != nil {
			return nil, err
		}
	}
	family, heading, doc := "", "", ""
	for _, line := range strings.Split(string(seeds), "\n") {
		if m := seedHead.FindStringSubmatch(line); m != nil {
			heading, family, doc = m[1], m[2], m[3]
			continue
		}
		m := seedRow.FindStringSubmatch(line)
		if m == nil || m[2] != family {
			continue
		}
		r := Rule{ID: m[1], Level: "MUST", Side: seedSides[family], Versions: "all", Source: Hardened, Section: heading, URL: "seeds/" + doc, Text: strings.TrimSpace(m[3])}
		if err := add(r); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rule rows found in either document")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// specURL is the page of section in the newest version the rule belongs to.
func specURL(section, versions string) string {
	page, s := "", section
	for s != "" {
		if p, ok := sectionPages[s]; ok {
			page = p
			break
		}
		i := strings.LastIndex(s, ".")
		if i < 0 {
			break
		}
		s = s[:i]
	}
	newest := "0728"
	if versions != "all" {
		_, to, ok := strings.Cut(versions, "–")
		if !ok {
			to = versions
		}
		newest = to
	}
	return specSite + versionNames[newest] + "/" + page
}
