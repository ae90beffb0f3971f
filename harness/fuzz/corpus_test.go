package fuzz

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/fuzz/fuzzfake"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
)

// TestCorpusReplays replays every corpus case against the reference over
// stdio and HTTP, where the case applies: every invariant holds. A
// planted-NAME case must break its invariant against mutant NAME.
func TestCorpusReplays(t *testing.T) {
	files, err := filepath.Glob("../../corpus/*.case")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus cases found (%v)", err)
	}
	url, stop, err := serve.Start(serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	opt := ExecOptions{Timeout: 2 * time.Second, MaxRSS: 256 << 20}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseCase(name, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(name), ".case")
		t.Run(base, func(t *testing.T) {
			for _, tg := range []Target{reference(), {URL: url}} {
				if c.Transport != "any" && c.Transport != tg.Transport() {
					continue
				}
				o := opt
				o.Outputs, o.SlowTools = c.Outputs, c.Slow
				if tg.URL != "" {
					o.MaxRSS = 0
				}
				out, err := Execute(tg, c.Frames, o)
				if err != nil {
					t.Fatal(err)
				}
				if out.Violation != nil {
					t.Errorf("over %s the reference broke %v", tg.Transport(), out.Violation)
				}
			}
			if fake, ok := realFake(base); ok {
				out, err := Execute(Target{Command: selfexec.Command(fuzzfake.RealCommand, fake)}, c.Frames, ExecOptions{Timeout: opt.Timeout, Outputs: c.Outputs})
				if err != nil {
					t.Fatal(err)
				}
				if out.Violation == nil || out.Violation.Invariant != c.Invariant {
					t.Errorf("against fuzz-fake-real %s (%s): got %v, want %s broken", fake, fuzzfake.Real[fake], out.Violation, c.Invariant)
				}
			}
			if m, ok := strings.CutPrefix(base, "planted-"); ok && c.Transport != "http" {
				out, err := Execute(reference("--mutant", "planted-"+m), c.Frames, ExecOptions{Timeout: opt.Timeout, MaxRSS: opt.MaxRSS / 2, Outputs: c.Outputs, SlowTools: c.Slow})
				if err != nil {
					t.Fatal(err)
				}
				if out.Violation == nil || out.Violation.Invariant != c.Invariant {
					t.Errorf("against mutant planted-%s: got %v, want %s broken", m, out.Violation, c.Invariant)
				}
			}
		})
	}
}

// realFake is the fake of fuzzfake.Real a corpus case real-NAME replays
// against: the longest name NAME starts with.
func realFake(base string) (string, bool) {
	rest, ok := strings.CutPrefix(base, "real-")
	if !ok {
		return "", false
	}
	best := ""
	for name := range fuzzfake.Real {
		if strings.HasPrefix(rest, name) && len(name) > len(best) {
			best = name
		}
	}
	return best, best != ""
}

// TestEveryRealFindingHasItsFake: each real-*.case of the corpus names a
// fake that reproduces it, and each such fake has a case.
func TestEveryRealFindingHasItsFake(t *testing.T) {
	files, _ := filepath.Glob("../../corpus/real-*.case")
	used := map[string]bool{}
	for _, name := range files {
		base := strings.TrimSuffix(filepath.Base(name), ".case")
		fake, ok := realFake(base)
		if !ok {
			t.Errorf("%s names no fake of fuzzfake.Real", base)
		}
		used[fake] = true
	}
	for name := range fuzzfake.Real {
		if !used[name] {
			t.Errorf("fuzzfake.Real %s has no corpus case real-%s.case", name, name)
		}
	}
}

func TestCaseRoundTrip(t *testing.T) {
	c := &Case{Comment: []string{"what", ""}, Invariant: OneResponse, Transport: "http", Seed: 7, Outputs: map[string]json.RawMessage{"b": json.RawMessage(`{"type": "object"}`), "a": json.RawMessage(`{}`)}, Slow: []string{"slow", "wait"}, Frames: []Frame{
		{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)},
		{Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":2}}}`), Wait: WaitProgress},
		{Body: []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`), Wait: WaitNone},
		{Body: []byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`), Only: "stdio", Wait: WaitNone},
		{Body: []byte("\"x\"\n\xff"), Only: "stdio"},
		{Body: []byte(`{}`), Only: "http", Header: map[string]string{"Content-Type": "text/plain", "Mcp-Session-Id": ""}},
		{Only: "http", Method: "DELETE"},
	}}
	back, err := ParseCase("t", strings.NewReader(string(c.Format())))
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Format()) != string(c.Format()) {
		t.Fatalf("round trip changed the case:\n%s\nvs\n%s", c.Format(), back.Format())
	}
	if !reflect.DeepEqual(back.Frames, c.Frames) || !reflect.DeepEqual(back.Slow, c.Slow) {
		t.Fatalf("round trip changed the frames or the slow tools: %+v %v, want %+v %v", back.Frames, back.Slow, c.Frames, c.Slow)
	}
	for _, l := range []string{"slow: slow\n", "send-until-progress {", "send-nowait {", "stdio send-nowait {"} {
		if !strings.Contains(string(c.Format()), l) {
			t.Errorf("the case's text has no %q:\n%s", l, c.Format())
		}
	}
}

// TestParseCaseRefusesPastTheLimit: a case is read line by line and refused
// once it passes report.MaxCaseFile, whether its last line or a single line
// crosses the limit.
func TestParseCaseRefusesPastTheLimit(t *testing.T) {
	head := "invariant: " + string(Invariants()[0]) + "\nsend {}\n"
	for name, body := range map[string]string{
		"many lines": strings.Repeat("# a comment line\n", int(report.MaxCaseFile)/17+1),
		"one line":   "# " + strings.Repeat("x", int(report.MaxCaseFile)),
	} {
		_, err := ParseCase(name, strings.NewReader(head+body))
		if err == nil || !strings.Contains(err.Error(), "larger than 8.0 MiB") {
			t.Errorf("%s: err = %v, want larger than 8.0 MiB", name, err)
		}
	}
	if _, err := ParseCase("at the limit", strings.NewReader(head+strings.Repeat("#", int(report.MaxCaseFile)-len(head)))); err != nil {
		t.Errorf("a case of exactly %d bytes: %v", report.MaxCaseFile, err)
	}
}
