package report

import (
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

// The browser test (browser/, its own module) reads the page in Chromium;
// these read its markup.

func TestHTMLEscapesEverything(t *testing.T) {
	r := result("stdio.server.xss", check.Fail, `message <img src=x onerror=alert(1)>`)
	r.Title = "<b>title</b>"
	r.Requirement = `a "rule" <i>sentence</i>`
	r.Transcript = []string{`s2c {"x":"<script>alert(1)</script>"}`, "note </pre></details>", "nul \x00 byte"}
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1"}, map[string]any{"cmd": `"><script>`, "command": []string{"srv", "<script>"}}, 0, []check.Result{r})
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteHTML(path, ix); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, path)
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("page has %d <script elements, want its own only", n)
	}
	for _, raw := range []string{"<img", "<b>title", "<i>sentence", "note </pre>", "\x00"} {
		if strings.Contains(page, raw) {
			t.Errorf("page contains unescaped %q", raw)
		}
	}
	wantContains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "&lt;b&gt;title&lt;/b&gt;",
		"note &lt;/pre&gt;&lt;/details&gt;", "&lt;i&gt;sentence&lt;/i&gt;", "srv &lt;script&gt;")
}

// The page fetches nothing: it names no resource but the rules' pages
// (links, not fetched) and the badge's SVG namespace, and its Content
// Security Policy allows only its own style and script, by hash.
func TestHTMLIsSelfContained(t *testing.T) {
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{result("a.fail", check.Fail, "broken")})
	page := string(mustHTML(t, ix))
	wantContains(t, page, `<div class="badge">`+string(BadgeSVG(ix)))
	local := specURL.ReplaceAllString(page, "")
	local = strings.ReplaceAll(local, `xmlns="http://www.w3.org/2000/svg"`, "")
	local = strings.ReplaceAll(local, `<link rel="icon" href="data:,">`, "")
	for _, ext := range []string{"http://", "https://", ` src=`, "<link", "@import"} {
		if strings.Contains(local, ext) {
			t.Errorf("page refers to an external resource (%q)", ext)
		}
	}
	if m := regexp.MustCompile(`url\([^#]`).FindString(local); m != "" {
		t.Errorf("page refers to an external resource (%q)", m)
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatal("page has no Content Security Policy")
	}
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	if style == nil || script == nil {
		t.Fatal("page has no inline style or script")
	}
	want := "default-src 'none'; img-src data:; style-src '" + hashSource(style[1]) + "'; script-src '" + hashSource(script[1]) + "'"
	if got := html.UnescapeString(csp[1]); !strings.HasPrefix(got, want) {
		t.Errorf("the policy is %q, want it to start %q: the browser would block the page's own style or script", got, want)
	}
}

// Failures and warnings come first, in the attention table and in the list
// of checks (ERROR, FAIL, STALE, WARN, HARDENED), open when they fail the
// run; the others follow by ID.
func TestHTMLPutsFailuresFirst(t *testing.T) {
	var rs []check.Result
	for _, o := range []check.Outcome{check.Pass, check.Warn, check.Skipped, check.Fail, check.HardenedMiss, check.Stale, check.Info} {
		rs = append(rs, result("area."+strings.ToLower(string(o)), o, "why "+string(o)))
	}
	page := string(mustHTML(t, NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, rs)))
	attention := page[strings.Index(page, `<section id="attention">`):strings.Index(page, `<form id="filters"`)]
	checks := page[strings.Index(page, `<section id="checks">`):]
	order := func(s, format string, ids ...string) {
		t.Helper()
		last := -1
		for _, id := range ids {
			i := strings.Index(s, strings.ReplaceAll(format, "ID", id))
			if i < 0 {
				t.Errorf("%s is not on the page", id)
			}
			if i < last {
				t.Errorf("%s is not in the order %v", id, ids)
			}
			last = i
		}
	}
	order(attention, `<tr data-id="ID">`, "area.fail", "area.stale", "area.warn", "area.hardened")
	if strings.Contains(attention, "area.pass") || strings.Contains(attention, "area.info") {
		t.Error("the attention table lists a check that needs none")
	}
	order(checks, `id="check-ID"`, "area.fail", "area.stale", "area.warn", "area.hardened", "area.info", "area.pass", "area.skipped")
	for id, open := range map[string]bool{"area.fail": true, "area.stale": true, "area.warn": false, "area.pass": false} {
		tag := regexp.MustCompile(`<details class="check" id="check-` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(checks)
		if strings.HasSuffix(tag, " open>") != open {
			t.Errorf("%s: %s, want it open %v (open when it fails the run)", id, tag, open)
		}
	}
	wantContains(t, page, `<span class="verdict o-fail">FAILED</span>`, `<span class="count o-warn" data-outcome="WARN"><b>1</b> WARN</span>`,
		`<input type="checkbox" name="outcome" value="HARDENED" checked>HARDENED 1</label>`)
}

// A check shows its requirement, each rule with its sentence and link, what
// was expected beside what was observed (the requirement line and the
// transcript's tail left out of the message), and its whole transcript.
func TestHTMLShowsTheVerdictRulesAndTranscript(t *testing.T) {
	a := result("server.ping.after", check.Fail, "requirement (MUST, ST-01, NG-02): answer ping\nexpected: the result {}\nobserved: error 0\nnote: it was late\ntranscript (last lines):\n  c2s ping")
	a.Rules = []string{"ST-01", "NG-02"}
	a.Requirement = "answer ping"
	a.Eras = []check.Era{check.Legacy, check.Modern}
	a.Seed = 1234
	a.Transcript = []string{`c2s {"method":"ping"}`, `s2c {"error":0}`}
	page := string(mustHTML(t, NewIndex(Tool{Name: "mcpconform", Version: "1"}, map[string]any{"server_info": "ref 1", "command": []string{"./srv", "-v"}}, 5, []check.Result{a})))
	wantContains(t, page,
		`<p class="requirement"><b>requirement</b> answer ping</p>`,
		`<li>`+st01+` <span class="rule-text">The client spawns`,
		`<a class="rule-url" href="https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio">`,
		`<li>`+ng02+` <span class="rule-text">`,
		`<dl class="verdict"><dt>expected</dt><dd><pre>the result {}</pre></dd><dt>observed</dt><dd><pre>error 0</pre></dd></dl>`,
		`<pre class="message">note: it was late</pre>`,
		`data-eras="legacy modern"`, `· seed 1234`,
		`<summary>transcript, 2 lines (the server is under test)</summary><pre>c2s {"method":"ping"}`+"\n"+`s2c {"error":0}</pre>`,
		`<summary><b>Target</b> <code>ref 1 · ./srv -v</code></summary>`,
	)
	if strings.Contains(page, "requirement (MUST") || strings.Contains(page, "transcript (last lines)") {
		t.Error("the message repeats the requirement or the transcript's tail")
	}
}

// The matrix has a cell per check, by role and area, coloured by outcome
// and linking to the check.
func TestHTMLMatrixByArea(t *testing.T) {
	client := result("stdio.client.banner.one", check.Pass, "")
	client.Role = check.Client
	page := string(mustHTML(t, NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{
		client, result("server.ping.after", check.Fail, "x"), result("server.ping.before", check.Pass, ""),
	})))
	m := page[strings.Index(page, `<section id="matrix">`):strings.Index(page, `<section id="checks">`)]
	wantContains(t, m, `<h3>client</h3>`, `<h4>stdio.client.banner</h4>`,
		`<div class="area"><h4>server.ping</h4><div class="cells"><a class="cell o-fail" href="#check-server.ping.after" data-id="server.ping.after" title="FAIL · server.ping.after: title of server.ping.after">after</a><a class="cell o-pass" href="#check-server.ping.before"`)
	if strings.Index(m, "<h3>client</h3>") > strings.Index(m, "<h3>server</h3>") {
		t.Error("the matrix's roles are not sorted")
	}
}

// The profile filter shows the checks each profile's score counts.
func TestHTMLProfilesOfACheck(t *testing.T) {
	spec := result("a.spec", check.Pass, "")
	spec.Source = check.Spec
	both := result("b.both", check.Pass, "")
	both.Source, both.Rules = check.Spec, []string{"ST-01", "NG-02"}
	seed := result("c.seed", check.Pass, "")
	seed.Source, seed.Rules = check.Hardened, []string{"NG-02"}
	page := string(mustHTML(t, NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{spec, both, seed})))
	for id, want := range map[string]string{"a.spec": "spec", "b.both": "spec hardened", "c.seed": "hardened"} {
		wantContains(t, page, `id="check-`+id+`" data-outcome="PASS" data-role="server" data-transport="stdio" data-eras="legacy" data-profiles="`+want+`">`)
	}
}

// A check of transport any shows under the transport filter of each
// transport it was judged on, and its tags name them; one not judged
// stays under any. The badge's scope counts them too.
func TestHTMLTransportsOfACheckOfAny(t *testing.T) {
	both := result("server.both", check.Fail, "stdio: PASS; http: FAIL")
	both.Transport, both.Transports = check.Any, []check.Transport{check.Stdio, check.HTTP}
	none := result("server.none", check.NotApplicable, "no era")
	none.Transport = check.Any
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{both, none})
	page := string(mustHTML(t, ix))
	wantContains(t, page,
		`id="check-server.both" data-outcome="FAIL" data-role="server" data-transport="stdio http"`,
		`<span class="tags">server · any: stdio http ·`,
		`id="check-server.none" data-outcome="N/A" data-role="server" data-transport="any"`,
		`<option>any</option><option>http</option><option>stdio</option>`)
	if got := ix.Scope(); got != "server http+stdio" {
		t.Errorf("scope = %q, want the transports the check of any was judged on", got)
	}
}

// A spec rule links to its section with its sentence on hover; a seed rule
// shows its sentence on hover.
const (
	st01 = `<a href="https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio" title="The client spawns the server as a child process; the server reads JSON-RPC from stdin and writes JSON-RPC to stdout.">ST-01</a>`
	ng02 = `<span title="A possibly damaged line that does not parse ends the session at once with a protocol failure. So does JSON that parses but is neither an object nor a batch (` + "`42`, `&#34;x&#34;`, `null`, `true`" + `).">NG-02</span>`
)

// specURL is the address of a section of the specification.
var specURL = regexp.MustCompile(`https://modelcontextprotocol\.io/specification/[^"<]*`)

func TestHTMLUnknownRuleIsPlain(t *testing.T) {
	a := result("a.fail", check.Fail, "broken")
	a.Rules = []string{"XX-99"}
	page := string(mustHTML(t, NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{a})))
	wantContains(t, page, `<ul class="rules"><li>XX-99</li></ul>`)
}

func mustHTML(t *testing.T, ix *Index) []byte {
	t.Helper()
	b, err := RenderHTML(ix)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Each rule names the other checks of the report that cite it, each a link
// to its entry; a rule no other check cites names none.
func TestHTMLRuleNamesItsOtherChecks(t *testing.T) {
	a, b := result("server.a", check.Pass, ""), result("server.b", check.Pass, "")
	a.Rules, b.Rules = []string{"ST-01", "NG-02"}, []string{"ST-01"}
	page := string(mustHTML(t, NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{a, b})))
	wantContains(t, page,
		`<span class="rule-also">also cited by <a href="#check-server.b">server.b</a></span>`,
		`<span class="rule-also">also cited by <a href="#check-server.a">server.a</a></span>`,
		`id="check-server.a"`, `id="check-server.b"`)
	if n := strings.Count(page, `class="rule-also"`); n != 2 {
		t.Errorf("%d rules name other checks, want 2 (ST-01 in each check; NG-02 has no other)", n)
	}
}
