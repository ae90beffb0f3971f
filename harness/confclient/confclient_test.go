package confclient_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	_ "github.com/mcpconform/mcpconform/harness/adapter" // the reference adapter, which the fake conformance client runs
	"github.com/mcpconform/mcpconform/harness/confclient"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/target"
)

// envFail asks the fake conformance client to exit 1 after its scenario.
const envFail = "FAKE_CONFORMANCE_FAIL"

func TestMain(m *testing.M) {
	selfexec.Register("fake-conformance-client", fakeConformanceClient)
	selfexec.Dispatch()
	os.Exit(m.Run())
}

// fakeConformanceClient is a conformance client as the official suite runs
// one: the server URL its last argument, the scenario in
// MCP_CONFORMANCE_SCENARIO. It connects, lists and calls through the
// reference adapter and exits 1 when a step failed (or envFail asks it to),
// as a conformance client does.
func fakeConformanceClient(args []string) int {
	if os.Getenv(confclient.EnvScenario) != confclient.ScenarioToolsCall || len(args) != 1 {
		return 1
	}
	argv := selfexec.Command("adapter")
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), target.EnvTransport+"=http", target.EnvServerURL+"="+args[0], target.EnvCallTimeoutMS+"=5000", target.EnvCase+"=")
	out, err := c.Output()
	if err != nil || bytes.Contains(out, []byte(`"outcome":"error"`)) || os.Getenv(envFail) != "" {
		return 1
	}
	return 0
}

func run(t *testing.T, env map[string]string) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := confclient.Run(context.Background(), selfexec.Command("fake-conformance-client"), func(k string) string { return env[k] }, &stdout, &stderr)
	t.Logf("stderr: %s", stderr.String())
	return stdout.String(), code
}

func startFake(t *testing.T, o httpfake.Options) string {
	t.Helper()
	f, err := httpfake.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f.URL()
}

func TestACallIsReportedFromTheWireAndTheExitStatus(t *testing.T) {
	url := startFake(t, httpfake.Options{Case: "well-behaved"})
	env := map[string]string{target.EnvTransport: "http", target.EnvServerURL: url, target.EnvCase: "http.client.post.accept-both"}
	stdout, code := run(t, env)
	out := target.ParseOutput([]byte(stdout))
	if code != 0 || out.Breach() != "" || out.Connect == nil || out.Connect.Outcome != target.OutcomeOK || len(out.Calls) != 1 || out.Calls[0].Tool != "echo" || !out.Calls[0].OK() || out.Close == nil {
		t.Fatalf("exit %d, output:\n%s", code, stdout)
	}

	t.Setenv(envFail, "1")
	stdout, code = run(t, env)
	out = target.ParseOutput([]byte(stdout))
	if code != 0 || len(out.Calls) != 1 || out.Calls[0].OK() || !strings.Contains(out.Calls[0].Error, "exited 1") || out.Close != nil {
		t.Fatalf("a client that exits 1 after its call: exit %d, output:\n%s", code, stdout)
	}
}

// TestTheOfficialToolIsServedUnderItsName: a conformance client calls the
// official suite's tool by name (confclient.ScenarioTool); a fake given it
// as ToolAlias lists its first tool under it and serves its call as that
// tool's.
func TestTheOfficialToolIsServedUnderItsName(t *testing.T) {
	f, err := httpfake.Start(httpfake.Options{Case: "well-behaved", ToolAlias: confclient.ScenarioTool})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	env := map[string]string{target.EnvTransport: "http", target.EnvServerURL: f.URL(), target.EnvCase: "http.client.post.accept-both"}
	stdout, code := run(t, env)
	out := target.ParseOutput([]byte(stdout))
	if code != 0 || len(out.Calls) != 1 || out.Calls[0].Tool != confclient.ScenarioTool || !out.Calls[0].OK() {
		t.Fatalf("exit %d, output:\n%s", code, stdout)
	}
	if got := f.Canonical(confclient.ScenarioTool); got != "echo" {
		t.Errorf("a call of %s calls %q, want echo", confclient.ScenarioTool, got)
	}
}

func TestWhatAScenarioCannotDriveIsUnsupported(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"stdio":         {target.EnvTransport: "stdio", target.EnvCase: "http.client.post.accept-both"},
		"unknown check": {target.EnvTransport: "http", target.EnvCase: "http.client.concurrency.limit"},
		"headers":       {target.EnvTransport: "http", target.EnvCase: "http.client.post.accept-both", target.EnvHeaders: `{"X-A":"b"}`},
		"parallel":      {target.EnvTransport: "http", target.EnvCase: "http.client.post.accept-both", target.EnvParallel: "1"},
		"modern era":    {target.EnvTransport: "http", target.EnvCase: "http.client.post.accept-both", target.EnvEra: target.EraModern},
	} {
		if stdout, code := run(t, env); code != target.ExitUnsupported || stdout != "" {
			t.Errorf("%s: exit %d (want %d), stdout %q", name, code, target.ExitUnsupported, stdout)
		}
	}
}
