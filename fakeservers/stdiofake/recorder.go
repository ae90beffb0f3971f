package stdiofake

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
	"unicode/utf8"
)

// Recorder appends events to a record file, one JSON object a line, each line
// written with a single write call on a file opened with O_APPEND, so the
// events of several processes sharing the file never interleave mid-line.
// A nil *Recorder records nothing.
type Recorder struct {
	mu  sync.Mutex
	f   *os.File
	pid int
}

// OpenRecorder opens path for appending, creating it if needed. An empty
// path returns a nil Recorder, which records nothing.
func OpenRecorder(path string) (*Recorder, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open fake server record: %w", err)
	}
	return &Recorder{f: f, pid: os.Getpid()}, nil
}

// Record appends e, stamped with the current time (unless T is set) and the
// recording process's pid. Write errors are dropped: a record is evidence,
// and a fake must keep behaving as scripted even when it cannot keep it.
func (r *Recorder) Record(e Event) {
	if r == nil {
		return
	}
	if e.T == 0 {
		e.T = time.Now().UnixNano()
	}
	e.By = r.pid
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	line = append(line, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.f.Write(line)
}

// Recv records a line received on stdin. A line that is not UTF-8 loses its
// bad bytes in the JSON record, so its event says so in Detail (JR-02).
func (r *Recorder) Recv(line string) {
	e := Event{Type: EventRecv, Line: line}
	if !utf8.ValidString(line) {
		e.Detail = DetailNotUTF8
	}
	r.Record(e)
}

// DetailNotUTF8 is the Detail of a received line that is not UTF-8.
const DetailNotUTF8 = "not UTF-8"

// Note records anything else worth knowing.
func (r *Recorder) Note(detail string) { r.Record(Event{Type: EventNote, Detail: detail}) }

// Exit records that the fake is about to exit by itself, and why.
func (r *Recorder) Exit(detail string) { r.Record(Event{Type: EventExit, Detail: detail}) }

// Close closes the record file.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f.Close()
}
