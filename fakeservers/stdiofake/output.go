package stdiofake

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// stream is stdout or stderr of a fake. Writers hold its lock for a whole
// group of lines, so the output of concurrent handlers never interleaves
// within a group.
type stream struct {
	name     string
	mu       sync.Mutex
	w        io.Writer
	rec      *Recorder
	sendings bool // record each written line as an EventSend (stdout)
}

// group runs write with the stream to itself. The first write error ends the
// group and is recorded as a note, "write stdout: …" on stdout (the client
// closed its end, for instance).
func (st *stream) group(write func(w *lineWriter)) {
	st.mu.Lock()
	defer st.mu.Unlock()
	w := &lineWriter{st: st}
	write(w)
	if w.err != nil {
		st.rec.Note(fmt.Sprintf("write %s: %v", st.name, w.err))
	}
}

// stdoutWriteFailed starts the note of a failed write to stdout.
const stdoutWriteFailed = "write stdout: "

// lineWriter writes within one group; after an error it writes nothing more.
type lineWriter struct {
	st  *stream
	buf []byte
	err error
}

// line writes text and a newline in a single write call, then records it
// (on stdout) at the time the write began: the client may read it and
// answer before the record is made, and its answer must not seem earlier.
func (w *lineWriter) line(text string) {
	if w.err != nil {
		return
	}
	w.buf = append(append(w.buf[:0], text...), '\n')
	at := time.Now()
	if _, w.err = w.st.w.Write(w.buf); w.err == nil && w.st.sendings {
		w.st.rec.Record(Event{Type: EventSend, Line: text, T: at.UnixNano()})
	}
}

// message writes m as one line of JSON.
func (w *lineWriter) message(m *jsonrpc.Message) { w.line(string(fakeservers.Encode(m))) }

// raw writes b as is, unrecorded (stderr floods).
func (w *lineWriter) raw(b []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.st.w.Write(b)
}
