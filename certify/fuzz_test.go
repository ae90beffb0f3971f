package certify

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/mcpconform/mcpconform/harness/fuzz"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/internal/junitxsd"
)

// TestFuzzJUnitIsTheChecksJUnit: the fuzz run's JUnit report comes from
// the checks' writer: a testcase per invariant and target, a new finding a
// failure with its case and transcript, a SHOULD broken and a known
// finding skipped with their messages, the others passed; the document
// validates against the published JUnit schema.
func TestFuzzJUnitIsTheChecksJUnit(t *testing.T) {
	doc := FuzzJSON{Tool: map[string]string{"name": "mcpconform", "version": "dev"}, Seed: 7, Targets: []FuzzTargetJSON{{
		Target: "the reference server over stdio", Transport: "stdio", ElapsedMS: 1500,
		Findings: []FindingJSON{
			{Signature: "one-response-abc", Count: 3, Invariant: string(fuzz.OneResponse), Detail: "two replies to id 4", Case: "frames…", Transcript: []string{"→ ping", "← pong", "← pong"}},
			{Signature: "alive-def", Count: 1, Known: "planted", Invariant: string(fuzz.Alive), Detail: "exited 2"},
		},
		Warnings: []FindingJSON{{Invariant: string(fuzz.StdoutJSON), Detail: "a blank line", Case: "frames…"}},
	}}}
	path := filepath.Join(t.TempDir(), "fuzz.xml")
	if err := report.WriteJUnitDocument(fuzzJUnit(doc, time.Unix(0, 0)), path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := junitxsd.Validate(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("the fuzz JUnit breaks %s:\n%s\n%s", junitxsd.SchemaName, strings.Join(problems, "\n"), data)
	}
	var got reporters.JUnitTestSuites
	if err := xml.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.TestSuites) != 1 || got.Tests != len(fuzz.Invariants()) || got.Failures != 1 || got.TestSuites[0].Skipped != 2 {
		t.Fatalf("tests=%d failures=%d suites=%d, want %d tests, 1 failure, 2 skipped:\n%s", got.Tests, got.Failures, len(got.TestSuites), len(fuzz.Invariants()), data)
	}
	s := got.TestSuites[0]
	if s.Name != "fuzz stdio: the reference server over stdio" || s.Time != 1.5 {
		t.Errorf("suite %q, time %v", s.Name, s.Time)
	}
	for _, tc := range s.TestCases {
		switch tc.Name {
		case string(fuzz.OneResponse):
			if tc.Failure == nil || tc.Failure.Message != "one-response-abc: two replies to id 4" || !strings.Contains(tc.Failure.Description, "← pong") {
				t.Errorf("the new finding's testcase: %+v", tc)
			}
		case string(fuzz.Alive):
			if tc.Skipped == nil || !strings.HasPrefix(tc.Skipped.Message, "expected failure: KNOWN alive-def") || !strings.Contains(tc.Skipped.Message, "planted") {
				t.Errorf("the known finding's testcase: %+v", tc)
			}
		case string(fuzz.StdoutJSON):
			if tc.Skipped == nil || !strings.HasPrefix(tc.Skipped.Message, "warn: SHOULD: a blank line") {
				t.Errorf("the warning's testcase: %+v", tc)
			}
		default:
			if tc.Failure != nil || tc.Skipped != nil || tc.Error != nil || tc.Classname != "fuzz.stdio" {
				t.Errorf("testcase %s: %+v", tc.Name, tc)
			}
		}
	}
}
