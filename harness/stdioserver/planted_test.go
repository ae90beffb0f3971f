package stdioserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// writeRecorder keeps each Write apart.
type writeRecorder struct{ writes []string }

func (w *writeRecorder) Write(b []byte) (int, error) {
	w.writes = append(w.writes, string(b))
	return len(b), nil
}

func TestPlantedDuplicateReplyIsOneWrite(t *testing.T) {
	rec := &writeRecorder{}
	lw := &lineWriter{w: rec, broken: func(error) {}}
	m := jsonrpc.NewError(jsonrpc.IntID(3), jsonrpc.CodeInternalError, "x")
	lw.lines(m, m)
	line := `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"x"}}` + "\n"
	if len(rec.writes) != 1 || rec.writes[0] != line+line {
		t.Fatalf("writes %q, want the line twice in one write", rec.writes)
	}
}

func TestPlantedDuplicateReply(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.PlantedDuplicateReply} {
		p := serveLines(t, Options{Mutant: m})
		p.initialize()
		p.send(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"alert"}}`)
		p.wantResult("2")
		p.send(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"emergency"}}`)
		p.wantResult("3")
		rest, err := p.closeAndRest()
		want := 0
		if m != "" {
			want = 1
		}
		if err != nil || len(rest) != want || (want == 1 && !strings.Contains(rest[0], `"id":3`)) {
			t.Fatalf("mutant %q: after the answers: %v, %q; want %d more answer to id 3", m, err, rest, want)
		}
	}
}

func TestPlantedStdoutLog(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.PlantedStdoutLog} {
		p := serveLines(t, Options{Mutant: m})
		p.initialize() // request 1
		for n := 2; n <= 21; n++ {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, n))
			if m != "" && n >= 20 {
				if l := p.next(); l != fmt.Sprintf("mcpconform: handled request %d", n) {
					t.Fatalf("before the answer to request %d: %q, want the log line", n, l)
				}
			}
			p.wantResult(fmt.Sprint(n))
		}
		if rest, err := p.closeAndRest(); err != nil || len(rest) > 0 {
			t.Fatalf("mutant %q: after the answers: %v, %q", m, err, rest)
		}
	}
}

func TestPlantedWedgeAfterUnknownCancelOnStdio(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.PlantedWedgeAfterUnknownCancel} {
		p := serveLines(t, Options{Mutant: m})
		p.initialize()
		p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}`,
			`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		rest, err := p.closeAndRest()
		if err != nil {
			t.Fatal(err)
		}
		if m == "" && (len(rest) != 1 || !strings.Contains(rest[0], `"id":2`)) {
			t.Fatalf("the reference wrote %q, want the answer to the ping", rest)
		}
		if m != "" && len(rest) != 0 {
			t.Fatalf("the mutant wrote %q after a cancel for an id it never received", rest)
		}
	}
}

// TestPlantedResponseAfterCancel: a slow call cancelled while it runs gets
// no answer from the reference; the mutant answers it with error -32800,
// written just before the answer to the ping sent after the cancel.
func TestPlantedResponseAfterCancel(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.PlantedResponseAfterCancel} {
		p := serveLines(t, Options{Mutant: m})
		p.initialize()
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"t"}}}`)
		if n := p.nextMessage(); n.Method != "notifications/progress" {
			t.Fatalf("mutant %q: got %s %s, want the slow call's progress", m, n.Kind(), n.Method)
		}
		p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		if m != "" {
			p.wantError(-32800, "2")
		}
		p.wantResult("3")
		if rest, err := p.closeAndRest(); err != nil || len(rest) > 0 {
			t.Fatalf("mutant %q: after the answers: %v, %q", m, err, rest)
		}
	}
}
