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
)

func syntheticReport() types.Report {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return types.Report{
		SuiteDescription: "mcpconform",
		SuitePath:        "/suites",
		StartTime:        start,
		EndTime:          start.Add(time.Second),
		RunTime:          time.Second,
		SpecReports: types.SpecReports{
			{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed},
			{
				ContainerHierarchyTexts: []string{"stdio server"},
				LeafNodeType:            types.NodeTypeIt,
				LeafNodeText:            "[stdio.server.ping] answers ping",
				LeafNodeLabels:          []string{"id:stdio.server.ping", "level:MUST"},
				State:                   types.SpecStatePassed,
				RunTime:                 20 * time.Millisecond,
				CapturedStdOutErr:       "noise from the server",
			},
			{
				LeafNodeType:   types.NodeTypeIt,
				LeafNodeText:   "[stdio.server.banner] writes nothing but JSON-RPC on stdout",
				LeafNodeLabels: []string{"id:stdio.server.banner"},
				State:          types.SpecStateFailed,
				RunTime:        30 * time.Millisecond,
				Failure:        types.Failure{Message: "server wrote a <banner> & more"},
			},
			{LeafNodeType: types.NodeTypeAfterSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: "teardown failed"}},
		},
	}
}

func TestWriteJUnit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "junit.xml")
	if err := WriteJUnit(syntheticReport(), path); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, path)
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal([]byte(data), &suites); err != nil {
		t.Fatalf("not valid JUnit XML: %v\n%s", err, data)
	}
	if len(suites.TestSuites) != 1 {
		t.Fatalf("got %d suites", len(suites.TestSuites))
	}
	var names []string
	for _, tc := range suites.TestSuites[0].TestCases {
		names = append(names, tc.Name)
	}
	// Ordered by check ID, whatever order the specs ran in.
	want := []string{
		"[stdio.server.banner] writes nothing but JSON-RPC on stdout",
		"stdio server [stdio.server.ping] answers ping",
		"[AfterSuite]",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("test case names = %q, want %q", names, want)
	}
	cases := suites.TestSuites[0].TestCases
	if cases[0].Failure == nil || cases[0].Failure.Message != "server wrote a <banner> & more" {
		t.Errorf("failure = %+v", cases[0].Failure)
	}
	if cases[1].SystemOut != "" || cases[1].SystemErr != "" {
		t.Errorf("passing spec carries output: %q / %q", cases[1].SystemOut, cases[1].SystemErr)
	}
	if suites.Failures != 2 || suites.Tests != 3 {
		t.Errorf("tests=%d failures=%d, want 3 and 2", suites.Tests, suites.Failures)
	}
	if got := dirEntries(t, dir); !reflect.DeepEqual(got, []string{"junit.xml"}) {
		t.Errorf("directory holds %v", got)
	}
	if !strings.HasPrefix(data, xml.Header) {
		t.Error("missing XML header")
	}
}

func TestWriteJUnitPathIsDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "junit.xml")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteJUnit(syntheticReport(), target)
	if err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	wantContains(t, err.Error(), target, "is a directory")
	if got := dirEntries(t, dir); !reflect.DeepEqual(got, []string{"junit.xml"}) {
		t.Errorf("directory holds %v", got)
	}
}
