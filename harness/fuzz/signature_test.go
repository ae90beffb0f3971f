package fuzz

import (
	"context"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/fuzz/fuzzfake"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// TestSignatureGroupsByShape: findings whose minimal cases differ only in
// ids, strings and number values share a signature; a different method,
// id type, damage, header or invariant makes another.
func TestSignatureGroupsByShape(t *testing.T) {
	ping := func(id string) Frame { return Frame{Body: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)} }
	call := func(id, tool, arg string) Frame {
		return Frame{Body: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"text":"` + arg + `"}}}`)}
	}
	same := [][2][]Frame{
		{{ping("1")}, {ping("987")}},
		{{ping("-0")}, {ping("0")}},
		{{ping("1.0")}, {ping("3")}},
		{{ping("1e3")}, {ping("1000")}},
		{{ping(`"s1"`)}, {ping(`"another"`)}},
		{{ping("1")}, {ping(`"1"`)}},
		{{Frame{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"cursor":7}}`)}}, {Frame{Body: []byte(`{"jsonrpc":"2.0","id":"s2","method":"resources/list","params":{"cursor":"x"}}`)}}},
		{{call("1", "echo", "a")}, {call("2", "echo", "something else")}},
		{{Frame{Body: []byte(`{"jsonrpc":"2.0","id":1,"me`)}}, {Frame{Body: []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/ca`)}}},
		{{ping("1"), ping("2")}, {ping("5"), ping("9")}},
		{{Frame{Body: []byte(`[` + string(ping("1").Body) + `,` + string(ping("2").Body) + `]`)}}, {Frame{Body: []byte(`[` + string(ping("3").Body) + `]`)}}},
	}
	for _, c := range same {
		if a, b := Signature(OneResponse, c[0]), Signature(OneResponse, c[1]); a != b {
			t.Errorf("%s and %s: signatures %s and %s, want one (shapes %q and %q)", c[0], c[1], a, b, Shape(c[0]), Shape(c[1]))
		}
	}
	different := [][2][]Frame{
		{{ping("1")}, {ping("1.5")}},
		{{ping("1")}, {ping("null")}},
		{{ping("1")}, {ping("123456789012345678901234567890")}},
		{{ping("1")}, {Frame{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}}},
		{{call("1", "echo", "a")}, {call("1", "add", "a")}},
		{{ping("1")}, {ping("1"), ping("2")}},
		{{Frame{Body: []byte(`{"jsonrpc":"2.0","id":1,"me`)}}, {Frame{Body: []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\xff}")}}},
		{{Frame{Body: ping("1").Body, Header: map[string]string{"Mcp-Session-Id": "foreign"}}}, {Frame{Body: ping("1").Body, Header: map[string]string{"Mcp-Session-Id": ""}}}},
		{{Frame{Method: "DELETE"}}, {ping("1")}},
	}
	for _, c := range different {
		if a, b := Signature(OneResponse, c[0]), Signature(OneResponse, c[1]); a == b {
			t.Errorf("%s and %s: one signature %s, want two (shape %q)", c[0], c[1], a, Shape(c[0]))
		}
	}
	if Signature(Alive, []Frame{ping("1")}) == Signature(AnswersPing, []Frame{ping("1")}) {
		t.Error("two invariants share a signature")
	}
	if got := Signature(Alive, nil); got != Signature(Alive, []Frame{}) || len(got) != len("alive-")+12 {
		t.Errorf("the signature of no frames: %q", got)
	}
}

// TestNumberClass: numbers are classed by value, as JSON-RPC means them.
func TestNumberClass(t *testing.T) {
	for in, want := range map[string]string{
		"0": "int", "-0": "int", "1.0": "int", "1e3": "int", "-7": "int", "10E-1": "int", "9007199254740991": "int",
		"9007199254740992": "bigint", "123456789012345678901234567890": "bigint", "1e20": "bigint",
		"1.5": "frac", "-0.5": "frac", "1e-3": "frac",
		"1e400": "huge", "1e999999999": "huge",
	} {
		if got := numberClass(in); got != want {
			t.Errorf("numberClass(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestGroupingCountsAndKnown: the fuzzer files findings by signature,
// counts a second one of a group, attributes a sequence holding a group's
// case to it, and leaves a known group out of the new ones that end a run.
func TestGroupingCountsAndKnown(t *testing.T) {
	ping := Frame{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}
	list := Frame{Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)}
	known := Signature(Alive, []Frame{list})
	f := &fuzzer{cfg: Options{MaxFindings: 2, Known: map[string]string{known: "a known crash"}}, ctx: context.Background()}
	finding := func(inv Invariant, iteration int64, frames ...Frame) Finding {
		return Finding{Signature: Signature(inv, frames), Count: 1, Iteration: iteration, Case: &Case{Invariant: inv, Frames: frames}, Violation: &Violation{Invariant: inv, Kind: "exit"}}
	}
	f.add(finding(OneResponse, 5, ping))
	f.add(finding(OneResponse, 3, Frame{Body: []byte(`{"jsonrpc":"2.0","id":44,"method":"ping"}`)}))
	f.add(finding(Alive, 7, list))
	if len(f.findings) != 2 || f.findings[0].Count != 2 || f.findings[0].Iteration != 3 {
		t.Fatalf("groups %+v: want two, the first counted twice and first seen in sequence 3", f.findings)
	}
	if f.findings[1].Known != "a known crash" || f.newGroups.Load() != 1 || f.over() {
		t.Errorf("the known group: reason %q, %d new groups, over %v; want the reason, 1 and not over", f.findings[1].Known, f.newGroups.Load(), f.over())
	}
	if !f.attribute(&Violation{Invariant: Alive, Kind: "exit"}, []Frame{ping, list, ping}) || f.findings[1].Count != 2 {
		t.Errorf("a sequence holding the known case was not counted to it: %+v", f.findings[1])
	}
	if f.attribute(&Violation{Invariant: Alive, Kind: "send"}, []Frame{list}) {
		t.Error("a break of another kind was counted to the group")
	}
	f.add(finding(AnswersPing, 9, list))
	if !f.over() {
		t.Error("two new groups with --max-findings 2 did not end the run")
	}
}

// TestFuzzKeepsGoingAndGroups: against a server with two defects of
// different shapes the run does not stop at the first finding: it reports
// both groups, each once with its count; with both signatures known, they
// are reported as known and none is new.
func TestFuzzKeepsGoingAndGroups(t *testing.T) {
	target := Target{Command: selfexec.Command(fuzzfake.Command)}
	cfg := Options{Target: target, Seed: 1, Iterations: 40, MaxFindings: 4, ShrinkBudget: 2 * time.Second,
		ExecOptions: ExecOptions{Timeout: 5 * time.Second}}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Invariant]bool{}
	known := map[string]string{}
	for _, f := range rep.Findings {
		seen[f.Violation.Invariant] = true
		known[f.Signature] = "known"
		t.Logf("%s %d× %s: %s", f.Signature, f.Count, f.Shape, f.Violation.Detail)
	}
	if !seen[OneResponse] || !seen[Alive] {
		t.Fatalf("%d groups in %d sequences, want one-response and alive among them", len(rep.Findings), rep.Stats.Iterations)
	}
	cfg.Duration, cfg.Iterations, cfg.MaxFindings, cfg.Known = 0, 40, 0, known
	rep, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	knownSeen := 0
	for _, f := range rep.Findings {
		if (f.Known != "") != (known[f.Signature] != "") {
			t.Errorf("group %s: known %q", f.Signature, f.Known)
		}
		if f.Known != "" {
			knownSeen++
		}
	}
	if knownSeen == 0 || rep.Stats.Iterations != 40 {
		t.Errorf("%d known groups in %d sequences, want some, and all 40 sequences run", knownSeen, rep.Stats.Iterations)
	}
}

// TestConfirm: a shrunk case is a finding only when a run of it breaks the
// invariant again; one that a stall of a loaded machine broke once, and no
// run repeats, is not.
func TestConfirm(t *testing.T) {
	ping := frames(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	dup := &Violation{Invariant: OneResponse, Kind: "duplicate"}
	for _, tc := range []struct {
		target Target
		want   bool
	}{{Target{Command: selfexec.Command(fuzzfake.Command)}, true}, {reference(), false}} {
		f := &fuzzer{cfg: Options{Target: tc.target, ExecOptions: ExecOptions{Timeout: 5 * time.Second}}, ctx: context.Background()}
		h := &hunt{f: f, want: dup, best: ping, bestViolation: dup}
		if got := h.confirm(); got != tc.want {
			t.Errorf("%v: confirm = %v, want %v", tc.target.Command, got, tc.want)
		}
	}
}
