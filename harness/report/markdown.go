package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
)

// maxMessageRunes bounds the one-line message of a Markdown table cell.
const maxMessageRunes = 200

// MarkdownLimit bounds the whole summary: GitHub takes a step summary of
// up to 1 MiB, and a summary past a screenful of tables is not read.
const MarkdownLimit = 64 << 10

// maxLineRunes bounds each line of a message in the attention table; a
// summary over MarkdownLimit is rendered again with half the bound.
const maxLineRunes = 400

// minLineRunes is the least bound RenderMarkdown cuts lines to: a line
// still shows its "expected: " or "observed: " and the first runes after
// it.
const minLineRunes = len("observed: ") + 2

// attentionRank orders the checks a reader must look at first; outcomes not
// listed (PASS, XFAIL, UNIMPLEMENTED, INFO, SKIPPED, N/A) need no attention.
var attentionRank = map[check.Outcome]int{
	check.Error:        0,
	check.Fail:         1,
	check.Stale:        2,
	check.Warn:         3,
	check.HardenedMiss: 4,
}

// RenderMarkdown returns the Markdown summary of a run, fit for a GitHub step
// summary: a headline with the verdict, counts and scores, the eras each
// role's target was certified in, a table of the checks that need attention
// (ERROR, FAIL, STALE, WARN and HARDENED, in that order) with their eras and
// each line of their message whole (the requirement
// and the transcript left to the other reports), then every other check in
// a collapsed <details> block. It stays under MarkdownLimit: lines longer
// than the bound are cut at their end, never before expected: or observed:.
// Cell text is escaped so a message cannot break the table or inject markup.
func RenderMarkdown(ix *Index) []byte {
	out := renderMarkdown(ix, maxLineRunes)
	for limit := maxLineRunes / 2; len(out) > MarkdownLimit && limit >= minLineRunes; limit /= 2 {
		out = renderMarkdown(ix, limit)
	}
	return out
}

func renderMarkdown(ix *Index, lineRunes int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## %s %s: %s\n\n", mdCell(ix.Tool.Name), mdCell(ix.Tool.Version), ix.Verdict())
	fmt.Fprintf(&b, "%s · %d checks · seed %d\n\n", countsLine(ix.Summary), ix.Summary.Total(), ix.Seed)
	fmt.Fprintf(&b, "**Scores:** %s%s\n\n", ix.Scores, profileNote(ix.Profile))
	if eras := ix.CertifiedEras.String(); eras != "" {
		fmt.Fprintf(&b, "**Eras certified:** %s\n\n", eras)
	}
	if len(ix.Target) > 0 {
		b.WriteString("**Target:** " + targetLine(ix.Target) + "\n\n")
	}
	if ix.Tools != nil {
		writeToolsMarkdown(&b, *ix.Tools)
	}

	var attention, rest []Check
	for _, c := range ix.Checks {
		if _, ok := attentionRank[c.Outcome]; ok {
			attention = append(attention, c)
		} else {
			rest = append(rest, c)
		}
	}
	sort.SliceStable(attention, func(i, j int) bool {
		return attentionRank[attention[i].Outcome] < attentionRank[attention[j].Outcome]
	})
	switch {
	case ix.Stopped != "":
		fmt.Fprintf(&b, "The run stopped before its checks: %s\n\n", mdCell(ix.Stopped))
	case ix.Interrupted:
		fmt.Fprintf(&b, "The run was interrupted (%s): the checks not reached are SKIPPED.\n\n", mdCell(ix.InterruptedBy))
	case ix.Verdict() == VerdictNothingJudged:
		b.WriteString("No check reached a verdict: every one was SKIPPED, N/A or UNIMPLEMENTED.\n\n")
	}
	switch {
	case ix.Stopped != "":
	case len(attention) == 0:
		b.WriteString("Every check that ran passed.\n\n")
	default:
		fmt.Fprintf(&b, "### Needs attention (%d)\n\n", len(attention))
		b.WriteString("| Check | Outcome | Level | Source | Eras | Rules | Message |\n| --- | --- | --- | --- | --- | --- | --- |\n")
		for _, c := range attention {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(c.ID), c.Outcome, c.Level, c.Source,
				erasText(c.Eras), mdRules(c.Rules), mdCell(verdictLines(c.Message, lineRunes)))
		}
		b.WriteString("\n")
	}

	if len(rest) > 0 {
		fmt.Fprintf(&b, "<details><summary>Other checks (%d)</summary>\n\n", len(rest))
		b.WriteString("| Check | Outcome | Level | Role | Transport | Eras | Rules | ms | Message |\n")
		b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --: | --- |\n")
		for _, c := range rest {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d | %s |\n", mdCell(c.ID), c.Outcome, c.Level,
				c.Role, c.Transport, erasText(c.Eras), mdRules(c.Rules), c.DurationMS, mdCell(oneLine(c.Message, min(lineRunes, maxMessageRunes))))
		}
		b.WriteString("\n</details>\n")
	}
	return b.Bytes()
}

// writeToolsMarkdown writes the Tools section: the tools called, a table
// of the fixtures found and how, and one of the tools left alone with why.
func writeToolsMarkdown(b *bytes.Buffer, u toolpolicy.Use) {
	called := "none"
	if len(u.Called) > 0 {
		called = mdCell(strings.Join(u.Called, ", "))
	}
	fmt.Fprintf(b, "### Tools\n\n**Called (%d):** %s\n\n", len(u.Called), called)
	if len(u.FixturesFound) > 0 {
		b.WriteString("**Fixtures** (the tool of each behaviour no `--fixtures` entry names):\n\n| Behaviour | Tool | How it was found |\n| --- | --- | --- |\n")
		for _, f := range u.FixturesFound {
			fmt.Fprintf(b, "| %s | %s | %s |\n", mdCell(f.Role), mdCell(f.Tool), mdCell(f.How))
		}
		b.WriteString("\n")
	}
	if len(u.LeftAlone) == 0 {
		return
	}
	fmt.Fprintf(b, "**Left alone (%d)** (`--call-tools all` calls every tool but the fixtures file's `unsafe:`; a tool `--fixtures` names is called whatever its annotations):\n\n| Tool | Why |\n| --- | --- |\n", len(u.LeftAlone))
	for _, l := range u.LeftAlone {
		fmt.Fprintf(b, "| %s | %s |\n", mdCell(l.Name), mdCell(l.Why))
	}
	b.WriteString("\n")
}

// verdictLines is a message as the attention table shows it: every line
// but the leading requirement and the transcript's tail, each cut at its
// end to lineRunes.
func verdictLines(msg string, lineRunes int) string {
	var out []string
	for _, l := range strings.Split(verdictText(msg), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, cutRunes(l, lineRunes))
		}
	}
	return strings.Join(out, "\n")
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + " …"
}

// WriteMarkdown writes RenderMarkdown(ix) to path with WriteFile.
func WriteMarkdown(path string, ix *Index) error {
	return WriteFile(path, RenderMarkdown(ix))
}

// profileNote says which profile bound the run.
func profileNote(p check.Profile) string {
	switch p {
	case check.SpecProfile:
		return " (profile spec: hardened misses do not fail the run)"
	case check.HardenedProfile:
		return " (profile hardened: the seed behaviours bind)"
	}
	return ""
}

func countsLine(s Summary) string {
	var parts []string
	for _, o := range s.Shown() {
		parts = append(parts, fmt.Sprintf("**%d** %s", s.Count(o), strings.ToLower(string(o))))
	}
	return strings.Join(parts, " · ")
}

func targetLine(target map[string]any) string {
	keys := make([]string, 0, len(target))
	for k := range target {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, mdCell(k)+": "+mdCell(valueText(target[k])))
	}
	return strings.Join(parts, " · ")
}

// valueText shows a target value: strings as they are, anything else as JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// mdEscaper makes text safe in a GFM table cell: the pipe and HTML's
// specials become entities (an escaped \| is not safe after a backslash),
// Markdown's emphasis and link characters are backslash-escaped, and line
// breaks become <br>.
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "&#124;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "~", `\~`,
	"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
)

func mdCell(s string) string { return mdEscaper.Replace(s) }

// oneLine returns the first non-blank line of a message, cut to n runes,
// with an ellipsis when anything was left out.
func oneLine(msg string, n int) string {
	msg = strings.TrimSpace(msg)
	line, rest, more := strings.Cut(msg, "\n")
	line = strings.TrimSpace(line)
	more = more && strings.TrimSpace(rest) != ""
	if utf8.RuneCountInString(line) > n {
		line = string([]rune(line)[:n])
		more = true
	}
	if more {
		line += " …"
	}
	return line
}
