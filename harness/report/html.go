package report

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
)

// noRule is the matrix row of checks that name no rule.
const noRule = "(no rule)"

// RenderHTML returns a self-contained HTML page for a run: the summary, a
// matrix of rules × outcome, and every check with its message and transcript
// in a <details> block (open when the check fails the run). It has no
// external assets and everything from the run is escaped by html/template.
func RenderHTML(ix *Index) ([]byte, error) {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, newPage(ix)); err != nil {
		return nil, fmt.Errorf("render HTML report: %w", err)
	}
	return b.Bytes(), nil
}

// WriteHTML writes RenderHTML(ix) to path, atomically.
func WriteHTML(path string, ix *Index) error {
	data, err := RenderHTML(ix)
	if err != nil {
		return fmt.Errorf("HTML report %s: %w", path, err)
	}
	return WriteFileAtomic(path, data)
}

type page struct {
	*Index
	Failed   bool
	Total    int
	Target   []keyValue
	Counts   []count
	Outcomes []check.Outcome
	Matrix   []matrixRow
}

type keyValue struct{ Key, Value string }

type count struct {
	Outcome check.Outcome
	N       int
}

type matrixRow struct {
	Rule  string
	Cells []matrixCell
}

type matrixCell struct {
	Outcome check.Outcome
	Checks  []string
}

func newPage(ix *Index) page {
	p := page{Index: ix, Failed: ix.ExitCode() != 0, Total: ix.Summary.Total(), Outcomes: Outcomes}
	for k, v := range ix.Target {
		p.Target = append(p.Target, keyValue{k, valueText(v)})
	}
	sort.Slice(p.Target, func(i, j int) bool { return p.Target[i].Key < p.Target[j].Key })
	for _, o := range Outcomes {
		p.Counts = append(p.Counts, count{o, ix.Summary.Count(o)})
	}

	byRule := map[string]map[check.Outcome][]string{}
	for _, c := range ix.Checks {
		rules := c.Rules
		if len(rules) == 0 {
			rules = []string{noRule}
		}
		for _, r := range rules {
			if byRule[r] == nil {
				byRule[r] = map[check.Outcome][]string{}
			}
			byRule[r][c.Outcome] = append(byRule[r][c.Outcome], c.ID)
		}
	}
	for r, cells := range byRule {
		row := matrixRow{Rule: r}
		for _, o := range Outcomes {
			row.Cells = append(row.Cells, matrixCell{o, cells[o]})
		}
		p.Matrix = append(p.Matrix, row)
	}
	sort.Slice(p.Matrix, func(i, j int) bool { return p.Matrix[i].Rule < p.Matrix[j].Rule })
	return p
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"class":   func(o check.Outcome) string { return "o-" + strings.ToLower(strings.ReplaceAll(string(o), "/", "")) },
	"failing": func(o check.Outcome) bool { return o.Failing() },
	"join":    strings.Join,
	"rule":    ruleRef,
}).Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Tool.Name}} {{.Tool.Version}}: {{if .Failed}}FAILED{{else}}passed{{end}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #1f2328; }
h1 .verdict { padding: 0 .3em; border-radius: 4px; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.counts span { display: inline-block; margin: 0 .4em .4em 0; padding: .15em .6em; border-radius: 4px; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
details.check { border: 1px solid #d0d7de; border-radius: 4px; margin: .4em 0; padding: .3em .6em; }
details.check > summary { cursor: pointer; }
.badge { display: inline-block; min-width: 8em; font-weight: bold; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0 1em; }
dt { color: #59636e; }
dd { margin: 0; }
.o-pass { background: #dafbe1; }
.o-fail, .o-stale, .o-error { background: #ffebe9; }
.o-hardened { background: #fff1e5; }
.o-warn { background: #fff8c5; }
.o-xfail { background: #fbefff; }
.o-info, .o-unimplemented, .o-skipped, .o-na { background: #f6f8fa; }
</style>
</head>
<body>
<h1>{{.Tool.Name}} {{.Tool.Version}}: <span class="verdict {{if .Failed}}o-fail{{else}}o-pass{{end}}">{{if .Failed}}FAILED{{else}}passed{{end}}</span></h1>
<p>{{.Total}} checks · seed {{.Seed}}{{if .Profile}} · profile {{.Profile}}{{end}}</p>
<p class="scores">{{.Scores}}</p>
<p class="counts">{{range .Counts}}<span class="{{class .Outcome}}"><b>{{.N}}</b> {{.Outcome}}</span>{{end}}</p>
{{- if .Target}}
<h2>Target</h2>
<table>{{range .Target}}<tr><th>{{.Key}}</th><td>{{.Value}}</td></tr>{{end}}</table>
{{- end}}
<h2>Rules × outcome</h2>
<table class="matrix">
<thead><tr><th>Rule</th>{{range .Outcomes}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Matrix}}
<tr><th>{{template "rule" .Rule}}</th>{{range .Cells}}{{if .Checks}}<td class="n {{class .Outcome}}" title="{{join .Checks ", "}}">{{len .Checks}}</td>{{else}}<td class="n"></td>{{end}}{{end}}</tr>
{{- end}}
</tbody>
</table>
<h2>Checks</h2>
{{- range .Checks}}
<details class="check {{class .Outcome}}" id="check-{{.ID}}"{{if failing .Outcome}} open{{end}}>
<summary><span class="badge">{{.Outcome}}</span> <code>{{.ID}}</code> {{.Title}}</summary>
<dl>
<dt>level</dt><dd>{{.Level}}</dd>
{{- if .Source}}
<dt>source</dt><dd>{{.Source}}</dd>
{{- end}}
<dt>role</dt><dd>{{.Role}}</dd>
<dt>transport</dt><dd>{{.Transport}}</dd>
<dt>rules</dt><dd>{{range $i, $r := .Rules}}{{if $i}}, {{end}}{{template "rule" $r}}{{end}}</dd>
<dt>duration</dt><dd>{{.DurationMS}} ms</dd>
{{- if .Seed}}
<dt>seed</dt><dd>{{.Seed}}</dd>
{{- end}}
</dl>
{{- if .Message}}
<pre class="message">{{.Message}}</pre>
{{- end}}
{{- if .Transcript}}
<details><summary>Transcript ({{len .Transcript}} lines)</summary>
<pre class="transcript">{{range .Transcript}}{{.}}
{{end}}</pre>
</details>
{{- end}}
</details>
{{- end}}
</body>
</html>
{{- define "rule"}}{{with rule .}}{{if .Link}}<a href="{{.Link}}" title="{{.Text}}">{{.ID}}</a>{{else if .Text}}<span title="{{.Text}}">{{.ID}}</span>{{else}}{{.ID}}{{end}}{{end}}{{end}}
`
