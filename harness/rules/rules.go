// Package rules is the rule table: every requirement ID a check may cite,
// with the level its text uses, the side it binds, the protocol versions it
// belongs to, where it comes from (the MCP specification, or the seed
// behaviours of the hardened profile), its sentence, where to read it and,
// for a rule no check can judge from the wire, the reason why.
//
// The table (rules.tsv) is written by gen.go from the specification digest
// and the seed semantics, keeping the reasons the table already holds (the
// documents have none); a check's level and source follow from the rules
// it cites (package check).
package rules

import (
	_ "embed"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Source is where a rule comes from.
type Source string

// Sources.
const (
	// Spec is a requirement of the MCP specification.
	Spec Source = "spec"
	// Hardened is a seed behaviour beyond the specification.
	Hardened Source = "hardened"
)

// Rule is one row of the table.
type Rule struct {
	ID string
	// Level is the rule's level as its text uses it: "MUST", "SHOULD / MAY",
	// "MUST NOT†", or "—" for a descriptive row.
	Level string
	// Side is the party the rule binds: client, server or both.
	Side string
	// Versions are the protocol versions it belongs to: "all", "0326–1125", "0728", …
	Versions string
	Source   Source
	// Section is where in its document the rule stands: the section of the
	// specification digest ("4.6 Sessions (legacy only)"), or the seed
	// family ("NG: stdio client").
	Section string
	// URL is where the rule's text is read.
	URL string
	// Text is the rule in one sentence.
	Text string
	// Reason says why the rule cannot be judged from the wire by a harness
	// that plays the peer ("about a user interface"), "" for a rule a check
	// can judge. "client: …" or "server: …" limits it to that role, for a
	// rule binding both whose other half a check can judge.
	Reason string
}

// ReasonFor is the reason the rule cannot be judged for role (client or
// server), "" when a check can judge it for that role.
func (r Rule) ReasonFor(role string) string {
	for _, scope := range []string{"client", "server"} {
		if text, ok := strings.CutPrefix(r.Reason, scope+": "); ok {
			if scope != role {
				return ""
			}
			return text
		}
	}
	return r.Reason
}

// Normative reports whether the rule's level names MUST or SHOULD (in any
// form: MUST NOT, SHOULD†, "MAY / MUST"): the rules a certificate counts.
func (r Rule) Normative() bool {
	return strings.Contains(r.Level, "MUST") || strings.Contains(r.Level, "SHOULD")
}

// Keywords returns the levels the rule's text uses, strongest first, with
// the negative forms folded in (MUST NOT is MUST): MUST, SHOULD, MAY.
func (r Rule) Keywords() []string {
	var out []string
	for _, k := range []string{"MUST", "SHOULD", "MAY"} {
		if strings.Contains(r.Level, k) {
			out = append(out, k)
		}
	}
	return out
}

// Primary is the first level the rule's text names (the one it states
// first): MUST, SHOULD, MAY, or "" for a descriptive row.
func (r Rule) Primary() string {
	best, at := "", len(r.Level)+1
	for _, k := range []string{"MUST", "SHOULD", "MAY"} {
		if i := strings.Index(r.Level, k); i >= 0 && i < at {
			best, at = k, i
		}
	}
	return best
}

// Link returns the rule's URL when it is a web address (a section of the
// MCP specification), or "" for a seed document, which is named by its
// path in the project's documents.
func (r Rule) Link() string {
	if strings.HasPrefix(r.URL, "https://") || strings.HasPrefix(r.URL, "http://") {
		return r.URL
	}
	return ""
}

// Binds reports whether the rule binds the given role (client or server).
func (r Rule) Binds(role string) bool { return r.Side == role || r.Side == "both" }

// versionCodes are the version codes of the digest, oldest first; the
// modern era is the last.
var versionCodes = []string{"0326", "0618", "1125", "0728"}

// versionRange is the indexes in versionCodes of the rule's first and
// last versions (-1 for a code it does not know).
func (r Rule) versionRange() (lo, hi int) {
	if r.Versions == "all" {
		return 0, len(versionCodes) - 1
	}
	from, to, ok := strings.Cut(r.Versions, "–")
	if !ok {
		to = from
	}
	return indexOf(from), indexOf(to)
}

// Covers reports whether the rule belongs to a version of the era:
// "legacy" (0326 … 1125) or "modern" (0728).
func (r Rule) Covers(era string) bool {
	lo, hi := r.versionRange()
	modern := len(versionCodes) - 1
	if era == "modern" {
		return hi >= modern
	}
	return lo < modern
}

// VersionNames returns the published names of the protocol versions the
// rule belongs to, oldest first: "0618–1125" is 2025-06-18, 2025-11-25.
func (r Rule) VersionNames() []string {
	lo, hi := r.versionRange()
	if lo < 0 || hi < lo {
		return nil
	}
	out := make([]string, 0, hi-lo+1)
	for _, c := range versionCodes[lo : hi+1] {
		out = append(out, versionNames[c])
	}
	return out
}

func indexOf(code string) int {
	for i, c := range versionCodes {
		if c == code {
			return i
		}
	}
	return -1
}

//go:generate go run gen.go

//go:embed rules.tsv
var tableTSV []byte

var (
	loadOnce sync.Once
	table    map[string]Rule
	loadErr  error
)

func load() {
	list, err := ReadTSV(tableTSV)
	if err != nil {
		loadErr = err
		return
	}
	table = make(map[string]Rule, len(list))
	for _, r := range list {
		table[r.ID] = r
	}
}

// Lookup returns the rule with the given ID.
func Lookup(id string) (Rule, bool) {
	loadOnce.Do(load)
	if loadErr != nil {
		panic("rules: the embedded table does not parse: " + loadErr.Error())
	}
	r, ok := table[id]
	return r, ok
}

// All returns every rule, sorted by ID.
func All() []Rule {
	loadOnce.Do(load)
	out := make([]Rule, 0, len(table))
	for _, r := range table {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Unknown returns the IDs among ids that are not in the table.
func Unknown(ids []string) []string {
	var out []string
	for _, id := range ids {
		if _, ok := Lookup(id); !ok {
			out = append(out, id)
		}
	}
	return out
}

// columns of rules.tsv, in order.
var columns = []string{"id", "level", "side", "versions", "source", "section", "url", "text", "reason"}

// ReadTSV parses the table: a header line naming the columns, then one rule
// a line, tab-separated.
func ReadTSV(b []byte) ([]Rule, error) {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) == 0 || lines[0] != strings.Join(columns, "\t") {
		return nil, fmt.Errorf("rules.tsv: the first line must name the columns %s", strings.Join(columns, ", "))
	}
	var out []Rule
	for n, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != len(columns) {
			return nil, fmt.Errorf("rules.tsv line %d: %d fields, want %d", n+2, len(f), len(columns))
		}
		r := Rule{ID: f[0], Level: f[1], Side: f[2], Versions: f[3], Source: Source(f[4]), Section: f[5], URL: f[6], Text: f[7], Reason: f[8]}
		if r.Source != Spec && r.Source != Hardened {
			return nil, fmt.Errorf("rules.tsv line %d: rule %s has source %q, want spec or hardened", n+2, r.ID, r.Source)
		}
		if err := r.checkReason(); err != nil {
			return nil, fmt.Errorf("rules.tsv line %d: %w", n+2, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// WriteTSV writes the table in the form ReadTSV reads.
func WriteTSV(w io.Writer, list []Rule) {
	fmt.Fprintln(w, strings.Join(columns, "\t"))
	for _, r := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Level, r.Side, r.Versions, r.Source, r.Section, r.URL, r.Text, r.Reason)
	}
}

// checkReason refuses a reason the coverage could not count: one given to
// a seed rule or to a rule without MUST or SHOULD, or limited to a role
// the rule does not bind alone beside another.
func (r Rule) checkReason() error {
	switch {
	case r.Reason == "":
		return nil
	case r.Source != Spec || !r.Normative():
		return fmt.Errorf("rule %s (%s, %s) has a reason, which only a MUST or SHOULD rule of the specification may have", r.ID, r.Source, r.Level)
	case r.ReasonFor("client") != "" && r.ReasonFor("server") != "":
		return nil
	case r.Side != "both":
		return fmt.Errorf("rule %s binds the %s only: its reason %q needs no role before it", r.ID, r.Side, r.Reason)
	}
	return nil
}

// KeepReasons returns list with the reason of each rule that old, the
// table before, gives one; the documents hold no reasons.
func KeepReasons(list, old []Rule) []Rule {
	reasons := make(map[string]string, len(old))
	for _, r := range old {
		reasons[r.ID] = r.Reason
	}
	out := slices.Clone(list)
	for i := range out {
		out[i].Reason = reasons[out[i].ID]
	}
	return out
}
