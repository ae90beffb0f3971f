package run

import (
	"slices"
	"testing"

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
