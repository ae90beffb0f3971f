package certify

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestCheckTimeoutLeavesRoomForTimeout: without --check-timeout, a server
// check's deadline leaves room for --timeout, --patience and
// --probe-timeout on each transport; a --check-timeout given stands.
func TestCheckTimeoutLeavesRoomForTimeout(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"server"}, run.DefaultServerCheckDeadline},
		{[]string{"server", "--timeout", "90s"}, 2 * (90*time.Second + run.DefaultPatience + run.DefaultProbeTimeout)},
		{[]string{"server", "--timeout", "90s", "--check-timeout", "1m"}, time.Minute},
	} {
		o, err := parseRunFlags(tc.args[0], tc.args[1:], io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if o.checkTimeout != tc.want {
			t.Errorf("%v: --check-timeout %s, want %s", tc.args, o.checkTimeout, tc.want)
		}
	}
}

// TestSecretFlagTakesEachValueWhole: --secret repeats and keeps commas;
// an empty one is refused.
func TestSecretFlagTakesEachValueWhole(t *testing.T) {
	const planted = "PLANTED"
	o, err := parseRunFlags("server", []string{"--secret", "a,b", "--secret", planted}, io.Discard)
	if err != nil || len(o.secrets) != 2 || o.secrets[0] != "a,b" || o.secrets[1] != planted {
		t.Fatalf("secrets %q (%v), want [a,b %s]", o.secrets, err, planted)
	}
	if _, err := parseRunFlags("client", []string{"--secret", ""}, io.Discard); err == nil {
		t.Error("an empty --secret was accepted")
	}
}

// TestWorkersMaskTheSameEnvironment: a worker of a parallel run inherits
// the coordinator's environment, so it masks the same secret-named
// variables; the variables the coordinator adds for it are none of them.
func TestWorkersMaskTheSameEnvironment(t *testing.T) {
	const envName, envValue = "X_API_TOKEN", "echo-env-PLANTED"
	t.Setenv(envName, envValue)
	coordinator := transcript.SecretEnvValues(os.Environ())
	worker := transcript.SecretEnvValues(workerEnv(filepath.Join(t.TempDir(), "socket"), "out.json", "probed.json", 3))
	if !slices.Contains(coordinator, envValue) || !slices.Equal(worker, coordinator) {
		t.Errorf("the coordinator masks %q, a worker %q", coordinator, worker)
	}
	if got := RunSecrets(nil, "").Redact("get-env: " + envName + "=" + envValue); strings.Contains(got, envValue) {
		t.Errorf("RunSecrets leaves the environment's token: %q", got)
	}
}
