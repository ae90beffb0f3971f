package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

func TestCertifiedErasAddsKnownErasOnceInOrder(t *testing.T) {
	c := CertifiedEras{}
	c.Add(check.Server, check.Modern)
	c.Add(check.Server, check.Legacy)
	c.Add(check.Server, check.Modern)
	c.Add(check.Server, "2027-future")
	c.Add(check.Client, check.Legacy)
	want := CertifiedEras{check.Server: {check.Legacy, check.Modern}, check.Client: {check.Legacy}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("eras %v, want %v", c, want)
	}
	if got, want := c.String(), "client legacy · server legacy, modern"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (CertifiedEras{}).String(); got != "" {
		t.Errorf("no eras says %q", got)
	}
}

// erasIndex is a run with a check of each era and both, the server
// certified in both eras and the client in the legacy one.
func erasIndex() *Index {
	legacy := result("server.a.legacy", check.Fail, "observed: no")
	modern := result("server.b.modern", check.Pass, "")
	modern.Eras = []check.Era{check.Modern}
	both := result("server.c.both", check.Warn, "observed: slow")
	both.Eras = []check.Era{check.Legacy, check.Modern}
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 1, []check.Result{legacy, modern, both})
	ix.CertifiedEras = CertifiedEras{check.Server: {check.Legacy, check.Modern}, check.Client: {check.Legacy}}
	return ix
}

func TestEveryReportStatesTheErasCertified(t *testing.T) {
	ix := erasIndex()
	const line = "client legacy · server legacy, modern"

	data, err := json.Marshal(ix)
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, string(data), `"certified_eras":{"client":["legacy"],"server":["legacy","modern"]}`)
	wantContains(t, string(RenderMarkdown(ix)), "**Eras certified:** "+line)
	html, err := RenderHTML(ix)
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, string(html), `<p class="meta" id="eras">eras certified: `+line+`</p>`)
	_, suites := writeJUnit(t, ix)
	for _, s := range suites.TestSuites {
		if s.Name == junitSuiteNodes { // Ginkgo's nodes, no check's
			continue
		}
		if got := s.Properties.WithName("certified_eras"); got != line {
			t.Errorf("suite %q: certified_eras property %q, want %q", s.Name, got, line)
		}
	}

	// A run that judged no role (stopped before its checks) says nothing of eras.
	none := NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 1, nil)
	none.Stopped = "not an MCP server"
	data, err = json.Marshal(none)
	if err != nil {
		t.Fatal(err)
	}
	html, err = RenderHTML(none)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "certified_eras") || strings.Contains(string(RenderMarkdown(none)), "Eras certified") ||
		strings.Contains(string(html), "eras certified") {
		t.Errorf("a run that certified nothing states eras:\n%s", data)
	}
}

func TestReportsStateEachChecksEras(t *testing.T) {
	ix := erasIndex()
	want := map[string]string{"server.a.legacy": "legacy", "server.b.modern": "modern", "server.c.both": "legacy, modern"}

	// Markdown: the Eras column of the attention table (FAIL, WARN) and of
	// the other checks (PASS).
	for _, row := range strings.Split(string(RenderMarkdown(ix)), "\n") {
		cs := cells(row)
		id := strings.TrimSpace(cs[0])
		if _, ok := want[id]; !ok {
			continue
		}
		col := 4 // | Check | Outcome | Level | Source | Eras | …
		if len(cs) == 9 {
			col = 5 // | Check | Outcome | Level | Role | Transport | Eras | …
		}
		if got := strings.TrimSpace(cs[col]); got != want[id] {
			t.Errorf("Markdown row of %s: eras %q, want %q: %s", id, got, want[id], row)
		}
		delete(want, id)
	}
	if len(want) > 0 {
		t.Errorf("no Markdown row for %v", want)
	}

	// JUnit: the first line of each test case's system-out.
	_, suites := writeJUnit(t, ix)
	want = map[string]string{"server.a.legacy": "eras legacy", "server.b.modern": "eras modern", "server.c.both": "eras legacy, modern"}
	for _, s := range suites.TestSuites {
		if s.Name == junitSuiteNodes {
			continue
		}
		for _, tc := range s.TestCases {
			id, _, _ := strings.Cut(strings.TrimPrefix(tc.Name, "["), "]")
			if !strings.Contains(tc.SystemOut, want[id]+"\n") {
				t.Errorf("test case %s: system-out %q lacks the line %q", id, tc.SystemOut, want[id])
			}
		}
	}
}
