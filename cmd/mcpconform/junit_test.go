package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/internal/junitxsd"
)

// TestServerRunJUnitMatchesJSON certifies the reference server: its JUnit
// report holds one test case per check of the JSON index, in a testsuite
// per transport, skips counted as the index counts them, no path of this
// checkout, and the file valid against the published JUnit schema.
func TestServerRunJUnitMatchesJSON(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("certifies the reference server")
	}
	dir := t.TempDir()
	js, junit := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	code, out := runChild("server", "--no-color", "--json", js, "--junit", junit)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var ix report.Index
	readJSON(t, js, &ix)
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatal(err)
	}
	cases, skipped := 0, 0
	var names []string
	for _, s := range suites.TestSuites {
		names = append(names, s.Name)
		cases += len(s.TestCases)
		skipped += s.Skipped
	}
	if cases != len(ix.Checks) || suites.Tests != len(ix.Checks) {
		t.Errorf("JUnit holds %d test cases (tests=%d), the JSON %d checks", cases, suites.Tests, len(ix.Checks))
	}
	s := ix.Summary
	if want := s.Unimplemented + s.NotApplicable + s.XFail + s.Skipped; skipped != want {
		t.Errorf("JUnit skipped=%d, the JSON %d", skipped, want)
	}
	if strings.Join(names, ",") != "server any,server http,server stdio" {
		t.Errorf("testsuites %q", names)
	}
	problems, err := junitxsd.Validate(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("the JUnit report breaks %s:\n%s", junitxsd.SchemaName, strings.Join(problems, "\n"))
	}
	wd, _ := os.Getwd()
	if root := filepath.Dir(filepath.Dir(wd)); strings.Contains(string(data), root) {
		t.Errorf("the JUnit report holds the path %s", root)
	}
	t.Logf("%d checks, %d test cases, %d skipped", len(ix.Checks), cases, skipped)
}
