package report

import (
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/harness/check"
)

func TestMarkdownLinksRules(t *testing.T) {
	a := result("a.fail", check.Fail, "broken")
	a.Rules = []string{"ST-01", "NG-02", "XX-99"}
	b := result("b.pass", check.Pass, "")
	b.Rules = a.Rules
	md := string(RenderMarkdown(NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{a, b})))
	want := "| [ST-01](https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio), NG-02, XX-99 |"
	if strings.Count(md, want) != 2 {
		t.Errorf("the attention table and the full table do not both link the rules as %q:\n%s", want, md)
	}
}

func TestJUnitLinksRules(t *testing.T) {
	ix := &Index{Tool: Tool{Name: "mcpconform"}, Checks: []Check{
		{ID: "stdio.server.banner", Title: "writes nothing but JSON-RPC", Outcome: check.Fail, Role: check.Server, Transport: check.Stdio, Rules: []string{"ST-03", "XX-99"}, Message: "expected: x\nobserved: y"},
		{ID: "stdio.server.ping", Title: "answers ping", Outcome: check.Pass, Role: check.Server, Transport: check.Stdio, Rules: []string{"PG-01"}},
	}}
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := WriteJUnit(types.Report{}, ix, path); err != nil {
		t.Fatal(err)
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal([]byte(readFile(t, path)), &suites); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, s := range suites.TestSuites {
		for _, tc := range s.TestCases {
			seen++
			if !strings.Contains(tc.SystemOut, "https://modelcontextprotocol.io/") {
				t.Errorf("%s: system-out %q holds no rule URL", tc.Name, tc.SystemOut)
			}
			if strings.Contains(tc.SystemOut, "XX-99") {
				t.Errorf("%s: an unknown rule is linked: %q", tc.Name, tc.SystemOut)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d test cases, want 2", seen)
	}
}
