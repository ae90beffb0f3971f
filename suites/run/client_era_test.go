package run

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// judgeEras runs a client check of eras whose body ends in each era as
// byEra says (PASS for an era it does not name), and returns its verdict
// and the eras the body ran in.
func judgeEras(t *testing.T, eras []check.Era, byEra map[check.Era]func(c *C)) (verdict, []check.Era, *C) {
	t.Helper()
	c := &C{D: check.Descriptor{ID: "stdio.client.x", Level: check.MUST, Role: check.Client, Transport: check.Stdio, Eras: eras}, cfg: Options{}.WithDefaults()}
	var ran []check.Era
	v := runBody(c, eachEra(func(c *C) {
		ran = append(ran, c.era)
		c.SetTranscript([]transcript.Entry{{Dir: transcript.ClientToServer, Line: "sent in the " + string(c.era) + " era"}})
		if f := byEra[c.era]; f != nil {
			f(c)
		}
	}))
	return v, ran, c
}

// A check of one era runs its body once in it and ends as the body did.
func TestEachEraOneEra(t *testing.T) {
	v, ran, _ := judgeEras(t, nil, map[check.Era]func(*C){check.Legacy: fail("legacy")})
	if !slices.Equal(ran, []check.Era{check.Legacy}) || v.outcome != check.Fail || v.message != "expected: a response (legacy)\nobserved: none" {
		t.Errorf("one era: ran in %v, verdict %s %q", ran, v.outcome, v.message)
	}
}

// A check of both eras judges each apart, the worst deciding, each era's
// verdict in the message; an era not claimed is noted on a PASS; the
// transcript holds both eras' runs, the second after a note.
func TestEachEraJudgesBoth(t *testing.T) {
	both := []check.Era{check.Legacy, check.Modern}
	v, ran, c := judgeEras(t, both, map[check.Era]func(*C){check.Legacy: fail("legacy")})
	if !slices.Equal(ran, both) || v.outcome != check.Fail || !strings.HasPrefix(v.message, "legacy era: FAIL; modern era: PASS\nexpected: a response (legacy)") {
		t.Errorf("a failure in the legacy era: ran in %v, verdict %s %q", ran, v.outcome, v.message)
	}
	wantLines := []string{"sent in the legacy era", "in the modern era from here", "sent in the modern era"}
	var got []string
	for _, e := range c.entries {
		got = append(got, e.Line)
	}
	if !slices.Equal(got, wantLines) {
		t.Errorf("transcript %q, want %q", got, wantLines)
	}

	v, _, c = judgeEras(t, both, map[check.Era]func(*C){check.Modern: func(c *C) { c.SetTranscript(nil); c.NotApplicable("not claimed") }})
	if v.outcome != check.Pass || !slices.Equal(c.notes, []string{"not judged in the modern era: not claimed"}) || len(c.entries) != 1 {
		t.Errorf("the modern era not claimed: %s %q, notes %q, %d transcript entries", v.outcome, v.message, c.notes, len(c.entries))
	}
}

// inEra tells the adapter and the fake the era judged, unless the body
// named them, and ends the era N/A, saying what to do, when the client
// does not claim it over the transport.
func TestInEraFollowsTheClaims(t *testing.T) {
	t.Cleanup(resetDeclared)
	claim := func(eras string) {
		resetDeclared()
		p := probeOf(transportStdio)
		p.once.Do(func() {})
		p.run = &target.Run{}
		if eras != "" {
			p.run.Config = map[string]json.RawMessage{target.ConfigEras: json.RawMessage(eras)}
		}
	}
	c := &C{D: check.Descriptor{ID: "stdio.client.x", Role: check.Client, Transport: check.Stdio}, cfg: Options{}.WithDefaults(), era: check.Modern}
	claim(`["legacy","modern"]`)
	var fake fakeservers.Era
	var inv target.Invocation
	if v := runBody(c, func(c *C) { c.inEra(&fake, &inv, transportStdio) }); v.outcome != check.Pass || fake != fakeservers.Modern || inv.Era != target.EraModern {
		t.Errorf("a claimed era: %s, fake %q, adapter told %q; want the modern era for both", v.outcome, fake, inv.Era)
	}
	fake, inv = fakeservers.Dual, target.Invocation{}
	runBody(c, func(c *C) { c.inEra(&fake, &inv, transportStdio) })
	if fake != fakeservers.Dual || inv.Era != target.EraModern {
		t.Errorf("a fake the body named: %q, adapter told %q; want the dual fake kept", fake, inv.Era)
	}
	claim("")
	v := runBody(c, func(c *C) { c.inEra(&fake, &inv, transportStdio) })
	if v.outcome != check.NotApplicable || !strings.Contains(v.message, `claims the eras ["legacy"]`) || !strings.Contains(v.message, "MCPCONFORM_ERA=modern, speak 2026-07-28") {
		t.Errorf("an era not claimed: %s %q; want N/A saying what the client claims and what to do", v.outcome, v.message)
	}
	c.era = ""
	fake, inv = "", target.Invocation{}
	if v := runBody(c, func(c *C) { c.inEra(&fake, &inv, transportStdio) }); v.outcome != check.Pass || fake != "" || inv.Era != "" {
		t.Errorf("a check of ForEraChoice: %s, fake %q, adapter told %q; want nothing named", v.outcome, fake, inv.Era)
	}
}

// A client check judged over both transports keeps both runs' transcripts,
// the second after a note, as it does for two eras.
func TestJudgeOnKeepsClientTranscripts(t *testing.T) {
	c := &C{D: check.Descriptor{ID: "client.x", Level: check.MUST, Role: check.Client, Transport: check.Any}, cfg: Options{}.WithDefaults()}
	run := func(line string) func() {
		return func() { c.SetTranscript([]transcript.Entry{{Dir: transcript.ClientToServer, Line: line}}) }
	}
	v := runBody(c, func(c *C) {
		c.Conclude([]Judgement{c.JudgeOn(check.Stdio, run("over stdio")), c.JudgeOn(check.HTTP, run("over http"))})
	})
	var got []string
	for _, e := range c.entries {
		got = append(got, e.Line)
	}
	if want := []string{"over stdio", "over http from here", "over http"}; v.outcome != check.Pass || !slices.Equal(got, want) {
		t.Errorf("%s, transcript %q; want PASS and %q", v.outcome, got, want)
	}
}

// The reference claims the legacy era alone until its client speaks the
// modern one: a check of the modern era alone N/A to it is accepted, no
// other outcome or check.
func TestUnclaimedByReference(t *testing.T) {
	modern := check.Result{Descriptor: check.Descriptor{ID: "client.x", Role: check.Client, Eras: []check.Era{check.Modern}}, Outcome: check.NotApplicable}
	claims := slices.Contains(ReferenceConfigLine().Eras(), target.EraModern)
	if got := UnclaimedByReference(modern); got == claims {
		t.Errorf("a modern check N/A, the reference claiming the modern era %v: accepted %v", claims, got)
	}
	both := modern
	both.Eras = []check.Era{check.Legacy, check.Modern}
	failed := modern
	failed.Outcome = check.Fail
	for _, r := range []check.Result{both, failed} {
		if UnclaimedByReference(r) {
			t.Errorf("%v of eras %v accepted", r.Outcome, r.Eras)
		}
	}
}
