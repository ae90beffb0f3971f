package run

import (
	"slices"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/target"

	"github.com/mcpconform/mcpconform/harness/transcript"
)

// TestEvidenceMasksEventIDsAsTheTranscript: a check's message names an SSE
// event id as its transcript shows it, and the transcript's secrets are
// masked.
func TestEvidenceMasksEventIDsAsTheTranscript(t *testing.T) {
	c := &C{secrets: transcript.Secrets{}.With("PLANTEDSECRET"), entries: []transcript.Entry{
		{Dir: transcript.Note, Line: `SSE event (id "41-7")`},
		{Dir: transcript.ServerToClient, Line: `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"PLANTEDSECRET"}}`},
	}}
	lines, msg := c.evidence(`event id "41-7" appears on POST stream 1 and on the GET stream`)
	want := []string{`note SSE event (id "<event1>")`, `s2c {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"***"}}`}
	if !slices.Equal(lines, want) || msg != `event id "<event1>" appears on POST stream 1 and on the GET stream` {
		t.Errorf("transcript %q\nmessage %q", lines, msg)
	}
}

func TestTierRunsSerialChecksFirstAndCensusTakersLast(t *testing.T) {
	budget := check.Wait{What: "w", Setting: check.ToolBudget}
	quiet := check.Wait{What: "w", Setting: check.QuietWindow}
	serial := check.Descriptor{ID: "s", Serial: true}
	taker := check.Descriptor{ID: "t", TakesCensus: true, Waits: []check.Wait{budget}}
	settling := check.Descriptor{ID: "u", TakesCensus: true, Waits: []check.Wait{budget, quiet}}
	other := check.Descriptor{ID: "o", Waits: []check.Wait{budget}}
	at := Options{Census: true}.WithDefaults()
	line := target.Output{}
	for _, tc := range []struct {
		cfg  Options
		d    check.Descriptor
		tier int
		wait time.Duration
	}{
		{at, serial, -1, 0},
		{at, taker, 1, 0},
		{at, settling, 0, at.QuietWindow},
		{at, other, 0, at.ToolBudget},
		{Options{}.WithDefaults(), serial, 0, 0},
		{Options{}.WithDefaults(), taker, 0, at.ToolBudget},
	} {
		w := declaredWaits(tc.cfg, tc.d, line)
		if got := tier(tc.cfg, tc.d, w); got != tc.tier || w != tc.wait {
			t.Errorf("%s (census %v): tier %d, waits %s; want %d, %s", tc.d.ID, tc.cfg.Census, got, w, tc.tier, tc.wait)
		}
	}
}
