package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/certify"
	"github.com/mcpconform/mcpconform/harness/fuzz/fuzzfake"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// TestFuzzFindsSavesAndReplays walks the command as a user does: fuzz a
// planted bug (exit 1, case saved, JSON written), replay the case against
// the mutant (exit 1) and against the reference (exit 0).
func TestFuzzFindsSavesAndReplays(t *testing.T) {
	dir := t.TempDir()
	mutantCmd := selfexec.Command("serve", "--transport", "stdio", "--mutant", string(mutant.PlantedDuplicateReply))
	report := filepath.Join(dir, "f.json")
	var stdout, stderr bytes.Buffer
	args := append([]string{"fuzz", "--seed", "1", "--duration", "30s", "--max-findings", "1", "--timeout", "500ms", "--corpus", dir, "--json", report, "--"}, mutantCmd...)
	if code := dispatch(args, &stdout, &stderr); code != 1 {
		t.Fatalf("fuzz exited %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	found, _ := filepath.Glob(filepath.Join(dir, "fuzz-one-response-*-seed1.case"))
	if len(found) != 1 {
		t.Fatalf("the minimal case was not saved once: %v\n%s", found, stdout.String())
	}
	saved := found[0]
	var doc certify.FuzzJSON
	b, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil || len(doc.Targets) != 1 || len(doc.Targets[0].Findings) != 1 || doc.Targets[0].Findings[0].Invariant != "one-response" {
		t.Fatalf("JSON report %s (%v)", b, err)
	}
	for _, tc := range []struct {
		server []string
		want   int
	}{{mutantCmd, 1}, {selfexec.Command("serve", "--transport", "stdio"), 0}} {
		stdout.Reset()
		if code := dispatch(append([]string{"replay", saved, "--timeout", "500ms", "--"}, tc.server...), &stdout, &stderr); code != tc.want {
			t.Errorf("replay against %v exited %d, want %d:\n%s", tc.server, code, tc.want, stdout.String())
		}
	}
}

func TestFuzzBenchReportsRatios(t *testing.T) {
	report := filepath.Join(t.TempDir(), "bench.json")
	var stdout, stderr bytes.Buffer
	// A bound no loaded machine reaches: the reference answers in microseconds,
	// and a ping held up by a busy CPU is no finding of the bench.
	args := append([]string{"fuzz", "--bench", "--seed", "1", "--duration", "2s", "--timeout", "10s", "--json", report, "--"}, selfexec.Command("serve", "--transport", "stdio")...)
	if code := dispatch(args, &stdout, &stderr); code != 0 {
		t.Fatalf("fuzz --bench exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	var doc struct {
		Bench []certify.BenchJSON `json:"bench"`
	}
	b, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil || len(doc.Bench) != 1 {
		t.Fatalf("bench JSON %s (%v)", b, err)
	}
	if r := doc.Bench[0]; r.Ceiling1 <= 0 || r.Fuzz1 <= 0 || r.Ceiling2 <= 0 || r.Fuzz2 <= 0 {
		t.Errorf("a phase measured nothing: %+v", r)
	}
	if !strings.Contains(stdout.String(), "of the ceiling") {
		t.Errorf("no ratio printed:\n%s", stdout.String())
	}
}

// TestFuzzTakesCallTools: --call-tools reaches the fuzzer and wins over the
// fixtures file's call_tools; the summary names each tool left out, with
// why.
func TestFuzzTakesCallTools(t *testing.T) {
	fixtures := filepath.Join(t.TempDir(), "fixtures.yaml")
	if err := os.WriteFile(fixtures, []byte("call_tools: all\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := append([]string{"fuzz", "--seed", "1", "--iterations", "1", "--timeout", "10s", "--fixtures", fixtures, "--call-tools", "none", "--"}, selfexec.Command("serve", "--transport", "stdio")...)
	if code := dispatch(args, &stdout, &stderr); code != 0 {
		t.Fatalf("fuzz exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"0 tools called, left out: ", "test_simple_text (call-tools is none)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the summary does not say %q:\n%s", want, stdout.String())
		}
	}
}

// TestFuzzExpectedFailures: a signature listed under fuzz: in the
// --expected-failures file is reported as known, and a run whose only
// finding is known exits 0; the same finding unlisted exits 1.
func TestFuzzExpectedFailures(t *testing.T) {
	dir := t.TempDir()
	server := selfexec.Command(fuzzfake.Command)
	report := filepath.Join(dir, "f.json")
	var stdout, stderr bytes.Buffer
	args := append([]string{"fuzz", "--seed", "1", "--duration", "60s", "--max-findings", "1", "--corpus", dir, "--json", report, "--"}, server...)
	if code := dispatch(args, &stdout, &stderr); code != 1 {
		t.Fatalf("fuzz exited %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	var doc certify.FuzzJSON
	b, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil || len(doc.Targets) != 1 || len(doc.Targets[0].Findings) != 1 || doc.Targets[0].Findings[0].Signature == "" {
		t.Fatalf("JSON report %s (%v)", b, err)
	}
	f := doc.Targets[0].Findings[0]
	baseline := filepath.Join(dir, "baseline.yaml")
	if err := os.WriteFile(baseline, []byte("server: []\nfuzz:\n  - signature: "+f.Signature+"\n    reason: planted in the fake\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The same seed runs the same sequences: up to the first finding's,
	// the known one is the only one.
	stdout.Reset()
	args = append([]string{"fuzz", "--seed", "1", "--iterations", fmt.Sprint(f.FirstSequence + 1), "--duration", "0", "--corpus", dir, "--expected-failures", baseline, "--"}, server...)
	if code := dispatch(args, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "KNOWN "+f.Signature) || !strings.Contains(stdout.String(), "planted in the fake") {
		t.Fatalf("fuzz with the signature known exited %d, want 0 and it reported as known\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}
