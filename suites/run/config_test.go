package run

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/stdio"
	"github.com/mcpconform/mcpconform/harness/target"
)

func TestWaitDurationTakesTheClientsLimit(t *testing.T) {
	cfg := Options{}.WithDefaults()
	startup := check.Wait{What: "w", Setting: check.ClientLimit, Limit: target.LimitStartupMS}
	declared := target.Output{Config: map[string]json.RawMessage{target.LimitStartupMS: json.RawMessage("700")}}
	twice := startup
	twice.Times = 2
	for _, tc := range []struct {
		name   string
		w      check.Wait
		client target.Output
		want   time.Duration
	}{
		{"declared limit", startup, declared, 700 * time.Millisecond},
		{"declared limit, twice", twice, declared, 1400 * time.Millisecond},
		{"undeclared limit: the seed default", startup, target.Output{}, stdio.DefaultStartupTimeout},
		{"the reference", startup, ReferenceConfigLine(), ReferenceConfig("").Stdio.StartupTimeout},
		{"scripted", check.Wait{What: "w", Setting: check.Scripted, Duration: 300 * time.Millisecond, Times: 3}, declared, 900 * time.Millisecond},
		{"prompt", check.Wait{What: "w", Setting: check.Prompt}, declared, DefaultPrompt},
		{"quiet window", check.Wait{What: "w", Setting: check.QuietWindow}, declared, DefaultQuietWindow},
	} {
		if got := cfg.WaitDuration(tc.w, tc.client); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// The specs are ordered by the waits of the client under test once its
// pre-flight has run: a client that declares a long startup timeout has
// its start-up checks first, where the reference's short one leaves them
// behind a longer scripted wait.
func TestSpecOrderTakesTheProbedLimits(t *testing.T) {
	t.Cleanup(resetDeclared)
	resetDeclared()
	cfg := Options{}.WithDefaults()
	startup := check.Descriptor{Waits: []check.Wait{{What: "w", Setting: check.ClientLimit, Limit: target.LimitStartupMS}}}
	scripted := check.Descriptor{Waits: []check.Wait{{What: "w", Setting: check.Scripted, Duration: 8 * time.Second}}}
	longer := func() bool {
		line := knownConfigLine(transportStdio)
		return declaredWaits(cfg, startup, line) > declaredWaits(cfg, scripted, line)
	}
	if longer() {
		t.Errorf("before the pre-flight, the reference's startup timeout (%s) outweighs an 8s scripted wait", ReferenceConfig("").Stdio.StartupTimeout)
	}
	p := probeOf(transportStdio)
	p.once.Do(func() {
		p.run = &target.Run{Output: target.Output{Config: map[string]json.RawMessage{target.LimitStartupMS: json.RawMessage("10000")}}}
		p.done.Store(true)
	})
	if !longer() {
		t.Errorf("after a pre-flight declaring startup_timeout_ms 10000, the start-up wait does not come first")
	}
}

// TestStartupBudget: a check gives a server StartupFactor times the
// slowest start the probe saw, never less than ProbeTimeout.
func TestStartupBudget(t *testing.T) {
	o := Options{ProbeTimeout: 5 * time.Second}
	for seen, want := range map[time.Duration]time.Duration{
		0:                      5 * time.Second,
		600 * time.Millisecond: 5 * time.Second,
		3 * time.Second:        12 * time.Second,
	} {
		if got := o.StartupBudget(seen); got != want {
			t.Errorf("a start of %s: budget %s, want %s", seen, got, want)
		}
	}
}
