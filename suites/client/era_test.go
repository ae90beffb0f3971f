package client

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/target"
)

// failure finds the step that failed first in what an adapter reported.
func TestFailure(t *testing.T) {
	failed := &target.Phase{Outcome: target.OutcomeError, Error: "refused"}
	for _, tc := range []struct {
		o          target.Output
		step, text string
	}{
		{target.Output{}, "", ""},
		{target.Output{Connect: failed}, "connect", "refused"},
		{target.Output{Connect: &target.Phase{Outcome: target.OutcomeOK}, List: failed}, "list", "refused"},
		{target.Output{Calls: []target.Call{{Tool: "a", Outcome: target.OutcomeOK}, {Tool: "b", Outcome: target.OutcomeError, Error: "no"}}}, "tool", "no"},
		{target.Output{Calls: []target.Call{{Tool: "a", Outcome: target.OutcomeOK}}}, "ok", ""},
	} {
		if step, text := failure(tc.o); step != tc.step || text != tc.text {
			t.Errorf("%+v: %q %q, want %q %q", tc.o, step, text, tc.step, tc.text)
		}
	}
}
