package mcpconformtest_test

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/mcpconformtest"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestConformance certifies the reference server through Handler with
// every server check (-short: the quick ones), as a server's own test
// would: go test -run 'TestConformance/server.ping' runs just those.
func TestConformance(t *testing.T) {
	handler, err := serve.Handler(run.ReferenceServer(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = handler.Close() })
	mcpconformtest.Server(t, mcpconformtest.Handler(handler), mcpconformtest.Parallel(4))
}

// TestMutantFailsItsCheck serves a mutant of the reference through
// Handler: the check it breaks is a failed subtest whose message holds
// the requirement, what was observed and the transcript, and the test
// fails; the check it does not break passes.
func TestMutantFailsItsCheck(t *testing.T) {
	const killed, kept = "server.ping.after-initialize", "server.tools.unknown-tool"
	handler, err := serve.Handler(run.ReferenceServer(mutant.PingResultNotEmpty))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = handler.Close() })
	r := mcpconformtest.Record("TestConformance", func(r *mcpconformtest.Recorder) {
		mcpconformtest.Server(r, mcpconformtest.Handler(handler), mcpconformtest.Only(killed, kept))
	})
	if !r.Failed() {
		t.Fatalf("the mutant passed; logs:\n%s", strings.Join(r.Logs(), "\n"))
	}
	got := map[string]*mcpconformtest.Recorder{}
	for _, s := range r.Subtests() {
		got[strings.TrimPrefix(s.Name(), "TestConformance/")] = s
	}
	if s := got[killed]; s == nil || s.Status() != "FAIL" {
		t.Fatalf("%s: %v, want a failed subtest", killed, s)
	} else if msg := strings.Join(s.Logs(), "\n"); !strings.Contains(msg, "requirement") || !strings.Contains(msg, "observed") || !strings.Contains(msg, "transcript") {
		t.Errorf("%s's failure lacks the requirement, observation or transcript:\n%s", killed, msg)
	}
	if s := got[kept]; s == nil || s.Status() != "PASS" {
		t.Errorf("%s: %v, want a passed subtest", kept, s)
	}
}
