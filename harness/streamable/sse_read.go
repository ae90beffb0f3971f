package streamable

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// ErrEventTooLarge is the error of an SSE event whose raw size passes the
// reader's limit (RM-09). It is sticky: the stream is failed, never resumed.
var ErrEventTooLarge = errors.New("SSE event larger than the limit")

// Event is one server-sent event (HT-17, HT-28, HT-29b).
type Event struct {
	// ID is the event's own id field; "" when it has none (an id carried by
	// an earlier event does not carry over, so duplicates can be told).
	ID string
	// Type is the event field; "" means the default type, "message".
	Type string
	// Data is the data fields joined with "\n"; "" for an event without data,
	// such as a priming event that carries only an id.
	Data string
	// Retry is the reconnection delay of a retry field, when HasRetry.
	Retry    time.Duration
	HasRetry bool
}

// sseBufferSize is how much the reader asks of its source at a time.
const sseBufferSize = 32 << 10

// SSEReader reads server-sent events from a byte stream, bounding the raw
// size of each event (RM-09): every non-comment line's bytes plus one byte
// per line break count; a blank line ends the event and resets the count;
// CR, LF and CRLF all end a line, also when the CR and the LF arrive in
// different reads; comment lines (starting ':') do not count. An event of
// exactly the limit is accepted; one byte more fails the stream with
// ErrEventTooLarge, and the reader never holds more than the limit of one
// event (plus its read buffer) whatever the source sends. Events are
// returned when they end, so an event cut off by the end of the stream is
// discarded, as EventSource does. A byte-order mark at the start is skipped.
type SSEReader struct {
	src    io.Reader
	max    int
	mutant mutant.Name

	buf        []byte
	pos, end   int
	lfAt, crAt int   // the next LF and CR in buf[pos:end], end when none; stale when < pos
	readErr    error // the source's error, returned once the buffer is spent
	failed     error // sticky ErrEventTooLarge
	bomChecked bool

	line    []byte // a line that spans reads, without its break
	inLine  bool   // a line has begun in an earlier read
	comment bool   // the line that began is a comment
	afterCR bool   // the last line ended with CR: an LF next is part of that break
	splitCR bool   // that CR was the last byte of a read

	size     int // raw size of the event so far
	fields   bool
	data     []byte
	typ      string
	id       string
	retry    time.Duration
	hasRetry bool
}

// NewSSEReader returns a reader of the events in r that rejects any event
// of more than maxEventSize raw bytes (RM-09).
func NewSSEReader(r io.Reader, maxEventSize int) *SSEReader {
	return newSSEReader(r, maxEventSize, "")
}

// newSSEReader is NewSSEReader running mutant m.
func newSSEReader(r io.Reader, maxEventSize int, m mutant.Name) *SSEReader {
	return &SSEReader{src: r, max: maxEventSize, mutant: m, buf: make([]byte, sseBufferSize), lfAt: -1, crAt: -1}
}

// Next returns the next event. At the end of the stream it returns the
// source's error (io.EOF for a clean end); after an event past the limit it
// returns an error wrapping ErrEventTooLarge, now and on every later call.
// An event is returned when it has at least one field line; events with no
// data (an id or a retry alone) are returned too.
func (r *SSEReader) Next() (Event, error) {
	if r.failed != nil {
		return Event{}, r.failed
	}
	for {
		if r.pos == r.end {
			if r.readErr != nil {
				return Event{}, r.readErr
			}
			r.fill()
			continue
		}
		if r.afterCR {
			r.afterCR = false
			if r.buf[r.pos] == '\n' {
				r.pos++
				if r.splitCR && r.mutant == mutant.SSESplitCRLFTwice {
					if err := r.grow(1); err != nil {
						return Event{}, err
					}
				}
				continue
			}
		}
		i := r.lineEnd()
		if i < 0 {
			if err := r.takePartial(r.buf[r.pos:r.end]); err != nil {
				return Event{}, err
			}
			r.pos = r.end
			continue
		}
		line := r.buf[r.pos:i]
		if r.buf[i] == '\r' {
			r.afterCR, r.splitCR = true, i+1 == r.end
		}
		r.pos = i + 1
		ev, ok, err := r.endLine(line)
		if err != nil {
			return Event{}, err
		}
		if ok {
			return ev, nil
		}
	}
}

// fill reads more of the source into the empty buffer. At the start of the
// stream it reads until it can tell whether a byte-order mark is there.
func (r *SSEReader) fill() {
	r.pos, r.end, r.lfAt, r.crAt = 0, 0, -1, -1
	for empty := 0; r.readErr == nil; {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		r.readErr = err
		if n == 0 && err == nil {
			if empty++; empty == 100 {
				r.readErr = io.ErrNoProgress
			}
			continue
		}
		if r.bomChecked {
			return
		}
		if r.end >= 3 || r.readErr != nil {
			r.bomChecked = true
			if bytes.HasPrefix(r.buf[:r.end], []byte("\xEF\xBB\xBF")) {
				r.pos = 3
			}
			return
		}
	}
}

// lineEnd returns the index of the first CR or LF in buf[pos:end], or -1.
func (r *SSEReader) lineEnd() int {
	if r.lfAt < r.pos {
		r.lfAt = indexFrom(r.buf[:r.end], r.pos, '\n')
	}
	if r.crAt < r.pos {
		r.crAt = indexFrom(r.buf[:r.end], r.pos, '\r')
	}
	if i := min(r.lfAt, r.crAt); i < r.end {
		return i
	}
	return -1
}

// indexFrom returns the index of c in b at or after from, or len(b).
func indexFrom(b []byte, from int, c byte) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return len(b)
}

// over reports whether an event of raw size n passes the limit.
func (r *SSEReader) over(n int) bool {
	switch r.mutant {
	case mutant.NoSSELimit, mutant.NoSSECap:
		return false
	case mutant.SSELimitOffByOne:
		return n >= r.max
	}
	return n > r.max
}

// tooLarge fails the stream.
func (r *SSEReader) tooLarge(n int) error {
	r.failed = fmt.Errorf("%w: an event reached %d raw bytes, over the limit of %d (RM-09)", ErrEventTooLarge, n, r.max)
	r.line, r.data = nil, nil
	return r.failed
}

// grow adds n to the event's raw size.
func (r *SSEReader) grow(n int) error {
	r.size += n
	if r.over(r.size) {
		return r.tooLarge(r.size)
	}
	return nil
}

// takePartial keeps the start of a line whose end is in a later read. A
// comment's bytes are dropped; any other line is rejected as soon as it
// cannot fit, so the reader never holds more than the limit.
func (r *SSEReader) takePartial(b []byte) error {
	if !r.inLine {
		r.inLine, r.comment = true, b[0] == ':'
	}
	if r.comment {
		return nil
	}
	if n := r.size + len(r.line) + len(b) + 1; r.over(n) {
		return r.tooLarge(n)
	}
	r.appendLine(b)
	return nil
}

// appendLine adds b to the line that spans reads. The buffer doubles, but
// never past the limit, so even a line the limit rejects costs at most about
// twice the limit (the buffer and the garbage of its growth).
func (r *SSEReader) appendLine(b []byte) {
	if need := len(r.line) + len(b); need > cap(r.line) {
		size := max(2*cap(r.line), need, sseBufferSize)
		if r.mutant != mutant.NoSSELimit && r.mutant != mutant.NoSSECap {
			size = max(min(size, r.max), need)
		}
		grown := make([]byte, len(r.line), size)
		copy(grown, r.line)
		r.line = grown
	}
	r.line = append(r.line, b...)
}

// endLine handles one complete line (without its break); it returns an
// event when the line is the blank line that ends one.
func (r *SSEReader) endLine(tail []byte) (Event, bool, error) {
	line, comment := tail, len(tail) > 0 && tail[0] == ':'
	if r.inLine {
		comment = r.comment
		if !comment {
			if n := r.size + len(r.line) + len(tail) + 1; r.over(n) {
				return Event{}, false, r.tooLarge(n)
			}
			r.appendLine(tail)
			line = r.line
		}
		defer r.resetLine()
	}
	switch {
	case comment:
		return Event{}, false, nil
	case len(line) == 0:
		ev, ok := r.dispatch()
		return ev, ok, nil
	}
	if err := r.grow(len(line) + 1); err != nil {
		return Event{}, false, err
	}
	r.field(line)
	return Event{}, false, nil
}

// resetLine forgets the line that spanned reads, keeping a small buffer.
func (r *SSEReader) resetLine() {
	r.inLine, r.comment = false, false
	if cap(r.line) > sseBufferSize {
		r.line = nil
	}
	r.line = r.line[:0]
}

// field applies one field line (WHATWG server-sent events, "Interpreting an
// event stream"). Unknown fields are ignored.
func (r *SSEReader) field(line []byte) {
	r.fields = true
	name, value, found := bytes.Cut(line, []byte(":"))
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "data":
		r.data = append(append(r.data, value...), '\n')
	case "event":
		r.typ = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = string(value)
		}
	case "retry":
		if ms, ok := parseRetry(value); ok {
			r.retry, r.hasRetry = ms, true
		}
	}
}

// parseRetry reads a retry field: ASCII digits, milliseconds.
func parseRetry(v []byte) (time.Duration, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	ms, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || ms > int64(time.Duration(1<<63-1)/time.Millisecond) {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// dispatch ends the event at a blank line and resets the count.
func (r *SSEReader) dispatch() (Event, bool) {
	had := r.fields
	ev := Event{ID: r.id, Type: r.typ, Retry: r.retry, HasRetry: r.hasRetry}
	if len(r.data) > 0 {
		ev.Data = string(r.data[:len(r.data)-1])
	}
	r.size, r.fields, r.typ, r.id, r.retry, r.hasRetry = 0, false, "", "", 0, false
	if cap(r.data) > sseBufferSize {
		r.data = nil
	}
	r.data = r.data[:0]
	return ev, had
}
