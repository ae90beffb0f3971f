package run

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

// judgeBoth runs a check of transport any whose body ends over stdio and
// over HTTP as the two functions say, and returns its verdict and the
// transports it was judged on.
func judgeBoth(t *testing.T, level check.Level, profile check.Profile, stdio, http func(c *C)) (verdict, []check.Transport) {
	t.Helper()
	c := &C{D: check.Descriptor{ID: "server.x", Level: level, Transport: check.Any}, cfg: Options{Profile: profile}.WithDefaults()}
	v := runBody(c, func(c *C) {
		c.Conclude([]Judgement{c.JudgeOn(check.Stdio, func() { stdio(c) }), c.JudgeOn(check.HTTP, func() { http(c) })})
	})
	if problem := runCleanups(c); problem != "" {
		t.Fatal(problem)
	}
	return v, c.transports
}

func pass(*C) {}

func fail(what string) func(c *C) {
	return func(c *C) { c.Failf("a response ("+what+")", "none") }
}

// A failure over stdio no longer keeps HTTP from being judged: both are,
// the worst decides, and the message gives each transport's verdict with
// the other's message indented under its name.
func TestConcludeJudgesBothTransports(t *testing.T) {
	httpRan := false
	v, seen := judgeBoth(t, check.MUST, check.SpecProfile, fail("stdio"), func(*C) { httpRan = true })
	if !httpRan || !slices.Equal(seen, []check.Transport{check.Stdio, check.HTTP}) {
		t.Fatalf("after a failure over stdio: HTTP ran %v, judged on %v", httpRan, seen)
	}
	if v.outcome != check.Fail || !strings.HasPrefix(v.message, "stdio: FAIL; http: PASS\nexpected: a response (stdio)\nobserved: none") {
		t.Errorf("verdict %s %q, want FAIL with both transports' verdicts", v.outcome, v.message)
	}

	v, _ = judgeBoth(t, check.SHOULD, check.SpecProfile, fail("stdio"), fail("http"))
	want := "stdio: WARN; http: WARN\nexpected: a response (stdio)\nobserved: none\nhttp (WARN):\n  expected: a response (http)\n  observed: none"
	if v.outcome != check.Fail || v.message != want {
		t.Errorf("both failing: verdict %s %q, want %q", v.outcome, v.message, want)
	}
}

func TestConcludeWorstDecides(t *testing.T) {
	unimplemented := func(c *C) { c.Unimplemented("no fixture") }
	hardened := func(c *C) { c.RequireHardened(false, "a policy", "none") }
	broken := func(c *C) { c.Errorf("the server did not start") }
	notApplicable := func(c *C) { c.NotApplicable("an era it does not serve") }
	should := func(c *C) { c.RequireRule("LC-31", false, "a cancellation", "none") }
	for _, tc := range []struct {
		name        string
		stdio, http func(c *C)
		want        check.Outcome
		hardened    bool
	}{
		{"both pass", pass, pass, check.Pass, false},
		{"pass and N/A", pass, notApplicable, check.Pass, false},
		{"pass and UNIMPLEMENTED", pass, unimplemented, check.Unimplemented, false},
		{"UNIMPLEMENTED and a hardened miss", unimplemented, hardened, check.Fail, true},
		{"a hardened miss and a failure", hardened, fail("http"), check.Fail, false},
		{"a failure judged over one transport, the other not started", fail("stdio"), broken, check.Fail, false},
		{"an error and a hardened miss", broken, hardened, check.Error, false},
		{"a SHOULD broken and a MUST broken", should, fail("http"), check.Fail, false},
		{"a SHOULD broken and an error", should, broken, check.Error, false},
	} {
		v, _ := judgeBoth(t, check.MUST, check.SpecProfile, tc.stdio, tc.http)
		if got := grade(check.Descriptor{Level: check.MUST}, v, Options{Profile: check.SpecProfile}); got != tc.want && !(tc.hardened && got == check.HardenedMiss) || v.hardened != tc.hardened {
			t.Errorf("%s: %s (hardened %v), want %s (hardened %v): %q", tc.name, v.outcome, v.hardened, tc.want, tc.hardened, v.message)
		}
		if v.outcome != check.Pass && !strings.HasPrefix(v.message, "stdio: ") {
			t.Errorf("%s: the message %q does not give each transport's verdict", tc.name, v.message)
		}
	}
}

// When every transport passes, Conclude returns and the body goes on: a
// check may judge both transports several times, each transport listed
// once among those it was judged on, and a transport not judged is noted.
func TestConcludePassingGoesOn(t *testing.T) {
	c := &C{D: check.Descriptor{ID: "server.x", Level: check.MUST, Transport: check.Any}, cfg: Options{}.WithDefaults()}
	rounds := 0
	v := runBody(c, func(c *C) {
		for range 3 {
			c.Conclude([]Judgement{c.JudgeOn(check.Stdio, func() {}), c.JudgeOn(check.HTTP, func() {})})
			rounds++
		}
		c.Conclude([]Judgement{NotJudged(check.Stdio, "legacy only over stdio"), c.JudgeOn(check.HTTP, func() {})})
		c.Conclude([]Judgement{NotJudged(check.Stdio, "legacy only over stdio"), c.JudgeOn(check.HTTP, func() {})})
	})
	if problem := runCleanups(c); problem != "" {
		t.Fatal(problem)
	}
	if v.outcome != check.Pass || rounds != 3 || !slices.Equal(c.transports, []check.Transport{check.Stdio, check.HTTP}) {
		t.Errorf("three passing rounds: %s after %d, judged on %v", v.outcome, rounds, c.transports)
	}
	if !slices.Equal(c.notes, []string{"not judged over stdio: legacy only over stdio"}) {
		t.Errorf("notes %q, want the transport not judged noted once", c.notes)
	}
}

// One transport judged ends the check as its body did, its message as it
// was; with no transport judged the check is N/A, saying why for each.
func TestConcludeOneTransport(t *testing.T) {
	c := &C{D: check.Descriptor{ID: "server.x", Level: check.MUST, Transport: check.Any}, cfg: Options{}.WithDefaults()}
	v := runBody(c, func(c *C) {
		c.Conclude([]Judgement{c.JudgeOn(check.Stdio, func() { fail("stdio")(c) })})
	})
	if v.outcome != check.Fail || v.message != "expected: a response (stdio)\nobserved: none" {
		t.Errorf("one transport: %s %q", v.outcome, v.message)
	}
	c = &C{D: c.D, cfg: c.cfg}
	v = runBody(c, func(c *C) {
		c.Conclude([]Judgement{NotJudged(check.Stdio, "legacy only over stdio"), NotJudged(check.HTTP, "modern only over http")})
	})
	if v.outcome != check.NotApplicable || v.message != "stdio: N/A; http: N/A\nlegacy only over stdio\nhttp (N/A):\n  modern only over http" || len(c.transports) != 0 {
		t.Errorf("N/A on both: %s %q, judged on %v", v.outcome, v.message, c.transports)
	}
}
