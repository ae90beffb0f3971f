package report

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// junitConfig keeps what a CI test view needs: one test case per spec, named
// by its text (the suites name specs "[check.id] title"), failure messages
// and, for specs that did not pass, the timeline. It leaves out the leaf
// node type and the labels (they repeat the descriptor the name already
// identifies) and captured stdout/stderr (the transcript is in the other
// reports).
var junitConfig = reporters.JunitReportConfig{
	OmitTimelinesForSpecState:          types.SpecStatePassed | types.SpecStateSkipped | types.SpecStatePending,
	OmitCapturedStdOutErr:              true,
	OmitSpecLabels:                     true,
	OmitSpecSemVerConstraints:          true,
	OmitSpecComponentSemVerConstraints: true,
	OmitLeafNodeType:                   true,
}

// WriteJUnit writes report as JUnit XML to path through Ginkgo's own
// reporter, atomically: Ginkgo writes a temporary file in the same directory,
// which is synced, checked to be well-formed XML and renamed over path.
//
// Suite-level nodes (BeforeSuite, AfterSuite, …) appear only when they did
// not pass, named after their node type.
func WriteJUnit(report types.Report, path string) error {
	report.SpecReports = junitSpecs(report.SpecReports)

	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("JUnit report %s: create directory: %w; choose a path in a writable directory", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("JUnit report %s: it is a directory; name a file inside it instead", path)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("JUnit report %s: %w; choose a path in a writable directory", path, err)
	}
	tmpName := tmp.Name()
	tmp.Close()
	fail := func(step string, err error) error {
		os.Remove(tmpName)
		return fmt.Errorf("JUnit report %s: %s: %w; check the free space and permissions of %s, or choose another path", path, step, err, dir)
	}
	if err := reporters.GenerateJUnitReportWithConfig(report, tmpName, junitConfig); err != nil {
		return fail("generate", err)
	}
	// Ginkgo's generator does not report encoding errors, so check what it wrote.
	data, err := os.ReadFile(tmpName)
	if err != nil {
		return fail("read back", err)
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal(data, &suites); err != nil {
		return fail("verify", err)
	}
	if err := syncAndChmod(tmpName); err != nil {
		return fail("sync", err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return fail("rename", err)
	}
	syncDir(dir)
	return nil
}

// junitSpecs drops suite-level nodes that passed or were skipped and names
// the others, whose text is empty once the node type is left out.
func junitSpecs(specs types.SpecReports) types.SpecReports {
	out := make(types.SpecReports, 0, len(specs))
	for _, s := range specs {
		if s.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) {
			if s.State.Is(types.SpecStatePassed | types.SpecStateSkipped | types.SpecStatePending) {
				continue
			}
			if s.FullText() == "" {
				s.LeafNodeText = fmt.Sprintf("[%s]", s.LeafNodeType)
			}
		}
		out = append(out, withRuleURLs(s))
	}
	// By check ID, suite-level nodes last, so that the report does not
	// depend on the order the specs ran in (a seed, or a parallel run's
	// workers).
	slices.SortStableFunc(out, func(a, b types.SpecReport) int { return strings.Compare(junitKey(a), junitKey(b)) })
	return out
}

// junitKey orders a spec: its check ID (the suites name specs "[id]
// title"), or after every check for a node that is none.
func junitKey(s types.SpecReport) string {
	if rest, ok := strings.CutPrefix(s.LeafNodeText, "["); ok {
		if id, _, ok := strings.Cut(rest, "]"); ok && s.LeafNodeType == types.NodeTypeIt {
			return id
		}
	}
	return "\uffff"
}

func syncAndChmod(name string) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
