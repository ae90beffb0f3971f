package report

import (
	"regexp"
	"strings"
)

// The parts of a check's message that the suites write (suites/run): a
// failure opens with the requirement and ends with the transcript's tail.
const (
	requirementPrefix = "requirement ("
	transcriptTail    = "\ntranscript (last lines):"
)

// verdictText is a message without what a report shows apart: the
// requirement on its first line (the words before it, such as a baseline's
// "expected failure: reason;", stay) and the transcript's tail.
func verdictText(msg string) string {
	msg, _, _ = strings.Cut(strings.TrimSpace(msg), transcriptTail)
	first, rest, more := strings.Cut(msg, "\n")
	if i := strings.Index(first, requirementPrefix); i >= 0 && more {
		first = strings.TrimSuffix(strings.TrimSpace(first[:i]), ";")
		if first == "" {
			return rest
		}
		return first + "\n" + rest
	}
	return msg
}

// verdict is a message split as the HTML shows it: what was expected (under
// its label, "expected" or "expected (hardened profile)") beside what was
// observed, and every other line (notes, the seed, a snapshot diff, or the
// whole message of an outcome without a verdict).
type verdict struct {
	ExpectedLabel, Expected, Observed, Other string
}

// messageLabel is a line that opens a part of a message: "expected:",
// "observed:", "note:", "seed: 7 (…)". A continuation line (indented, or
// Gomega's "to equal") opens none.
var messageLabel = regexp.MustCompile(`^([a-z][a-z ()-]*):(?:\s|$)`)

func splitVerdict(msg string) verdict {
	var v verdict
	var expected, observed, other []string
	part := &other
	for _, line := range strings.Split(verdictText(msg), "\n") {
		if m := messageLabel.FindStringSubmatch(line); m != nil {
			switch label := m[1]; {
			case label == "expected" || strings.HasPrefix(label, "expected ("):
				v.ExpectedLabel, part = label, &expected
				line = strings.TrimSpace(line[len(m[0]):])
			case label == "observed":
				part = &observed
				line = strings.TrimSpace(line[len(m[0]):])
			default:
				part = &other
			}
		}
		*part = append(*part, line)
	}
	join := func(lines []string) string { return strings.TrimSpace(strings.Join(lines, "\n")) }
	v.Expected, v.Observed, v.Other = join(expected), join(observed), join(other)
	return v
}
