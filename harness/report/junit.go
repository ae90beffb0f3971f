package report

import (
	"encoding/xml"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/harness/check"
)

// Messages of the SKIPPED checks a run did not select: the selection
// (--only, --skip, labels) left them out, or the run named no server over
// their transport. The JUnit report leaves them out, as a test view shows
// what ran; the JSON index keeps them.
const (
	NotSelected     = "not selected"
	NoServerURL     = "no --url given: HTTP checks need a streamable HTTP endpoint (mcpconform server --url URL)"
	NoServerCommand = "no server command given: stdio checks need one (mcpconform server -- CMD…)"
)

// LeftOut reports whether the run did not select c (see NotSelected).
func LeftOut(c Check) bool {
	if c.Outcome != check.Skipped {
		return false
	}
	switch c.Message {
	case NotSelected, NoServerURL, NoServerCommand:
		return true
	}
	return false
}

// junitSuiteNodes names the testsuite of the suite-level nodes (BeforeSuite,
// AfterSuite, …) that did not pass.
const junitSuiteNodes = "mcpconform suite nodes"

// WriteJUnit writes the JUnit XML report of a run to path with WriteFile. Its
// outcomes are the index's (XFAIL, STALE, WARN, HARDENED, N/A … are not
// Ginkgo states); report, Ginkgo's, gives the run's start and length and
// the suite-level nodes that did not pass. The shape is Ginkgo's reporter
// types, so that it is what Ginkgo's own JUnit report is:
//
//   - one testsuite per role and transport that ran ("server http"), each
//     check a testcase named "[id] title", its classname the ID's area
//     (server.lifecycle for server.lifecycle.initialize-result), its status
//     the index outcome; the suites in name order, their properties the
//     run's (tool, profile, seed, scores, certified_eras) as plain values
//     (the schema gives a testcase none: a check's eras and its rules'
//     links are lines of its system-out, "eras legacy, modern");
//   - FAIL and STALE a failure, ERROR an error, each with the full message;
//   - INFO and PASS passed, the message in system-out;
//   - WARN, HARDENED (which fail nothing, but a passed test case would hide
//     them from a dashboard's summary), UNIMPLEMENTED, N/A, SKIPPED and
//     XFAIL skipped, with the message ("warn: …");
//   - checks the run did not select left out (LeftOut).
//
// Nothing holds a source path: Ginkgo's failure locations are not written.
// Pass both redacted.
func WriteJUnit(report types.Report, ix *Index, path string) error {
	return WriteJUnitDocument(JUnit(report, ix), path)
}

// WriteJUnitDocument writes a JUnit document, XML under its header, to
// path with WriteFile: the one writer of the project's JUnit reports (the
// checks' and the fuzzer's).
func WriteJUnitDocument(doc reporters.JUnitTestSuites, path string) error {
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("JUnit report %s: %w", path, err)
	}
	return WriteFile(path, append(append([]byte(xml.Header), data...), '\n'))
}

// JUnit builds the JUnit document WriteJUnit writes.
func JUnit(report types.Report, ix *Index) reporters.JUnitTestSuites {
	timestamp := report.StartTime.UTC().Format("2006-01-02T15:04:05")
	var suites []reporters.JUnitTestSuite
	byName := map[string]int{}
	for _, c := range ix.Checks {
		if LeftOut(c) {
			continue
		}
		name := fmt.Sprintf("%s %s", c.Role, c.Transport)
		i, ok := byName[name]
		if !ok {
			i = len(suites)
			byName[name] = i
			suites = append(suites, reporters.JUnitTestSuite{
				Name: name, Package: "mcpconform", Timestamp: timestamp,
				Properties: reporters.JUnitProperties{Properties: runProperties(ix)},
			})
		}
		suites[i].TestCases = append(suites[i].TestCases, junitCase(c))
	}
	slices.SortStableFunc(suites, func(a, b reporters.JUnitTestSuite) int { return strings.Compare(a.Name, b.Name) })
	if nodes := failedSuiteNodes(report); len(nodes) > 0 {
		suites = append(suites, reporters.JUnitTestSuite{Name: junitSuiteNodes, Package: "mcpconform", Timestamp: timestamp, TestCases: nodes})
	}
	if ix.Stopped != "" {
		// No check ran: one test case carries the reason, so that a CI
		// dashboard shows the run's ERROR.
		suites = append(suites, reporters.JUnitTestSuite{Name: "pre-flight", Package: "mcpconform", Timestamp: timestamp,
			Properties: reporters.JUnitProperties{Properties: runProperties(ix)},
			TestCases: []reporters.JUnitTestCase{{Name: "the targets are MCP implementations", Classname: "preflight", Status: string(check.Error),
				Error: &reporters.JUnitError{Message: ix.Stopped, Type: "stopped", Description: ix.Stopped}}}})
	}
	return JUnitDocument(suites, report.RunTime.Seconds())
}

// JUnitDocument totals suites as JUnit counts them: each suite's tests,
// failures, errors, skips and time from its test cases, the document's
// from its suites; runTime is the document's time in seconds.
func JUnitDocument(suites []reporters.JUnitTestSuite, runTime float64) reporters.JUnitTestSuites {
	out := reporters.JUnitTestSuites{Time: runTime, TestSuites: suites}
	for i := range suites {
		s := &suites[i]
		for _, tc := range s.TestCases {
			s.Tests++
			s.Time += tc.Time
			switch {
			case tc.Failure != nil:
				s.Failures++
			case tc.Error != nil:
				s.Errors++
			case tc.Skipped != nil:
				s.Skipped++
			}
		}
		s.Time = seconds(s.Time)
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
	}
	out.Time = seconds(out.Time)
	return out
}

// runProperties describes the run, as plain values.
func runProperties(ix *Index) []reporters.JUnitProperty {
	ps := []reporters.JUnitProperty{
		{Name: "tool", Value: strings.TrimSpace(ix.Tool.Name + " " + ix.Tool.Version)},
		{Name: "profile", Value: string(ix.Profile)},
		{Name: "seed", Value: strconv.FormatInt(ix.Seed, 10)},
		{Name: "scores", Value: ix.Scores.String()},
	}
	if eras := ix.CertifiedEras.String(); eras != "" {
		ps = append(ps, reporters.JUnitProperty{Name: "certified_eras", Value: eras})
	}
	if ix.Interrupted {
		ps = append(ps, reporters.JUnitProperty{Name: "interrupted_by", Value: ix.InterruptedBy})
	}
	if ix.Stopped != "" {
		ps = append(ps, reporters.JUnitProperty{Name: "stopped", Value: ix.Stopped})
	}
	return ps
}

// junitCase is one check's testcase.
func junitCase(c Check) reporters.JUnitTestCase {
	tc := JUnitTestCase(fmt.Sprintf("[%s] %s", c.ID, c.Title), area(c.ID), c.Outcome, c.Message, float64(c.DurationMS)/1000)
	// The schema gives a test case no properties: its eras and the links
	// of its rules are lines of its system-out.
	lines := append([]string{"eras " + erasText(c.Eras)}, ruleURLLines(c.Rules)...)
	tc.SystemOut = strings.TrimSpace(tc.SystemOut + "\n" + strings.Join(lines, "\n"))
	return tc
}

// JUnitTestCase is the testcase of an outcome with its message, as every
// JUnit report of the project writes one:
//
//   - FAIL and STALE a failure, ERROR an error, each with the full message
//     and its first line as the message attribute;
//   - INFO and PASS passed, the message in system-out;
//   - WARN, HARDENED, UNIMPLEMENTED, N/A, SKIPPED and XFAIL skipped, with
//     the message ("warn: …", "expected failure: …").
func JUnitTestCase(name, classname string, o check.Outcome, message string, seconds float64) reporters.JUnitTestCase {
	tc := reporters.JUnitTestCase{Name: name, Classname: classname, Status: string(o), Time: seconds}
	msg := strings.TrimSpace(message)
	switch o {
	case check.Fail, check.Stale:
		tc.Failure = &reporters.JUnitFailure{Type: string(o), Message: firstLine(msg), Description: msg}
	case check.Error:
		tc.Error = &reporters.JUnitError{Type: string(o), Message: firstLine(msg), Description: msg}
	case check.ExpectedFail:
		tc.Skipped = &reporters.JUnitSkipped{Message: "expected failure: " + msg}
	case check.Unimplemented, check.NotApplicable, check.Skipped:
		tc.Skipped = &reporters.JUnitSkipped{Message: strings.ToLower(string(o)) + ": " + msg}
	case check.Warn, check.HardenedMiss:
		// They fail nothing, yet a passed test case hides them from a
		// dashboard's summary: a skipped one shows, with its message.
		tc.Skipped = &reporters.JUnitSkipped{Message: strings.ToLower(string(o)) + ": " + msg}
	default: // PASS, INFO pass the run
		if msg != "" {
			tc.SystemOut = string(o) + ": " + msg
		}
	}
	return tc
}

// failedSuiteNodes are the suite-level nodes that did not pass, named
// after their node type, their failure without its source location.
func failedSuiteNodes(report types.Report) []reporters.JUnitTestCase {
	var out []reporters.JUnitTestCase
	for _, s := range report.SpecReports {
		if !s.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) || s.State.Is(types.SpecStatePassed|types.SpecStateSkipped|types.SpecStatePending) {
			continue
		}
		msg := strings.TrimSpace(s.Failure.Message)
		if s.Failure.ForwardedPanic != "" {
			msg = strings.TrimSpace(msg + "\npanic: " + s.Failure.ForwardedPanic)
		}
		out = append(out, reporters.JUnitTestCase{
			Name:      fmt.Sprintf("[%s]", s.LeafNodeType),
			Classname: "mcpconform",
			Status:    s.State.String(),
			Time:      seconds(s.RunTime.Seconds()),
			Error:     &reporters.JUnitError{Type: s.State.String(), Message: firstLine(msg), Description: msg},
		})
	}
	return out
}

// area is the part of a check ID before its last dot: the group of
// checks it belongs to.
func area(id string) string {
	if i := strings.LastIndexByte(id, '.'); i > 0 {
		return id[:i]
	}
	return id
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// seconds rounds a duration in seconds to the millisecond, so that sums
// of milliseconds print as such.
func seconds(s float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(s, 'f', 3, 64), 64)
	return v
}
