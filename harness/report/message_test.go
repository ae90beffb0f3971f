package report

import "testing"

func TestSplitVerdict(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		want      verdict
	}{
		{"a failure as the suites write it",
			"requirement (MUST, PG-02): answer ping\nexpected: the result {}\nobserved: error 0\nnote: late\nseed: 7 (reproduce with --seed 7)\ntranscript (last lines):\n  c2s ping",
			verdict{"expected", "the result {}", "error 0", "note: late\nseed: 7 (reproduce with --seed 7)"}},
		{"Gomega's observed, over lines",
			"requirement (MUST, JR-07): r\nobserved: Expected\n    <int>: 1\nto equal\n    <int>: 2",
			verdict{"", "", "Expected\n    <int>: 1\nto equal\n    <int>: 2", ""}},
		{"a hardened miss",
			"requirement (MUST, NG-03): r\nexpected (hardened profile): 20 lines\nobserved: 21",
			verdict{"expected (hardened profile)", "20 lines", "21", ""}},
		{"a baseline's expected failure",
			"expected failure: known bug; requirement (MUST, ST-03): r\nexpected: nothing\nobserved: a banner",
			verdict{"expected", "nothing", "a banner", "expected failure: known bug"}},
		{"a snapshot diff",
			"requirement (MUST, ST-03): r\ntranscript differs from its snapshot:\n- a\n+ b\ntranscript (last lines):\n  c2s x",
			verdict{"", "", "", "transcript differs from its snapshot:\n- a\n+ b"}},
		{"an outcome without a verdict", "the adapter does not declare sampling; declare it",
			verdict{"", "", "", "the adapter does not declare sampling; declare it"}},
	} {
		if got := splitVerdict(tc.msg); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}
