package fakeservers

// Record event types: what a fake writes to its record file, one JSON object a line.
const (
	EventStart     = "start"      // the fake started; PID set
	EventRecv      = "recv"       // a line arrived on stdin; Line set (without newline)
	EventSend      = "send"       // a line was written to stdout; Line set
	EventStdinEOF  = "stdin_eof"  // stdin reached EOF
	EventSigterm   = "sigterm"    // SIGTERM arrived
	EventChild     = "child"      // a descendant was started; PID set
	EventExit      = "exit"       // the fake exits by itself; Detail says why
	EventNote      = "note"       // anything else worth knowing; Detail set
)

// Event is one line of a record file. T is the wall clock in Unix nanoseconds.
type Event struct {
	T      int64  `json:"t"`
	Type   string `json:"type"`
	Line   string `json:"line,omitempty"`
	PID    int    `json:"pid,omitempty"`
	Detail string `json:"detail,omitempty"`
}
