package adapter

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/httpclient"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/stdio"
	"github.com/mcpconform/mcpconform/harness/target"
)

func TestApplyLimitsHonoursEveryKey(t *testing.T) {
	c, h := stdio.DefaultConfig(), httpclient.DefaultConfig("")
	err := applyLimits(&c, &h, map[string]any{
		target.LimitStdoutTextLines: 0.0, target.LimitStdoutTextBytes: 5.0, target.LimitStderrBytes: 6.0,
		target.LimitCancelGraceMS: 7.0, target.LimitShutdownGraceMS: 8.0, target.LimitStartupMS: 9.0,
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxStdoutTextLines != 0 || c.MaxStdoutTextBytes != 5 || c.MaxStderrBytes != 6 || c.CancelGrace != 7*time.Millisecond ||
		c.ShutdownGrace != 8*time.Millisecond || c.StartupTimeout != 9*time.Millisecond {
		t.Errorf("config after overrides: %+v", c)
	}
	declared := declare(c, nil, "")
	if string(declared[target.LimitStdoutTextLines]) != "0" || string(declared[target.LimitStartupMS]) != "9" {
		t.Errorf("config line does not echo the overrides: %s", declared)
	}
	if eras := string(declare(c, nil, mutant.DiscoverFallback)[target.ConfigEras]); eras != `["legacy"]` {
		t.Errorf("variant %s, which speaks the legacy era only, claims the eras %s", mutant.DiscoverFallback, eras)
	}
	for _, bad := range []any{-1.0, 1.5, "3"} {
		if err := applyLimits(&c, &h, map[string]any{target.LimitStdoutTextLines: bad}); err == nil {
			t.Errorf("override %v accepted", bad)
		}
	}
}

func TestReadEnvironmentErrors(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{target.EnvTransport: ""}, target.EnvTransport},
		{map[string]string{target.EnvTransport: "stdio", target.EnvServerCommand: "srv"}, "JSON array"},
		{map[string]string{target.EnvTransport: "stdio", target.EnvServerCommand: "[]"}, "non-empty"},
		{map[string]string{target.EnvTransport: "stdio", target.EnvServerCommand: `["s"]`, target.EnvCallTimeoutMS: "soon"}, "milliseconds"},
		{map[string]string{target.EnvTransport: "stdio", target.EnvServerCommand: `["s"]`, target.EnvLimits: "[1]"}, "JSON object"},
	} {
		for _, k := range []string{target.EnvTransport, target.EnvServerCommand, target.EnvCallTimeoutMS, target.EnvLimits} {
			t.Setenv(k, tc.env[k])
		}
		if _, err := readEnvironment(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %q", tc.env, err, tc.want)
		}
	}
}

func TestParseFlagsRejectsUnknownMutantsAndArguments(t *testing.T) {
	if _, err := parseFlags([]string{"--mutant", "nope"}, io.Discard); err == nil || !strings.Contains(err.Error(), "no-sigkill") {
		t.Errorf("unknown mutant: %v (the error should list the mutants)", err)
	}
	if _, err := parseFlags([]string{"extra"}, io.Discard); err == nil {
		t.Error("a stray argument was accepted")
	}
	s, err := parseFlags(nonDefaultFlags(), io.Discard)
	if err != nil || s.Stdio.CancelGrace != 123*time.Millisecond {
		t.Errorf("round trip of Flags: %+v, %v", s.Stdio, err)
	}
}

// nonDefaultFlags are Config.Flags for a non-default config.
func nonDefaultFlags() []string {
	c := stdio.DefaultConfig()
	c.CancelGrace = 123 * time.Millisecond
	return Config{Stdio: c}.Flags()
}
