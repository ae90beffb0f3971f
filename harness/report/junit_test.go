package report

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/internal/junitxsd"
)

func syntheticReport() types.Report {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return types.Report{
		SuiteDescription: "mcpconform",
		SuitePath:        "/abs/suites",
		StartTime:        start,
		EndTime:          start.Add(time.Second),
		RunTime:          time.Second,
		SpecReports: types.SpecReports{
			{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed},
			{
				LeafNodeType: types.NodeTypeIt,
				LeafNodeText: "[stdio.server.banner] writes nothing but JSON-RPC on stdout",
				State:        types.SpecStateFailed,
				Failure: types.Failure{Message: "ginkgo's own message",
					Location: types.CodeLocation{FileName: "/abs/suites/server/banner.go", LineNumber: 12}},
			},
			{LeafNodeType: types.NodeTypeAfterSuite, State: types.SpecStateFailed,
				Failure: types.Failure{Message: "teardown failed", Location: types.CodeLocation{FileName: "/abs/suites/run/suite.go", LineNumber: 3}}},
		},
	}
}

// everyOutcome is an index with one check of each outcome over two
// transports, and two checks the run did not select.
func everyOutcome() *Index {
	var rs []check.Result
	for i, o := range Outcomes {
		r := result("server.area"+string(rune('a'+i))+".check", o, "requirement (MUST, ST-01): a rule\nexpected: one thing\nobserved: <another> & \"more\"")
		if i%2 == 1 {
			r.Transport = check.HTTP
		}
		rs = append(rs, r)
	}
	left := result("server.left.out", check.Skipped, NotSelected)
	noURL := result("http.server.no-url", check.Skipped, NoServerURL)
	noURL.Transport = check.HTTP
	client := result("stdio.client.hello", check.Warn, "observed: slow")
	client.Role = check.Client
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1.2"}, nil, 7, append(rs, left, noURL, client))
	ix.Profile = check.SpecProfile
	ix.CertifiedEras = CertifiedEras{check.Server: {check.Legacy, check.Modern}, check.Client: {check.Legacy}}
	return ix
}

func writeJUnit(t *testing.T, ix *Index) (string, reporters.JUnitTestSuites) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := WriteJUnit(syntheticReport(), ix, path); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, path)
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal([]byte(data), &suites); err != nil {
		t.Fatalf("not valid XML: %v\n%s", err, data)
	}
	return data, suites
}

func TestJUnitFollowsTheIndex(t *testing.T) {
	ix := everyOutcome()
	data, suites := writeJUnit(t, ix)
	if !strings.HasPrefix(data, xml.Header) {
		t.Error("missing XML header")
	}
	var names []string
	cases := map[string]reporters.JUnitTestCase{}
	for _, s := range suites.TestSuites {
		names = append(names, s.Name)
		for _, tc := range s.TestCases {
			id, _, _ := strings.Cut(strings.TrimPrefix(tc.Name, "["), "]")
			cases[id] = tc
		}
	}
	if want := []string{"client stdio", "server http", "server stdio", junitSuiteNodes}; !reflect.DeepEqual(names, want) {
		t.Errorf("suites %q, want %q", names, want)
	}
	if _, ok := cases["server.left.out"]; ok {
		t.Error("a check the selection left out is a test case")
	}
	if _, ok := cases["http.server.no-url"]; ok {
		t.Error("a check of a transport the run did not name is a test case")
	}
	// Every check but the two left out, and the failed AfterSuite.
	if want := len(ix.Checks) - 2 + 1; suites.Tests != want || len(cases) != want {
		t.Errorf("tests=%d cases=%d, want %d", suites.Tests, len(cases), want)
	}
	skipped := 0
	for _, s := range suites.TestSuites {
		skipped += s.Skipped
	}
	s := ix.Summary
	if want := s.Warn + s.Hardened + s.Unimplemented + s.NotApplicable + s.XFail + s.Skipped - 2; skipped != want {
		t.Errorf("skipped=%d, want the index's %d", skipped, want)
	}
	if suites.Failures != s.Fail+s.Stale || suites.Errors != s.Error+1 {
		t.Errorf("failures=%d errors=%d", suites.Failures, suites.Errors)
	}
	for _, c := range ix.Checks {
		tc, ok := cases[c.ID]
		if !ok {
			continue
		}
		if tc.Status != string(c.Outcome) || tc.Classname != area(c.ID) {
			t.Errorf("%s: status %q classname %q", c.ID, tc.Status, tc.Classname)
		}
		full := strings.TrimSpace(c.Message)
		switch c.Outcome {
		case check.Fail, check.Stale:
			if tc.Failure == nil || tc.Failure.Description != full || tc.Failure.Type != string(c.Outcome) {
				t.Errorf("%s: failure %+v", c.ID, tc.Failure)
			}
		case check.Error:
			if tc.Error == nil || tc.Error.Description != full {
				t.Errorf("%s: error %+v", c.ID, tc.Error)
			}
		case check.ExpectedFail:
			if tc.Skipped == nil || tc.Skipped.Message != "expected failure: "+full {
				t.Errorf("%s: skipped %+v", c.ID, tc.Skipped)
			}
		case check.Unimplemented, check.NotApplicable, check.Skipped, check.Warn, check.HardenedMiss:
			if tc.Skipped == nil || !strings.HasSuffix(tc.Skipped.Message, full) {
				t.Errorf("%s: skipped %+v", c.ID, tc.Skipped)
			}
		default:
			if tc.Failure != nil || tc.Error != nil || tc.Skipped != nil || !strings.Contains(tc.SystemOut, "observed:") {
				t.Errorf("%s: %s is not a pass with its message in system-out: %+v", c.ID, c.Outcome, tc)
			}
		}
	}
	if tc := cases["server.areaa.check"]; tc.Time != 0.012 {
		t.Errorf("time %v, want the index's 12 ms", tc.Time)
	}
	if after := suites.TestSuites[3].TestCases; len(after) != 1 || after[0].Name != "[AfterSuite]" || after[0].Error.Description != "teardown failed" {
		t.Errorf("suite nodes %+v", after)
	}
	if strings.Contains(data, "/abs/") || strings.Contains(data, ".go:") || strings.Contains(data, "ginkgo's own message") {
		t.Errorf("the report holds a source path or Ginkgo's verdict:\n%s", data)
	}
	if got := suites.TestSuites[0].Properties.WithName("profile"); got != "spec" {
		t.Errorf("profile property %q", got)
	}
	if strings.Contains(data, `value="&#34;`) {
		t.Errorf("property values are quoted:\n%s", data)
	}
}

func TestJUnitValidatesAgainstTheSchema(t *testing.T) {
	data, _ := writeJUnit(t, everyOutcome())
	if problems := schemaProblems(t, data); len(problems) > 0 {
		t.Errorf("the JUnit report breaks %s:\n%s\n%s", junitxsd.SchemaName, strings.Join(problems, "\n"), data)
	}
	empty, _ := writeJUnit(t, NewIndex(Tool{Name: "mcpconform"}, nil, 0, nil))
	if problems := schemaProblems(t, empty); len(problems) > 0 {
		t.Errorf("an empty run's report breaks the schema: %q", problems)
	}
}

func schemaProblems(t *testing.T, doc string) []string {
	t.Helper()
	problems, err := junitxsd.Validate([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return problems
}

func TestWriteJUnitPathIsDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "junit.xml")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteJUnit(syntheticReport(), everyOutcome(), target)
	if err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	wantContains(t, err.Error(), target, "is a directory")
	if got := dirEntries(t, dir); !reflect.DeepEqual(got, []string{"junit.xml"}) {
		t.Errorf("directory holds %v", got)
	}
}

// TestJUnitViewerSummaryShowsTheWarnings reads the XML as a CI dashboard
// does (dorny/test-reporter, GitLab, Jenkins' JUnit plugin): per test
// case, a failure or an error element fails it, a skipped element skips
// it with its message, anything else passed; the summary lists the failed
// and the skipped cases with their messages. A WARN and a HARDENED must be
// in it, not among the passes.
func TestJUnitViewerSummaryShowsTheWarnings(t *testing.T) {
	data, _ := writeJUnit(t, everyOutcome())
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Error   *struct{} `xml:"error"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(data), &doc); err != nil {
		t.Fatal(err)
	}
	shown := map[string]string{} // the summary: case name → what it says
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil:
				shown[c.Name] = "failed"
			case c.Error != nil:
				shown[c.Name] = "error"
			case c.Skipped != nil:
				shown[c.Name] = "skipped: " + c.Skipped.Message
			}
		}
	}
	for name, want := range map[string]string{
		"[stdio.client.hello] title of stdio.client.hello": "skipped: warn: observed: slow",
		"[server.aread.check] title of server.aread.check": "skipped: hardened: requirement",
		"[server.areac.check] title of server.areac.check": "skipped: warn: requirement",
		"[server.areab.check] title of server.areab.check": "failed",
		"[server.areaa.check] title of server.areaa.check": "",
	} {
		if got := shown[name]; !strings.HasPrefix(got, want) || (want == "" && got != "") {
			t.Errorf("a viewer shows %s as %q, want %q…", name, got, want)
		}
	}
	if problems := schemaProblems(t, data); len(problems) > 0 {
		t.Errorf("the document breaks the schema: %v", problems)
	}
}
