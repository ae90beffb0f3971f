package browser_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

var update = flag.Bool("update", false, "rewrite ../docs/report-failing.png, the README's screenshot, from the failing run")

// screenshotPath is the README's screenshot of a failing run.
const screenshotPath = "../docs/report-failing.png"

// TestFailingServerRunReadsAtAGlance certifies a mutant of the reference
// stdio server whose ping answers carry a result (PG-02): its page says
// FAILED with the counts and scores of the JSON, shows the badge, puts a
// failing row first with what was expected and observed and its rule,
// hides the passes when PASS is unticked, finds a check by its ID, and
// opens a server check's transcript from the matrix.
func TestFailingServerRunReadsAtAGlance(t *testing.T) {
	chromium(t)
	dir := t.TempDir()
	// The server runs as ./mcpconform, so the page (and the README's
	// screenshot) names no directory of this machine.
	if err := os.Symlink(mcpconformBin, filepath.Join(dir, "mcpconform")); err != nil {
		t.Fatal(err)
	}
	mcpconform(t, dir, []int{1}, "server", "--quiet-window", "200ms", "--json", "r.json", "--html", "r.html", "--no-color", "--",
		"./mcpconform", "serve", "--transport", "stdio", "--slow-bound", "1.5s", "--reverse-timeout", "1s", "--mutant", "ping-result-not-empty")
	var r report
	readJSON(t, filepath.Join(dir, "r.json"), &r)
	p := open(t, dir, "r.html")

	png := p.screenshot()
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("the screenshot is not a PNG (%d bytes)", len(png))
	}
	if *update {
		if err := os.WriteFile(screenshotPath, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seesVerdictScoresAndCounts(t, p, &r, "FAILED")
	seesTheBadge(t, p, mcpconform(t, dir, []int{0}, "badge", "r.json"))
	first := seesAFailingRowFirst(t, p, &r, mcpconform(t, dir, []int{0}, "rules", "--format", "json"))
	opensATranscript(t, p, &r, "server")
	untickingPassHidesThePasses(t, p, &r)
	searchFinds(t, p, &r, first)
	p.checkClean()
}

// TestWholeCatalogueShowsBothRoles renders the default run (the reference
// client and server, every check): the page stays small, its counts are
// the JSON's, a client check's and a server check's transcripts open, and
// the role, transport and era filters show exactly the checks the JSON
// says.
func TestWholeCatalogueShowsBothRoles(t *testing.T) {
	chromium(t)
	dir := t.TempDir()
	// The verdict is the reference's and so a test of its own (.ci/run);
	// here the page must say what the JSON says, whatever it says.
	mcpconform(t, dir, []int{0, 1}, "--json", "r.json", "--html", "r.html", "--no-color")
	var r report
	readJSON(t, filepath.Join(dir, "r.json"), &r)
	fi, err := os.Stat(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	const maxPage = 2 << 20
	if fi.Size() > maxPage {
		t.Errorf("the page of the whole catalogue (%d checks) is %d bytes, over %d", len(r.Checks), fi.Size(), maxPage)
	}
	t.Logf("the page of %d checks: %d bytes", len(r.Checks), fi.Size())
	p := open(t, dir, "r.html")

	verdict := "passed"
	if r.count("FAIL")+r.count("STALE") > 0 {
		verdict = "FAILED"
	}
	seesVerdictScoresAndCounts(t, p, &r, verdict)
	seesTheBadge(t, p, mcpconform(t, dir, []int{0}, "badge", "r.json"))
	opensATranscript(t, p, &r, "client")
	opensATranscript(t, p, &r, "server")
	for _, f := range []struct{ name, value string }{{"role", "client"}, {"transport", "http"}, {"era", "modern"}} {
		filterShowsWhatTheJSONSays(t, p, &r, f.name, f.value)
	}
	p.checkClean()
}

// seesVerdictScoresAndCounts: the headline says the verdict, the two
// score cards the JSON's scores, and one count per outcome the JSON's
// checks have, adding up to all of them.
func seesVerdictScoresAndCounts(t *testing.T, p *page, r *report, verdict string) {
	t.Helper()
	var top struct {
		Verdict, Spec, Hardened, Meta, Shown string
		Counts                               []string
	}
	p.eval(`(() => ({
		verdict: document.querySelector("#summary h1 .verdict").innerText,
		spec: document.getElementById("score-spec").innerText,
		hardened: document.getElementById("score-hardened").innerText,
		meta: document.querySelector("#summary .meta").innerText,
		shown: document.getElementById("shown").innerText,
		counts: Array.from(document.querySelectorAll("#summary .count"), e => e.innerText),
	}))()`, &top)
	if top.Verdict != verdict {
		t.Errorf("the headline says %q, want %q", top.Verdict, verdict)
	}
	for _, want := range []string{r.score("spec_must") + " MUST", r.score("spec_should") + " SHOULD"} {
		if !strings.Contains(top.Spec, want) {
			t.Errorf("the spec score card says %q, want %q in it", top.Spec, want)
		}
	}
	if want := r.score("hardened"); !strings.Contains(top.Hardened, want) {
		t.Errorf("the hardened score card says %q, want %q in it", top.Hardened, want)
	}
	total := 0
	for _, c := range top.Counts {
		n, outcome, _ := strings.Cut(c, " ")
		v, err := strconv.Atoi(n)
		if err != nil || v != r.count(outcome) {
			t.Errorf("the page counts %q; the JSON has %d %s", c, r.count(outcome), outcome)
		}
		total += v
	}
	if total != len(r.Checks) {
		t.Errorf("the counts %v add up to %d, the JSON has %d checks", top.Counts, total, len(r.Checks))
	}
	for _, c := range r.Checks {
		if want := fmt.Sprintf("%d %s", r.count(c.Outcome), c.Outcome); !slices.Contains(top.Counts, want) {
			t.Errorf("no count %q among %v", want, top.Counts)
		}
	}
	n := len(r.Checks)
	if !strings.HasPrefix(top.Meta, fmt.Sprintf("%d checks", n)) || top.Shown != fmt.Sprintf("%d of %d checks shown", n, n) {
		t.Errorf("the page says %q and %q for %d checks", top.Meta, top.Shown, n)
	}
}

// seesTheBadge: the badge mcpconform badge draws for the same JSON is on
// the page, drawn at its size in the first screen.
func seesTheBadge(t *testing.T, p *page, svg []byte) {
	t.Helper()
	label := regexp.MustCompile(`aria-label="([^"]*)"`).FindSubmatch(svg)
	width := regexp.MustCompile(`<svg [^>]*width="(\d+)"`).FindSubmatch(svg)
	if label == nil || width == nil {
		t.Fatalf("mcpconform badge wrote no aria-label or width:\n%s", svg)
	}
	var got struct {
		Label, Text         string
		Width, Height, Top  float64
		Visible, InViewport bool
	}
	p.eval(`(() => {
		const s = document.querySelector("#summary .badge svg"), b = s.getBoundingClientRect();
		return {label: s.getAttribute("aria-label"), text: s.textContent, width: b.width, height: b.height,
			visible: s.checkVisibility(), inViewport: b.top >= 0 && b.bottom <= innerHeight};
	})()`, &got)
	want := html.UnescapeString(string(label[1]))
	if got.Label != want || !strings.Contains(got.Text, strings.TrimPrefix(want, "mcpconform: ")) {
		t.Errorf("the page's badge says %q (%q), mcpconform badge %q", got.Label, got.Text, want)
	}
	if w, _ := strconv.ParseFloat(string(width[1]), 64); got.Width != w || got.Height != 20 || !got.Visible || !got.InViewport {
		t.Errorf("the badge is drawn %gx%g (visible %v, in the first screen %v), want %gx20 in the first screen", got.Width, got.Height, got.Visible, got.InViewport, w)
	}
}

// seesAFailingRowFirst: the first row of "Needs attention", seen without
// scrolling, and the first check of the list are the first failing check;
// the check is open above every pass, with its requirement, what was
// expected and observed as the JSON's message says, and its first rule
// linked to the rule's URL with the rule's sentence on hover. It returns
// the check's ID.
func seesAFailingRowFirst(t *testing.T, p *page, r *report, rulesJSON []byte) string {
	t.Helper()
	var want string
	for _, c := range r.Checks {
		if c.Outcome == "FAIL" {
			want = c.ID
			break
		}
	}
	var got struct {
		Attention struct {
			ID, Outcome string
			Seen        bool
		}
		Row struct {
			ID, Outcome, Requirement, Expected, Observed string
			Open, AbovePasses, VerdictVisible            bool
			Rule                                         struct{ ID, Title, Href string }
		}
	}
	p.eval(`(() => {
		const tr = document.querySelector("#attention tbody tr"), b = tr.getBoundingClientRect();
		const row = document.querySelector("#checks details.check"), dd = row.querySelectorAll("dl.verdict dd");
		const pass = document.querySelector('#checks details.check[data-outcome="PASS"]');
		const rule = row.querySelector(".rules a[title]");
		return {
			attention: {id: tr.dataset.id, outcome: tr.querySelector(".pill").innerText, seen: b.top >= 0 && b.bottom <= innerHeight},
			row: {id: row.id.slice("check-".length), outcome: row.querySelector("summary .pill").innerText, open: row.open,
				abovePasses: !pass || row.getBoundingClientRect().bottom <= pass.getBoundingClientRect().top,
				requirement: row.querySelector(".requirement").innerText,
				verdictVisible: dd.length === 2 && dd[0].checkVisibility() && dd[1].checkVisibility(),
				expected: dd[0].innerText, observed: dd[1].innerText,
				rule: rule ? {id: rule.innerText, title: rule.title, href: rule.href} : {}},
		};
	})()`, &got)
	a, row := got.Attention, got.Row
	if a.ID != want || a.Outcome != "FAIL" || !a.Seen {
		t.Errorf("the first attention row is %s %s (in the first screen: %v), want FAIL %s in the first screen", a.Outcome, a.ID, a.Seen, want)
	}
	if row.ID != want || row.Outcome != "FAIL" || !row.Open || !row.AbovePasses || !row.VerdictVisible {
		t.Errorf("the first check is %s %s (open %v, above the passes %v, expected and observed shown %v), want FAIL %s open above the passes",
			row.Outcome, row.ID, row.Open, row.AbovePasses, row.VerdictVisible, want)
	}
	msg := r.check(want).Message
	for _, line := range []string{"expected: " + firstLine(row.Expected), "observed: " + firstLine(row.Observed)} {
		if !strings.Contains(msg, line+"\n") {
			t.Errorf("the page shows %q; the JSON's message is\n%s", line, msg)
		}
	}
	if !strings.HasPrefix(row.Requirement, "requirement ") || !strings.Contains(msg, strings.TrimPrefix(row.Requirement, "requirement ")) {
		t.Errorf("the page's requirement %q is not the message's:\n%s", row.Requirement, msg)
	}
	var rules struct {
		Rules []struct{ ID, Text, URL string }
	}
	if err := json.Unmarshal(rulesJSON, &rules); err != nil {
		t.Fatalf("mcpconform rules --format json: %v", err)
	}
	i := slices.IndexFunc(rules.Rules, func(x struct{ ID, Text, URL string }) bool { return x.ID == row.Rule.ID })
	switch {
	case !slices.Contains(r.check(want).Rules, row.Rule.ID) || i < 0:
		t.Errorf("the first rule shown, %q, is not one of %s's rules %v in the rule table", row.Rule.ID, want, r.check(want).Rules)
	case row.Rule.Title != rules.Rules[i].Text || row.Rule.Href != rules.Rules[i].URL:
		t.Errorf("rule %s links to %q with %q on hover; the rule table says %q, %q", row.Rule.ID, row.Rule.Href, row.Rule.Title, rules.Rules[i].URL, rules.Rules[i].Text)
	}
	return want
}

// opensATranscript clicks the matrix cell of the first passing check of
// role that has a transcript: the check opens in view; a click on its
// transcript shows every line of the JSON's transcript, coloured by
// direction.
func opensATranscript(t *testing.T, p *page, r *report, role string) {
	t.Helper()
	i := slices.IndexFunc(r.Checks, func(c reportCheck) bool { return c.Role == role && c.Outcome == "PASS" && len(c.Transcript) > 0 })
	if i < 0 {
		t.Fatalf("no passing %s check with a transcript in the JSON", role)
	}
	c := r.Checks[i]
	row := fmt.Sprintf(`document.getElementById(%s)`, js("check-"+c.ID))
	p.do("clicking the matrix cell of "+c.ID, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#matrix a.cell[data-id=%s]`, js(c.ID)))))
	p.waitFor(c.ID+" opens in view", fmt.Sprintf(`(r => r.open && r.getBoundingClientRect().top >= 0 && r.getBoundingClientRect().top < innerHeight / 2)(%s)`, row))
	p.do("opening the transcript of "+c.ID, chromedp.Click(chromedp.CSS(fmt.Sprintf(`details[id=%s] details.transcript > summary`, js("check-"+c.ID)))))
	p.waitFor("the transcript of "+c.ID+" shows", fmt.Sprintf(`(d => d.open && d.querySelector("pre").checkVisibility() && d.querySelector("pre span"))(%s.querySelector("details.transcript"))`, row))
	var got struct {
		Text    string
		Lines   int
		Colours []string
	}
	p.eval(fmt.Sprintf(`(pre => ({text: pre.innerText, lines: pre.querySelectorAll("span").length,
		colours: [...new Set(Array.from(pre.querySelectorAll("span"), s => getComputedStyle(s).color))]}))(%s.querySelector("details.transcript pre"))`, row), &got)
	if got.Lines != len(c.Transcript) || !strings.Contains(got.Text, c.Transcript[0]) || !strings.Contains(got.Text, c.Transcript[len(c.Transcript)-1]) {
		t.Errorf("the transcript of %s shows %d lines:\n%s\nthe JSON has %d, from %q to %q", c.ID, got.Lines, got.Text, len(c.Transcript), c.Transcript[0], c.Transcript[len(c.Transcript)-1])
	}
	if len(got.Colours) < 2 {
		t.Errorf("the transcript of %s is in %d colours, want one per direction", c.ID, len(got.Colours))
	}
}

// untickingPassHidesThePasses: with PASS unticked no pass shows, every
// other check does, the matrix dims the passes' cells; ticked again, all
// show.
func untickingPassHidesThePasses(t *testing.T, p *page, r *report) {
	t.Helper()
	n, pass := len(r.Checks), r.count("PASS")
	box := chromedp.CSS(`#filters input[name=outcome][value=PASS]`)
	p.do("unticking PASS", chromedp.Click(box))
	p.waitFor("the passes hide", fmt.Sprintf(`document.getElementById("shown").innerText === %s`, js(fmt.Sprintf("%d of %d checks shown", n-pass, n))))
	var got struct {
		Passes, Shown, Failures int
		Dimmed, Lit             bool
	}
	p.eval(`(() => {
		const shown = sel => Array.from(document.querySelectorAll(sel)).filter(e => e.checkVisibility()).length;
		const opacity = c => Number(getComputedStyle(c).opacity);
		return {passes: shown('#checks details.check[data-outcome="PASS"]'), shown: shown("#checks details.check"),
			failures: shown('#checks details.check[data-outcome="FAIL"]'),
			dimmed: Array.from(document.querySelectorAll("#matrix a.cell.o-pass")).every(c => opacity(c) < 0.5),
			lit: Array.from(document.querySelectorAll("#matrix a.cell:not(.o-pass)")).every(c => opacity(c) === 1)};
	})()`, &got)
	if got.Passes != 0 || got.Shown != n-pass || got.Failures != r.count("FAIL") || !got.Dimmed || !got.Lit {
		t.Errorf("with PASS unticked: %d passes and %d checks shown, %d failures (want 0, %d, %d); pass cells dimmed %v, others lit %v",
			got.Passes, got.Shown, got.Failures, n-pass, r.count("FAIL"), got.Dimmed, got.Lit)
	}
	p.do("ticking PASS again", chromedp.Click(box))
	p.waitFor("every check shows again", fmt.Sprintf(`document.getElementById("shown").innerText === %s`, js(fmt.Sprintf("%d of %d checks shown", n, n))))
}

// searchFinds types a check's ID in the search box: that check alone shows.
func searchFinds(t *testing.T, p *page, r *report, id string) {
	t.Helper()
	p.do("typing "+id+" in the search box", chromedp.SendKeys(chromedp.CSS(`#filters input[name=q]`), id))
	p.waitFor("the search shows one check", fmt.Sprintf(`document.getElementById("shown").innerText === %s`, js(fmt.Sprintf("1 of %d checks shown", len(r.Checks)))))
	var shown []string
	p.eval(`Array.from(document.querySelectorAll("#checks details.check")).filter(e => e.checkVisibility()).map(e => e.id.slice("check-".length))`, &shown)
	if !slices.Equal(shown, []string{id}) {
		t.Errorf("searching %q shows %v", id, shown)
	}
}

// filterShowsWhatTheJSONSays picks value in the filter's menu by keyboard:
// the checks shown are those of the JSON with that value (a check of
// transport any under each transport it was judged on), and the page says
// how many; then it picks "all" again.
func filterShowsWhatTheJSONSays(t *testing.T, p *page, r *report, filter, value string) {
	t.Helper()
	var want []string
	for _, c := range r.Checks {
		transports := c.Transports
		if len(transports) == 0 {
			transports = []string{c.Transport}
		}
		values := map[string][]string{"role": {c.Role}, "transport": transports, "era": c.Eras}[filter]
		if slices.Contains(values, value) {
			want = append(want, c.ID)
		}
	}
	pick(p, filter, value, len(want), len(r.Checks))
	var shown []string
	p.eval(`Array.from(document.querySelectorAll("#checks details.check")).filter(e => e.checkVisibility()).map(e => e.id.slice("check-".length))`, &shown)
	slices.Sort(shown)
	slices.Sort(want)
	if !slices.Equal(shown, want) {
		t.Errorf("%s %q shows %d checks, the JSON has %d: shown %v, want %v", filter, value, len(shown), len(want), shown, want)
	}
	pick(p, filter, "all", len(r.Checks), len(r.Checks))
}

// pick chooses option in the filter's menu by keyboard, as a person does:
// Home for the first option (all), then the down arrow to it; and waits
// until the page says it shows shown of total checks.
func pick(p *page, filter, option string, shown, total int) {
	p.t.Helper()
	menu := fmt.Sprintf(`#filters select[name=%s]`, filter)
	var at int
	p.eval(fmt.Sprintf(`Array.from(document.querySelector(%s).options, o => o.text).indexOf(%s)`, js(menu), js(option)), &at)
	if at < 0 {
		p.t.Fatalf("the %s menu has no option %q", filter, option)
	}
	p.do(fmt.Sprintf("picking %s %q", filter, option), chromedp.SendKeys(chromedp.CSS(menu), kb.Home+strings.Repeat(kb.ArrowDown, at)))
	p.waitFor(fmt.Sprintf("%s %q applies", filter, option), fmt.Sprintf(`document.getElementById("shown").innerText === %s`, js(fmt.Sprintf("%d of %d checks shown", shown, total))))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
