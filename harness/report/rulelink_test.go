package report

import (
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/mcpconform/mcpconform/harness/check"
)

func TestMarkdownLinksRules(t *testing.T) {
	a := result("a.fail", check.Fail, "broken")
	a.Rules = []string{"ST-01", "NG-02", "XX-99"}
	md := string(RenderMarkdown(NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 5, []check.Result{a})))
	want := "| [ST-01](https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio), NG-02, XX-99 |"
	if strings.Count(md, want) != 2 {
		t.Errorf("the attention table and the full table do not both link the rules as %q:\n%s", want, md)
	}
}

func TestJUnitRuleURLProperties(t *testing.T) {
	report := syntheticReport()
	report.SpecReports[1].LeafNodeLabels = append(report.SpecReports[1].LeafNodeLabels, "rule:ST-01", "rule:NG-02", "rule:XX-99")
	report.SpecReports[2].LeafNodeLabels = append(report.SpecReports[2].LeafNodeLabels, "rule:ST-03")
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := WriteJUnit(report, path); err != nil {
		t.Fatal(err)
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal([]byte(readFile(t, path)), &suites); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range suites.TestSuites[0].TestCases {
		// A failed spec's timeline shows the rule URLs too.
		if strings.HasPrefix(tc.Name, "[stdio.server.banner]") && (tc.Properties == nil || !strings.Contains(tc.SystemErr, "ST-03 https://")) {
			t.Errorf("%s: system-err %q properties %+v, want the rule URL in both", tc.Name, tc.SystemErr, tc.Properties)
		}
		if tc.Name != "stdio server [stdio.server.ping] answers ping" {
			continue
		}
		if tc.SystemErr != "" {
			t.Errorf("the rule URLs show in the timeline: %q", tc.SystemErr)
		}
		if tc.Properties != nil {
			for _, p := range tc.Properties.Properties {
				got = append(got, p.Name+"="+p.Value)
			}
		}
	}
	want := []string{
		`rule_url="ST-01 https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio"`,
		`rule_url="NG-02 seeds/neograph-stdio-client-config.txt"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("properties\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(report.SpecReports[1].ReportEntries) != 0 {
		t.Error("WriteJUnit changed the report it was given")
	}
}
