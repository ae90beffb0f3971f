package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestLogClipsLongStrings: a tool result of a megabyte (an environment
// dump) is kept as the same JSON with its long string cut to
// MaxStringBytes and the count of bytes cut; the frame stays small.
func TestLogClipsLongStrings(t *testing.T) {
	dump := strings.Repeat(`PATH=/usr/bin \"quoted\" é `, 40_000)
	frame := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + dump + `"}],"short":"kept"}}`
	var log Log
	log.Add(ServerToClient, frame)
	e := log.Entries()[0]
	if e.Dir != ServerToClient || len(e.Line) > MaxStringBytes+200 {
		t.Fatalf("kept %s of %d bytes", e.Dir, len(e.Line))
	}
	var m struct {
		Result struct {
			Content []struct{ Text string }
			Short   string
		}
	}
	if err := json.Unmarshal([]byte(e.Line), &m); err != nil {
		t.Fatalf("the clipped frame is no JSON: %v\n%s", err, e.Line)
	}
	text := m.Result.Content[0].Text
	if !strings.HasPrefix(text, `PATH=/usr/bin "quoted" é `) || m.Result.Short != "kept" {
		t.Errorf("text %.40q, short %q", text, m.Result.Short)
	}
	// What was kept of the string, as written in the frame, and what was
	// cut make the whole string.
	start := strings.Index(e.Line, `"text":"`) + len(`"text":"`)
	kept := strings.Index(e.Line, ClipMark) - start
	var cut int
	if _, err := fmt.Sscanf(e.Line[start+kept:], ClipMark+" (%d bytes cut)", &cut); err != nil || kept > MaxStringBytes || kept+cut != len(dump) {
		t.Errorf("kept %d bytes (at most %d) and cut %d (%v) of a string of %d", kept, MaxStringBytes, cut, err, len(dump))
	}
	// A short frame and a note are kept as they are.
	log = Log{}
	log.Add(ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	log.Add(Note, strings.Repeat("n", MaxLineBytes+1))
	if got := log.Entries(); got[0].Line != `{"jsonrpc":"2.0","id":1,"method":"ping"}` || len(got[1].Line) != MaxLineBytes+1 {
		t.Errorf("entries changed: %.80q", got)
	}
}

// TestLogKeepsTheStartOfATooLongFrame: a frame still too long once its
// strings are clipped (many short ones), or text, is a note with its
// length and an excerpt that says what was cut.
func TestLogKeepsTheStartOfATooLongFrame(t *testing.T) {
	many := "[" + strings.Repeat(`"item",`, MaxLineBytes/7+10) + `"last"]`
	text := "banner " + strings.Repeat("x", MaxLineBytes)
	var log Log
	log.Add(ServerToClient, many)
	log.Add(ClientToServer, text)
	got := log.Entries()
	for i, c := range []struct{ in, dir string }{{many, "s2c"}, {text, "c2s"}} {
		e := got[i]
		prefix := fmt.Sprintf("%s frame of %d bytes, too long to record; it begins: %s", c.dir, len(c.in), c.in[:ExcerptBytes])
		if e.Dir != Note || !strings.HasPrefix(e.Line, prefix) || !strings.HasSuffix(e.Line, fmt.Sprintf("… (%d bytes cut)", len(c.in)-ExcerptBytes)) {
			t.Errorf("entry %d: %s %.300s", i, e.Dir, e.Line)
		}
	}
}
