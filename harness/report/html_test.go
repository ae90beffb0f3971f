package report

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

func TestHTMLEscapesEverything(t *testing.T) {
	r := result("stdio.server.xss", check.Fail, `message <img src=x onerror=alert(1)>`)
	r.Title = "<b>title</b>"
	r.Transcript = []string{`s2c {"x":"<script>alert(1)</script>"}`, "note </pre></details>"}
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1"}, map[string]any{"cmd": `"><script>`}, 0, []check.Result{r})
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteHTML(path, ix); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, path)
	for _, raw := range []string{"<script", "<img", "<b>title", "</pre></details>\n</pre>"} {
		if strings.Contains(page, raw) {
			t.Errorf("page contains unescaped %q", raw)
		}
	}
	wantContains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "&lt;b&gt;title&lt;/b&gt;")
	// The rules link to the specification's text; nothing else leaves the page.
	local := specLink.ReplaceAllString(page, "<a>")
	for _, ext := range []string{"http://", "https://", ` src="`, "<link", "url("} {
		if strings.Contains(local, ext) {
			t.Errorf("page refers to an external asset (%q)", ext)
		}
	}
}

func TestHTMLMatrixAndChecks(t *testing.T) {
	a := result("a.fail", check.Fail, "broken")
	a.Rules = []string{"ST-01", "NG-02"}
	b := result("b.pass", check.Pass, "")
	b.Seed = 1234
	c := result("c.pass", check.Pass, "")
	page := string(mustHTML(t, NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{a, b, c})))
	wantContains(t, page,
		"<h1>mcpconform 1: <span class=\"verdict o-fail\">FAILED</span></h1>",
		`<tr><th>`+ng02+`</th><td class="n"></td><td class="n o-fail" title="a.fail">1</td>`,
		`<tr><th>`+st01+`</th><td class="n o-pass" title="b.pass, c.pass">2</td><td class="n o-fail" title="a.fail">1</td>`,
		`<dt>rules</dt><dd>`+st01+`, `+ng02+`</dd>`,
		`<details class="check o-fail" id="check-a.fail" open>`,
		`<details class="check o-pass" id="check-b.pass">`,
		"<dt>seed</dt><dd>1234</dd>",
		`<pre class="message">broken</pre>`,
	)
	if strings.Index(page, "NG-02") > strings.Index(page, "ST-01") {
		t.Error("matrix rows not sorted by rule")
	}
}

// A spec rule links to its section with its sentence on hover; a seed rule
// shows its sentence on hover.
const (
	st01 = `<a href="https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio" title="The client spawns the server as a child process; the server reads JSON-RPC from stdin and writes JSON-RPC to stdout.">ST-01</a>`
	ng02 = `<span title="A possibly damaged line that does not parse ends the session at once with a protocol failure. So does JSON that parses but is neither an object nor a batch (` + "`42`, `&#34;x&#34;`, `null`, `true`" + `).">NG-02</span>`
)

var specLink = regexp.MustCompile(`<a href="https://modelcontextprotocol\.io/specification/[^"]*"`)

func TestHTMLUnknownRuleIsPlain(t *testing.T) {
	a := result("a.fail", check.Fail, "broken")
	a.Rules = []string{"XX-99"}
	page := string(mustHTML(t, NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{a})))
	wantContains(t, page, "<tr><th>XX-99</th>", "<dt>rules</dt><dd>XX-99</dd>")
}

func mustHTML(t *testing.T, ix *Index) []byte {
	t.Helper()
	b, err := RenderHTML(ix)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
