package report

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

const goodBaseline = `
client:
  - id: stdio.client.slow
    reason: "upstream issue #12"
server:
  - id: stdio.server.banner
    reason: prints a banner
  - id: stdio.server.fixed
    reason: was broken in 1.0
`

func loadGood(t *testing.T) (*Baseline, string) {
	t.Helper()
	path := writeFile(t, t.TempDir(), "xfail.yaml", goodBaseline)
	b, err := LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, path
}

func TestBaselineFourWay(t *testing.T) {
	b, path := loadGood(t)
	cases := []struct {
		name    string
		role    check.Role
		in      check.Result
		want    check.Outcome
		message string
	}{
		{"listed failure", check.Server, result("stdio.server.banner", check.Fail, "saw text"), check.ExpectedFail, "expected failure: prints a banner; saw text"},
		{"listed warning", check.Server, result("stdio.server.banner", check.Warn, "slow"), check.ExpectedFail, "expected failure: prints a banner; slow"},
		{"unlisted failure", check.Server, result("stdio.server.other", check.Fail, "broke"), check.Fail, "broke"},
		{"listed pass", check.Server, result("stdio.server.fixed", check.Pass, ""), check.Stale, ""},
		{"unlisted pass", check.Server, result("stdio.server.other", check.Pass, ""), check.Pass, ""},
		{"listed for the other role", check.Client, result("stdio.server.banner", check.Fail, "x"), check.Fail, "x"},
		{"listed, no verdict", check.Server, result("stdio.server.banner", check.Unimplemented, "n/a"), check.Unimplemented, "n/a"},
		{"client list", check.Client, result("stdio.client.slow", check.Fail, "late"), check.ExpectedFail, "expected failure: upstream issue #12; late"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := b.Apply(c.role, c.in)
			if got.Outcome != c.want {
				t.Errorf("outcome = %s, want %s", got.Outcome, c.want)
			}
			if c.want == check.Stale {
				wantContains(t, got.Message, "stale", "remove", path, "was broken in 1.0")
			} else if got.Message != c.message {
				t.Errorf("message = %q, want %q", got.Message, c.message)
			}
			if got.ID != c.in.ID || got.DurationMS != c.in.DurationMS {
				t.Error("Apply changed more than outcome and message")
			}
		})
	}
}

func TestNilBaseline(t *testing.T) {
	var b *Baseline
	r := result("x", check.Fail, "m")
	if got := b.Apply(check.Server, r); !reflect.DeepEqual(got, r) {
		t.Errorf("nil baseline changed the result: %+v", got)
	}
	if got := b.Unknown(func(string) bool { return false }); got != nil {
		t.Errorf("nil baseline has unknown entries %v", got)
	}
}

func TestBaselineUnknown(t *testing.T) {
	b, _ := loadGood(t)
	got := b.Unknown(func(id string) bool { return id == "stdio.server.banner" })
	want := []string{"stdio.client.slow", "stdio.server.fixed"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Unknown = %v, want %v", got, want)
	}
}

func TestEmptyBaseline(t *testing.T) {
	for _, content := range []string{"", "# nothing expected to fail\n", "client: []\nserver:\n"} {
		b, err := LoadBaseline(writeFile(t, t.TempDir(), "b.yaml", content))
		if err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if got := b.Apply(check.Server, result("a", check.Pass, "")); got.Outcome != check.Pass {
			t.Errorf("%q: outcome %s", content, got.Outcome)
		}
	}
}

func TestBaselineErrors(t *testing.T) {
	cases := []struct {
		name, content string
		want          []string
	}{
		{"unknown top-level key", "clients:\n  - id: a\n    reason: r\n", []string{"line 1", "clients", "client, server and fuzz"}},
		{"unknown entry key", "server:\n  - id: a\n    reason: r\n    owner: me\n", []string{"line 4", "owner", "id and reason"}},
		{"missing id", "server:\n  - id: a\n    reason: r\n  - reason: r\n", []string{"server entry 2 (line 4)", "no id", "mcpconform list"}},
		{"empty reason", "client:\n  - id: a\n    reason: \"  \"\n", []string{"client entry 1 (line 2)", "(a) has no reason", "say why"}},
		{"missing reason", "client:\n  - id: a\n", []string{"client entry 1", "no reason"}},
		{"duplicate id", "server:\n  - {id: a, reason: r}\n  - {id: a, reason: s}\n", []string{"server entry 2 (line 3)", "a is listed twice under server", "keep one"}},
		{"same id in both roles", "client:\n  - {id: a, reason: r}\nserver:\n  - {id: a, reason: s}\n", []string{"server entry 1 (line 4)", "both client and server"}},
		{"entry is a bare id", "server:\n  - stdio.server.banner\n", []string{"line 2", "an entry"}},
		{"top level is a list", "- id: a\n  reason: r\n", []string{"line 1", "top level"}},
		{"bad syntax", "server: [\n", []string{"client: and server: lists"}},
		{"two documents", "server: []\n---\nclient: []\n", []string{"more than one YAML document"}},
		{"fuzz entry without a reason", "fuzz:\n  - signature: alive-0123456789ab\n", []string{"fuzz entry 1 (line 2)", "no reason"}},
		{"fuzz entry without a signature", "fuzz:\n  - reason: r\n", []string{"fuzz entry 1", "no signature"}},
		{"fuzz signature twice", "fuzz:\n  - {signature: a, reason: r}\n  - {signature: a, reason: s}\n", []string{"fuzz entry 2 (line 3)", "listed twice under fuzz"}},
		{"fuzz entry with an id", "fuzz:\n  - {id: a, reason: r}\n", []string{"line 2", "id", "signature and reason"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "xfail.yaml", c.content)
			b, err := LoadBaseline(path)
			if err == nil {
				t.Fatalf("loaded %+v", b)
			}
			wantContains(t, err.Error(), append([]string{path}, c.want...)...)
			if strings.Contains(err.Error(), "report.") {
				t.Errorf("error shows a Go type: %v", err)
			}
		})
	}
}

func TestBaselineMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.yaml")
	_, err := LoadBaseline(path)
	if err == nil {
		t.Fatal("loaded a missing file")
	}
	wantContains(t, err.Error(), path, "--expected-failures")
}

// TestBaselineFuzz: the fuzz: list maps signatures to reasons, beside the
// checks' lists, which it leaves alone.
func TestBaselineFuzz(t *testing.T) {
	content := "server:\n  - {id: a, reason: r}\nfuzz:\n  - signature: one-response-3f2a9c1b7d04\n    reason: the SDK echoes big ids wrapped (issue 9)\n"
	b, err := LoadBaseline(writeFile(t, t.TempDir(), "b.yaml", content))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"one-response-3f2a9c1b7d04": "the SDK echoes big ids wrapped (issue 9)"}
	if !reflect.DeepEqual(b.Fuzz(), want) {
		t.Errorf("Fuzz() = %v, want %v", b.Fuzz(), want)
	}
	if got := b.Apply(check.Server, result("a", check.Fail, "")); got.Outcome != check.ExpectedFail {
		t.Errorf("the checks' entry: outcome %s", got.Outcome)
	}
	if (*Baseline)(nil).Fuzz() == nil {
		t.Error("a nil baseline's Fuzz() is nil, not empty")
	}
}
