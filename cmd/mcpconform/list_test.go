package main

import (
	"slices"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Every wait a client check declares is listed with the time it takes the
// built-in reference client, so that summing duration_ms over the list
// says where a default client run goes; a client-limit wait names a limit
// of the adapter contract and lasts the reference's value of it.
func TestListJSONGivesClientWaitsTheReferenceDurations(t *testing.T) {
	ref := run.ReferenceConfig("")
	limits := map[string]time.Duration{
		target.LimitCancelGraceMS:     ref.Stdio.CancelGrace,
		target.LimitStartupMS:         ref.Stdio.StartupTimeout,
		target.LimitShutdownGraceMS:   ref.Stdio.ShutdownGrace,
		target.LimitSessionRecoveryMS: ref.HTTP.SessionRecoveryTimeout,
		target.LimitControlRequestMS:  ref.HTTP.ControlRequestTimeout,
	}
	for _, key := range target.TimeLimits() {
		if _, ok := limits[key]; !ok {
			t.Errorf("time limit %s: the test does not know the reference's value", key)
		}
	}
	used := map[string]bool{}
	for _, c := range listJSON(t) {
		for _, w := range c.Waits {
			if check.WaitSetting(w.Setting).Role() != check.Role(c.Role) {
				t.Errorf("%s: a %s check lists a %s wait %q", c.ID, c.Role, w.Setting, w.What)
			}
			if c.Role != string(check.Client) {
				continue
			}
			if w.DurationMS <= 0 || !w.Always {
				t.Errorf("%s: wait %q listed with duration_ms %d, always %v; a client wait elapses on every run", c.ID, w.What, w.DurationMS, w.Always)
			}
			if w.Setting != string(check.ClientLimit) {
				continue
			}
			limit, ok := limits[w.Limit]
			if !ok || !slices.Contains(target.TimeLimits(), w.Limit) {
				t.Errorf("%s: client-limit wait %q names %q, not a time limit of the adapter contract", c.ID, w.What, w.Limit)
				continue
			}
			used[w.Limit] = true
			if want := (check.Wait{Times: w.Times}).Total(limit).Milliseconds(); w.DurationMS != want {
				t.Errorf("%s: wait %q listed %d ms, want %d (%s %s, %v times)", c.ID, w.What, w.DurationMS, want, w.Limit, limit, w.Times)
			}
		}
	}
	// Each timeout and grace of the client is provoked by some check.
	for _, key := range target.TimeLimits() {
		if !used[key] {
			t.Errorf("no client check declares a wait of %s", key)
		}
	}
}
