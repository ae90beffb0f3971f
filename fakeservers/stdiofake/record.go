package stdiofake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// Record event types: what a fake writes to its record file, one JSON object a line.
const (
	EventStart    = "start"     // the fake started; PID set, Detail is the case ID
	EventRecv     = "recv"      // a line arrived on stdin; Line set (without newline)
	EventSend     = "send"      // a line was written to stdout; Line set
	EventStdinEOF = "stdin_eof" // stdin reached EOF
	EventSigterm  = "sigterm"   // SIGTERM arrived
	EventChild    = "child"     // a descendant was started; PID set
	EventExit     = "exit"      // the fake exits by itself; Detail says why
	EventNote     = "note"      // anything else worth knowing; Detail set
)

// Event is one line of a record file. T is the wall clock in Unix nanoseconds.
// By is the pid of the process that wrote the event, so the events of a fake
// and of its grandchild, which share one record file, can be told apart.
type Event struct {
	T      int64  `json:"t"`
	Type   string `json:"type"`
	Line   string `json:"line,omitempty"`
	PID    int    `json:"pid,omitempty"`
	Detail string `json:"detail,omitempty"`
	By     int    `json:"by,omitempty"`
}

// Record is what one or more fakes wrote to a record file, in file order.
type Record struct {
	Events []Event
}

// ReadRecord reads a record file. A missing file is an empty record (the fake
// never started); a last line without its newline (a write torn by a kill) is
// ignored. Any other line that is not an event is an error.
func ReadRecord(path string) (*Record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Record{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read fake server record: %w", err)
	}
	r := &Record{}
	for n := 1; len(data) > 0; n++ {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		if !complete {
			break
		}
		data = rest
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("fake server record %s line %d: %w", path, n, err)
		}
		r.Events = append(r.Events, e)
	}
	return r, nil
}

// Lines returns the text of every line the fakes received on stdin.
func (r *Record) Lines() []string {
	var lines []string
	for _, e := range r.Events {
		if e.Type == EventRecv {
			lines = append(lines, e.Line)
		}
	}
	return lines
}

// Messages returns the JSON-RPC messages of the received lines, a batch
// line's one by one.
func (r *Record) Messages() []*jsonrpc.Message {
	var msgs []*jsonrpc.Message
	for _, e := range r.Events {
		msgs = append(msgs, recvMessages(e)...)
	}
	return msgs
}

// Requests returns the received requests for method.
func (r *Record) Requests(method string) []*jsonrpc.Message {
	return r.messagesOf(jsonrpc.KindRequest, method)
}

// Notifications returns the received notifications for method.
func (r *Record) Notifications(method string) []*jsonrpc.Message {
	return r.messagesOf(jsonrpc.KindNotification, method)
}

func (r *Record) messagesOf(kind jsonrpc.Kind, method string) []*jsonrpc.Message {
	var msgs []*jsonrpc.Message
	for _, m := range r.Messages() {
		if m.Kind() == kind && m.Method == method {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// First returns the first event of eventType.
func (r *Record) First(eventType string) (Event, bool) {
	for _, e := range r.Events {
		if e.Type == eventType {
			return e, true
		}
	}
	return Event{}, false
}

// FirstRecv returns the first received line that is a message (request or
// notification) for method; its T is when it arrived.
func (r *Record) FirstRecv(method string) (Event, bool) {
	for _, e := range r.Events {
		for _, m := range recvMessages(e) {
			if m.Method == method {
				return e, true
			}
		}
	}
	return Event{}, false
}

// PIDs returns the pids of the started fakes: the fake the client launched
// and any grandchild that recorded its own start.
func (r *Record) PIDs() []int { return r.pidsOf(EventStart) }

// Children returns the pids of the descendants the fakes started.
func (r *Record) Children() []int { return r.pidsOf(EventChild) }

func (r *Record) pidsOf(eventType string) []int {
	var pids []int
	for _, e := range r.Events {
		if e.Type == eventType && e.PID != 0 && !slices.Contains(pids, e.PID) {
			pids = append(pids, e.PID)
		}
	}
	return pids
}

// ExitedByItself reports whether a fake (not one of its descendants) exited
// on its own: on stdin EOF, by its script, or by its watchdog. A fake ended by
// SIGTERM or SIGKILL did not.
func (r *Record) ExitedByItself() bool {
	children := r.Children()
	for _, e := range r.Events {
		if e.Type == EventExit && !slices.Contains(children, e.By) {
			return true
		}
	}
	return false
}

// ClosedBy says how the client ended the fakes' session, as a fake
// recorded it: it closed the fake's stdin, sent SIGTERM, or closed its end
// of the fake's stdout (a write failed); "" when none was recorded.
func (r *Record) ClosedBy() string {
	for _, e := range r.Events {
		switch {
		case e.Type == EventStdinEOF:
			return "closed the server's stdin"
		case e.Type == EventSigterm:
			return "sent the server SIGTERM"
		case e.Type == EventNote && strings.HasPrefix(e.Detail, stdoutWriteFailed):
			return "closed its end of the server's stdout (" + e.Detail + ")"
		}
	}
	return ""
}

// recvMessages decodes a recv event's line: a message, or a batch's; none
// when it is neither.
func recvMessages(e Event) []*jsonrpc.Message {
	if e.Type != EventRecv {
		return nil
	}
	return fakeservers.DecodeFrame([]byte(e.Line))
}
