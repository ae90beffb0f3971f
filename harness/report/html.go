package report

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/rules"
)

// RenderHTML returns a self-contained HTML page for a run, read like an
// Autobahn report: the verdict, the badge, both profiles' scores and the
// eras each role's target was certified in at the top, then the checks that need attention, a matrix of the checks by area
// (a coloured cell per outcome that opens the check), filters by outcome,
// role, transport, era and profile with a text search, and every check,
// failures and warnings first, with its requirement, its rules (sentence
// and link), what was expected and observed, and its transcript. It fetches
// nothing: its style and script are inline, allowed by hash in its Content
// Security Policy, and everything from the run is escaped.
func RenderHTML(ix *Index) ([]byte, error) {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, newPage(ix)); err != nil {
		return nil, fmt.Errorf("render HTML report: %w", err)
	}
	return b.Bytes(), nil
}

// WriteHTML writes RenderHTML(ix) to path with WriteFile.
func WriteHTML(path string, ix *Index) error {
	data, err := RenderHTML(ix)
	if err != nil {
		return fmt.Errorf("HTML report %s: %w", path, err)
	}
	return WriteFile(path, data)
}

var (
	//go:embed html.tmpl
	pageHTML string
	//go:embed html.css
	pageCSS string
	//go:embed html.js
	pageJS string
)

// pageCSP lets the page run its own style and script and show data: images,
// and nothing else: no fetch, no other script.
var pageCSP = fmt.Sprintf("default-src 'none'; img-src data:; style-src '%s'; script-src '%s'; form-action 'none'; base-uri 'none'",
	hashSource(pageCSS), hashSource(pageJS))

func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

type page struct {
	*Index
	Verdict, Scope string
	Failed         bool
	Total          int
	Counts         []count
	Target         []keyValue
	TargetLine     string // what the target calls itself and how it was run
	Attention      []*checkView
	Checks         []*checkView // attention first, then by ID
	Matrix         []matrixRole
	Roles          []check.Role
	Transports     []check.Transport
	Eras           []check.Era
	Badge          template.HTML
	CSP            string
	Style          template.CSS
	Script         template.JS
}

type keyValue struct{ Key, Value string }

type count struct {
	Outcome check.Outcome
	N       int
}

// matrixRole is the matrix of one role's checks, by area.
type matrixRole struct {
	Role  check.Role
	Areas []matrixArea
}

type matrixArea struct {
	Name  string
	Cells []*checkView
}

// checkView is a check as the page shows it.
type checkView struct {
	Check
	Class    string // the outcome's colour
	Leaf     string // the ID's last part, the matrix cell's label
	Open     bool
	ErasText string
	Profiles string // the profiles whose score counts it: "spec", "hardened" or both
	Rules    []ruleView
	Verdict  verdict
	Lines    template.HTML // the transcript, escaped

	// SeenText are the transports it was judged on, space-separated (the
	// transport filter's words); TransportText says them after its
	// transport when that is any ("any: stdio http").
	SeenText, TransportText string
}

// ruleView is a rule a check cites, as the page shows it: with the other
// checks of the report that cite it, each a link to its entry.
type ruleView struct {
	rules.Rule
	Others []string
}

func newPage(ix *Index) page {
	v := ix.Verdict()
	p := page{Index: ix, Failed: v != VerdictPassed, Verdict: v, Scope: ix.Scope(), Total: ix.Summary.Total(),
		Badge: template.HTML(BadgeSVG(ix)), CSP: pageCSP, Style: template.CSS(pageCSS), Script: template.JS(pageJS)}
	for k, v := range ix.Target {
		p.Target = append(p.Target, keyValue{k, valueText(v)})
	}
	sort.Slice(p.Target, func(i, j int) bool { return p.Target[i].Key < p.Target[j].Key })
	p.TargetLine = targetSummary(ix.Target)
	for _, o := range ix.Summary.Shown() {
		p.Counts = append(p.Counts, count{o, ix.Summary.Count(o)})
	}
	citing := map[string][]string{}
	for _, c := range ix.Checks {
		for _, id := range c.Rules {
			citing[id] = append(citing[id], c.ID)
		}
	}
	var rest []*checkView
	for _, c := range ix.Checks {
		v := newCheckView(c, citing)
		if _, ok := attentionRank[c.Outcome]; ok {
			p.Attention = append(p.Attention, v)
		} else {
			rest = append(rest, v)
		}
		p.Roles = addOnce(p.Roles, c.Role)
		for _, t := range c.Seen() {
			p.Transports = addOnce(p.Transports, t)
		}
		for _, e := range c.Eras {
			p.Eras = addOnce(p.Eras, e)
		}
	}
	sort.SliceStable(p.Attention, func(i, j int) bool {
		return attentionRank[p.Attention[i].Outcome] < attentionRank[p.Attention[j].Outcome]
	})
	p.Checks = append(slices.Clip(p.Attention), rest...)
	p.Matrix = matrix(p.Checks)
	slices.Sort(p.Roles)
	slices.Sort(p.Transports)
	slices.Sort(p.Eras)
	return p
}

// newCheckView is c as the page shows it; citing are the IDs of the
// report's checks that cite each rule.
func newCheckView(c Check, citing map[string][]string) *checkView {
	v := &checkView{Check: c, Class: outcomeClass(c.Outcome), Leaf: c.ID[strings.LastIndexByte(c.ID, '.')+1:],
		Open: c.Outcome.Failing() || c.Outcome == check.Error, Verdict: splitVerdict(c.Message)}
	eras := make([]string, len(c.Eras))
	for i, e := range c.Eras {
		eras[i] = string(e)
	}
	v.ErasText = strings.Join(eras, " ")
	seen := make([]string, len(c.Seen()))
	for i, t := range c.Seen() {
		seen[i] = string(t)
	}
	v.SeenText, v.TransportText = strings.Join(seen, " "), string(c.Transport)
	if len(c.Transports) > 0 && c.Transport == check.Any {
		v.TransportText += ": " + strings.Join(seen, " ")
	}
	var profiles []string
	if c.Source == check.Spec {
		profiles = append(profiles, string(check.SpecProfile))
	}
	if c.hardenedScore || c.Source == check.Hardened {
		profiles = append(profiles, string(check.HardenedProfile))
	}
	v.Profiles = strings.Join(profiles, " ")
	for _, id := range c.Rules {
		others := slices.DeleteFunc(slices.Clone(citing[id]), func(other string) bool { return other == c.ID })
		v.Rules = append(v.Rules, ruleView{Rule: ruleRef(id), Others: others})
	}
	if len(c.Transcript) > 0 {
		v.Lines = template.HTML(textEscaper.Replace(strings.Join(c.Transcript, "\n")))
	}
	return v
}

// targetSummary is the target in one line: the names the implementations
// reported, then the URL, command or adapter they were run by.
func targetSummary(target map[string]any) string {
	var parts []string
	for _, k := range []string{"server_info", "client_info", "url", "command", "adapter"} {
		switch v := target[k].(type) {
		case string:
			parts = append(parts, v)
		case []string:
			parts = append(parts, strings.Join(v, " "))
		}
	}
	return strings.Join(parts, " · ")
}

// textEscaper makes text safe as the content of an element (never an
// attribute): a transcript is most of a page, and html/template would
// spell each of its many quotes as &#34;.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\x00", "\uFFFD")

// matrix groups the checks by role, then by area (the ID before its last
// dot), both sorted; within an area the checks keep their order.
func matrix(checks []*checkView) []matrixRole {
	byRole := map[check.Role]map[string][]*checkView{}
	for _, c := range checks {
		if byRole[c.Role] == nil {
			byRole[c.Role] = map[string][]*checkView{}
		}
		a := area(c.ID)
		byRole[c.Role][a] = append(byRole[c.Role][a], c)
	}
	var out []matrixRole
	for _, role := range sortedKeys(byRole) {
		m := matrixRole{Role: role}
		for _, name := range sortedKeys(byRole[role]) {
			cells := byRole[role][name]
			sort.SliceStable(cells, func(i, j int) bool { return cells[i].ID < cells[j].ID })
			m.Areas = append(m.Areas, matrixArea{name, cells})
		}
		out = append(out, m)
	}
	return out
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func addOnce[T ~string](list []T, v T) []T {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// outcomeClass is the CSS class of an outcome's colour: o-pass, o-na, ….
func outcomeClass(o check.Outcome) string {
	return "o-" + strings.ToLower(strings.ReplaceAll(string(o), "/", ""))
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"class": outcomeClass,
	"score": func(s Score) string { return fmt.Sprintf("%d/%d", s.Pass, s.Total) },
}).Parse(pageHTML))
