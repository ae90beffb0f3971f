package mcpclient

import (
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestInFlightIDsDistinct: two tool calls of 2026-07-28 in flight together
// have distinct ids (JR-06), and both get their answers;
// InFlightIDReused gives the second the first's id.
func TestInFlightIDsDistinct(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.InFlightIDReused} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connectModern(t, f, Options{Mutant: m})
			first := call(s, "a", map[string]any{})
			a := f.expect(t, "tools/call")
			second := call(s, "b", map[string]any{})
			b := f.expect(t, "tools/call")
			if reused := a.ID == b.ID; reused != (m != "") {
				t.Errorf("mutant %q: ids %s and %s", m, a.ID, b.ID)
			}
			f.reply(t, a, map[string]any{"content": []any{}})
			f.reply(t, b, map[string]any{"content": []any{}})
			for _, res := range []<-chan error{first, second} {
				if err := <-res; err != nil {
					t.Errorf("mutant %q: %v", m, err)
				}
			}
		})
	}
}
