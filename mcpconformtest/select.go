package mcpconformtest

import (
	"flag"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
)

// selection is the checks of role a run needs to run: those that the
// Only option, go test's -run and -skip at the level of the checks'
// subtests, and -short (the checks that declare no wait) all select. all
// says no filter narrows the catalogue; none, that the filters exclude
// every check.
func selection(role check.Role, test string, only []string, short, fuzz bool) (ids []string, all bool, err error) {
	run, err := levelPattern("test.run", test)
	if err != nil {
		return nil, false, err
	}
	skip, err := levelPattern("test.skip", test)
	if err != nil {
		return nil, false, err
	}
	if run == nil && skip == nil && !short && len(only) == 0 {
		return nil, true, nil
	}
	for _, d := range check.All() {
		switch {
		case d.Role != role, d.Fuzz && !fuzz,
			len(only) > 0 && !slices.Contains(only, d.ID),
			run != nil && !run.MatchString(d.ID),
			skip != nil && skip.MatchString(d.ID),
			short && len(d.Waits) > 0:
			continue
		}
		ids = append(ids, d.ID)
	}
	return ids, false, nil
}

// levelPattern is the element of go test's -run or -skip (flag name) that
// selects the subtests of the test named test, or nil when it does not
// narrow them. go test runs test only when -run selects it; -skip skips
// a subtest when its elements match the subtest's name and its parents'.
func levelPattern(name, test string) (*regexp.Regexp, error) {
	f := flag.Lookup(name)
	if f == nil || f.Value.String() == "" {
		return nil, nil
	}
	parents := strings.Split(test, "/")
	parts := splitPattern(f.Value.String())
	level := len(parents)
	if len(parts) <= level || parts[level] == "" {
		return nil, nil
	}
	if name == "test.skip" {
		if len(parts) != level+1 {
			return nil, nil
		}
		for i, parent := range parents {
			if ok, err := regexp.MatchString(parts[i], parent); err != nil || !ok {
				return nil, err
			}
		}
	}
	return regexp.Compile(parts[level])
}

// splitPattern splits a -run pattern at the slashes outside brackets and
// parentheses, as go test does.
func splitPattern(p string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth = max(0, depth-1)
		case '\\':
			i++
		case '/':
			if depth == 0 {
				parts = append(parts, p[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, p[start:])
}
