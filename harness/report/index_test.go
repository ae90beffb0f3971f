package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestJSONIndexFieldNames(t *testing.T) {
	withExtras := result("stdio.server.prop", check.Fail, "boom")
	withExtras.Seed = 7
	withExtras.Transcript = []string{`c2s {"id":"<n1>"}`}
	noRules := result("stdio.server.bare", check.Pass, "")
	noRules.Rules = nil
	judged := result("x.server.both", check.Pass, "stdio: PASS; http: PASS")
	judged.Transport, judged.Transports = check.Any, []check.Transport{check.Stdio, check.HTTP}
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1.0"}, nil, 99, []check.Result{withExtras, noRules, judged})

	path := filepath.Join(t.TempDir(), "index.json")
	if err := WriteJSON(path, ix); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &doc); err != nil {
		t.Fatal(err)
	}
	assertKeys := func(what string, m any, want ...string) {
		t.Helper()
		obj, ok := m.(map[string]any)
		if !ok {
			t.Fatalf("%s is %T, want an object", what, m)
		}
		sort.Strings(want)
		if got := keys(obj); !reflect.DeepEqual(got, want) {
			t.Errorf("%s keys = %v, want %v", what, got, want)
		}
	}
	assertKeys("index", doc, "tool", "target", "summary", "scores", "seed", "interrupted", "checks")
	assertKeys("tool", doc["tool"], "name", "version")
	assertKeys("target", doc["target"])
	assertKeys("summary", doc["summary"], "pass", "fail", "warn", "info", "unimplemented", "skipped", "not_applicable", "xfail", "stale", "hardened", "error")
	checks := doc["checks"].([]any)
	if len(checks) != 3 {
		t.Fatalf("checks = %v", checks)
	}
	common := []string{"id", "title", "requirement", "outcome", "level", "source", "role", "transport", "eras", "rules", "duration_ms", "message"}
	assertKeys("checks[0]", checks[0], common...)
	assertKeys("checks[1]", checks[1], append(common, "seed", "transcript")...)
	assertKeys("checks[2]", checks[2], append(common, "transports")...)
	if ts := checks[2].(map[string]any)["transports"]; !reflect.DeepEqual(ts, []any{"stdio", "http"}) {
		t.Errorf("transports = %v, want [stdio http]", ts)
	}
	bare := checks[0].(map[string]any)
	if rules, ok := bare["rules"].([]any); !ok || len(rules) != 0 {
		t.Errorf("rules of a check without rules = %#v, want []", bare["rules"])
	}
	if doc["seed"] != 99.0 || checks[1].(map[string]any)["seed"] != 7.0 {
		t.Errorf("seeds = %v, %v", doc["seed"], checks[1].(map[string]any)["seed"])
	}
	if o := checks[1].(map[string]any)["outcome"]; o != "FAIL" {
		t.Errorf("outcome = %v, want FAIL", o)
	}
}

func TestNewIndexSortsAndCounts(t *testing.T) {
	var rs []check.Result
	for i, o := range []check.Outcome{check.Pass, check.Pass, check.Fail, check.Warn, check.Info, check.Unimplemented,
		check.Skipped, check.Skipped, check.Skipped, check.ExpectedFail, check.Stale} {
		rs = append(rs, result(string(rune('k'-i))+".check", o, ""))
	}
	ix := NewIndex(Tool{}, nil, 0, rs)
	want := Summary{Pass: 2, Fail: 1, Warn: 1, Info: 1, Unimplemented: 1, Skipped: 3, XFail: 1, Stale: 1}
	if ix.Summary != want {
		t.Errorf("summary = %+v, want %+v", ix.Summary, want)
	}
	if ix.Summary.Total() != len(rs) {
		t.Errorf("total = %d, want %d", ix.Summary.Total(), len(rs))
	}
	for i := 1; i < len(ix.Checks); i++ {
		if ix.Checks[i-1].ID > ix.Checks[i].ID {
			t.Fatalf("checks not sorted by ID: %s before %s", ix.Checks[i-1].ID, ix.Checks[i].ID)
		}
	}
}

func TestExitCode(t *testing.T) {
	cases := []struct {
		outcomes []check.Outcome
		want     int
	}{
		{nil, 0},
		{[]check.Outcome{check.Pass, check.Warn, check.Info, check.Unimplemented, check.Skipped, check.ExpectedFail}, 0},
		{[]check.Outcome{check.Pass, check.Fail}, 1},
		{[]check.Outcome{check.Pass, check.Stale}, 1},
	}
	for _, c := range cases {
		var rs []check.Result
		for i, o := range c.outcomes {
			rs = append(rs, result(string(rune('a'+i)), o, ""))
		}
		if got := NewIndex(Tool{}, nil, 0, rs).ExitCode(); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.outcomes, got, c.want)
		}
	}
}

// TestVerdictSaysWhatTheRunWas: every report takes its headline from
// Verdict, so an interrupted run or one that judged nothing never says
// passed.
func TestVerdictSaysWhatTheRunWas(t *testing.T) {
	index := func(interrupted bool, outcomes ...check.Outcome) *Index {
		var rs []check.Result
		for i, o := range outcomes {
			rs = append(rs, result(fmt.Sprintf("a.%d", i), o, ""))
		}
		ix := NewIndex(Tool{Name: "mcpconform"}, nil, 0, rs)
		ix.Interrupted = interrupted
		return ix
	}
	for _, tc := range []struct {
		ix   *Index
		want string
	}{
		{index(false, check.Pass, check.Skipped), VerdictPassed},
		{index(false, check.Pass, check.Fail), VerdictFailed},
		{index(true, check.Pass, check.Skipped), VerdictInterrupted},
		{index(true, check.Fail), VerdictFailed},
		{index(false, check.Skipped, check.NotApplicable, check.Unimplemented), VerdictNothingJudged},
	} {
		if got := tc.ix.Verdict(); got != tc.want {
			t.Errorf("%v (interrupted %v): %q, want %q", tc.ix.Summary, tc.ix.Interrupted, got, tc.want)
		}
		if _, green := BadgeText(tc.ix); green != (tc.want == VerdictPassed) {
			t.Errorf("%q: the badge is green %v", tc.want, green)
		}
		md := string(RenderMarkdown(tc.ix))
		if !strings.Contains(md, ": "+tc.want+"\n") {
			t.Errorf("the Markdown headline does not say %q:\n%.200s", tc.want, md)
		}
	}
}
