package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
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

// EventBytes is an Event in the reader's own memory, as NextBytes returns
// it: ID, Type and Data mean what they mean in Event (empty when absent),
// and the event and its bytes stay valid only until the next call of
// NextBytes or Next, which may overwrite them. A caller that keeps one
// copies it.
type EventBytes struct {
	ID, Type, Data []byte
	Retry          time.Duration
	HasRetry       bool
}

// sseBufferSize is how much the reader asks of its source at a time.
const sseBufferSize = 32 << 10

// sseChunkSize bounds the pieces a value too big for one buffer is held in
// (see valueBuf).
const sseChunkSize = 1 << 20

// Reader reads server-sent events from a byte stream, bounding the raw
// size of each event (RM-09): every non-comment line's bytes plus one byte
// per line break count; a blank line ends the event and resets the count;
// CR, LF and CRLF all end a line, also when the CR and the LF arrive in
// different reads; comment lines (starting ':') do not count. An event of
// exactly the limit is accepted; one byte more fails the stream with
// ErrEventTooLarge, and the reader never holds more than the limit of one
// event (plus its read buffer) whatever the source sends. Events are
// returned when they end, so an event cut off by the end of the stream is
// discarded, as EventSource does. A byte-order mark at the start is skipped.
//
// Lines are parsed where they lie in the read buffer, and an event's id,
// type and one data line are returned from there; what must be copied (more
// data lines, a line that spans reads, a value the buffer is refilled under)
// collects in buffers the reader reuses. NextBytes therefore allocates
// nothing per event once those buffers have grown to the stream's events;
// Next allocates the strings of what the event carries, one each.
type Reader struct {
	src    io.Reader
	max    int
	accept int // the largest raw size of an event the reader accepts: max, unless a mutant says otherwise
	mutant mutant.Name

	buf        []byte
	pos, end   int
	lfAt, crAt int   // the next LF and CR in buf[pos:end], end when none; stale when < pos
	readErr    error // the source's error, returned once the buffer is spent
	failed     error // sticky ErrEventTooLarge
	bomChecked bool

	afterCR bool // the last line ended with the last byte of a read, a CR: an LF next is part of that break

	// A line that spans reads is parsed as its bytes arrive.
	inLine    bool
	kind      lineKind           // what the line is, as far as its bytes so far tell
	lineLen   int                // its raw bytes so far
	name      [len("retry")]byte // the start of its field name
	nameLen   int                // the name's length so far, also past what name holds
	skipSpace bool               // its colon came last: a space next is part of the colon
	value     valueBuf           // its value, when an event, id or retry field

	size     int       // raw size of the event so far
	fields   bool      // the event has had a field line
	hasData  bool      // it has had a data line
	data     heldValue // its data lines joined with "\n"
	typ      heldValue
	id       heldValue
	retry    time.Duration
	hasRetry bool

	event EventBytes // what NextBytes returns
}

// lineKind is what a line is: a comment or the field it names.
type lineKind uint8

const (
	lineName    lineKind = iota // a field line whose name has not ended yet
	lineComment                 // starts with ':'
	lineData
	lineEvent
	lineID
	lineRetry
	lineOther // a field the reader ignores
)

// NewReader returns a reader of the events in r that rejects any event
// of more than maxEventSize raw bytes (RM-09).
func NewReader(r io.Reader, maxEventSize int) *Reader {
	return NewMutantReader(r, maxEventSize, "")
}

// NewMutantReader is NewReader running mutant m.
func NewMutantReader(r io.Reader, maxEventSize int, m mutant.Name) *Reader {
	return &Reader{src: r, max: maxEventSize, accept: accepted(maxEventSize, m), mutant: m, buf: make([]byte, sseBufferSize), lfAt: -1, crAt: -1}
}

// accepted returns the largest raw size of an event a reader with the
// limit max accepts when it runs mutant m.
func accepted(max int, m mutant.Name) int {
	switch m {
	case mutant.NoSSELimit, mutant.NoSSECap:
		return math.MaxInt
	case mutant.SSELimitOffByOne:
		return max - 1
	}
	return max
}

// Next returns the next event. At the end of the stream it returns the
// source's error (io.EOF for a clean end); after an event past the limit it
// returns an error wrapping ErrEventTooLarge, now and on every later call.
// An event is returned when it has at least one field line; events with no
// data (an id or a retry alone) are returned too.
func (r *Reader) Next() (Event, error) {
	if err := r.advance(); err != nil {
		return Event{}, err
	}
	return Event{ID: r.id.text(), Type: r.typ.text(), Data: r.data.text(), Retry: r.retry, HasRetry: r.hasRetry}, nil
}

// NextBytes is Next without the copies: it returns the event in the
// reader's own memory (see EventBytes), which the next call overwrites, or
// nil and the error Next would return.
func (r *Reader) NextBytes() (*EventBytes, error) {
	if err := r.advance(); err != nil {
		return nil, err
	}
	r.event = EventBytes{ID: r.id.bytes(), Type: r.typ.bytes(), Data: r.data.bytes(), Retry: r.retry, HasRetry: r.hasRetry}
	return &r.event, nil
}

// advance reads up to the end of the next event, which it leaves in the
// reader's event fields until the next call.
func (r *Reader) advance() error {
	if r.failed != nil {
		return r.failed
	}
	r.clearEvent()
	for {
		if r.pos == r.end {
			if r.readErr != nil {
				return r.readErr
			}
			r.fill()
			continue
		}
		if r.afterCR {
			r.afterCR = false
			if r.buf[r.pos] == '\n' {
				r.pos++
				if r.mutant == mutant.SSESplitCRLFTwice {
					if err := r.grow(1); err != nil {
						return err
					}
				}
				continue
			}
		}
		i := r.lineEnd()
		if i < 0 {
			if err := r.partial(r.buf[r.pos:r.end]); err != nil {
				return err
			}
			r.pos = r.end
			continue
		}
		line := r.buf[r.pos:i]
		r.pos = i + 1
		if r.buf[i] == '\r' {
			switch {
			case r.pos == r.end:
				r.afterCR = true
			case r.buf[r.pos] == '\n':
				r.pos++
			}
		}
		var err error
		switch {
		case r.inLine:
			err = r.endPartial(line)
		case len(line) == 0:
			if r.fields {
				r.size, r.fields = 0, false
				return nil
			}
			r.size = 0
		case line[0] != ':':
			err = r.field(line)
		}
		if err != nil {
			return err
		}
	}
}

// clearEvent forgets the event the last call returned.
func (r *Reader) clearEvent() {
	r.hasData, r.retry, r.hasRetry = false, 0, false
	r.data.reset()
	r.typ.reset()
	r.id.reset()
}

// fill reads more of the source into the empty buffer. At the start of the
// stream it reads until it can tell whether a byte-order mark is there.
func (r *Reader) fill() {
	r.data.spill(r.max)
	r.typ.spill(r.max)
	r.id.spill(r.max)
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
func (r *Reader) lineEnd() int {
	if c := r.buf[r.pos]; c == '\n' || c == '\r' {
		return r.pos // a blank line, or the break of a line that spans reads
	}
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
func (r *Reader) over(n int) bool {
	return n > r.accept
}

// tooLarge fails the stream and lets go of what the event held.
func (r *Reader) tooLarge(n int) error {
	r.failed = fmt.Errorf("%w: an event reached %d raw bytes, over the limit of %d (RM-09)", ErrEventTooLarge, n, r.max)
	r.data, r.typ, r.id, r.value = heldValue{}, heldValue{}, heldValue{}, valueBuf{}
	return r.failed
}

// grow adds n to the event's raw size.
func (r *Reader) grow(n int) error {
	r.size += n
	if r.over(r.size) {
		return r.tooLarge(r.size)
	}
	return nil
}

// field applies one field line that lies whole in the buffer.
func (r *Reader) field(line []byte) error {
	if err := r.grow(len(line) + 1); err != nil {
		return err
	}
	r.fields = true
	switch k, value := splitField(line); k {
	case lineData:
		if !r.hasData {
			r.hasData = true
			r.data.hold(value)
			return nil
		}
		r.startData()
		r.data.own.write(value, r.max)
	case lineEvent, lineID, lineRetry:
		r.setField(k, value)
	}
	return nil
}

// splitField returns what a field line names and its value (WHATWG
// server-sent events, "Interpreting an event stream"): the name runs to the
// first colon, one space after it is dropped, a line without a colon is a
// name with an empty value. A line that starts with a name the reader knows
// and its colon, as nearly every line does, is not searched for the colon.
func splitField(line []byte) (lineKind, []byte) {
	var k lineKind
	var value []byte
	switch {
	case startsField(line, "data"):
		k, value = lineData, line[len("data:"):]
	case startsField(line, "id"):
		k, value = lineID, line[len("id:"):]
	case startsField(line, "event"):
		k, value = lineEvent, line[len("event:"):]
	case startsField(line, "retry"):
		k, value = lineRetry, line[len("retry:"):]
	default:
		name := line
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
		}
		k = fieldKind(name)
	}
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return k, value
}

// startsField reports whether line starts with name and a colon.
func startsField(line []byte, name string) bool {
	return len(line) > len(name) && line[len(name)] == ':' && string(line[:len(name)]) == name
}

var newline = []byte("\n")

// fieldKind returns the kind of the field line named name.
func fieldKind(name []byte) lineKind {
	switch string(name) {
	case "data":
		return lineData
	case "event":
		return lineEvent
	case "id":
		return lineID
	case "retry":
		return lineRetry
	}
	return lineOther
}

// setField applies an event, id or retry field that lay whole in buf. An id
// holding NUL is ignored, and so is a retry that is not ASCII digits.
func (r *Reader) setField(k lineKind, value []byte) {
	switch k {
	case lineEvent:
		r.typ.hold(value)
	case lineID:
		if !hasNUL(value) {
			r.id.hold(value)
		}
	case lineRetry:
		if ms, ok := parseRetry(value); ok {
			r.retry, r.hasRetry = ms, true
		}
	}
}

// setSpanned is setField for a field that spanned reads, whose value
// r.value holds: the value becomes the event's type or id as it is, not
// copied, and r.value is left empty.
func (r *Reader) setSpanned(k lineKind) {
	switch k {
	case lineEvent:
		r.typ.take(&r.value)
	case lineID:
		if !r.value.has(0) {
			r.id.take(&r.value)
		}
	case lineRetry:
		if ms, ok := parseRetry(r.value.bytes()); ok {
			r.retry, r.hasRetry = ms, true
		}
	}
	r.value.reset()
}

// hasNUL reports whether b holds a NUL byte. Ids are short, and over a few
// bytes a loop costs less than a call into IndexByte's vector code.
func hasNUL(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}

// partial takes the start of a line whose end is in a later read. A
// comment's bytes are dropped; any other line is rejected as soon as it
// cannot fit, so the reader never holds more than the limit, and is parsed
// as it comes: data goes straight to the event's data, the name is kept
// only as far as a known one can run.
func (r *Reader) partial(b []byte) error {
	if !r.inLine {
		r.inLine, r.kind, r.lineLen, r.nameLen, r.skipSpace = true, lineName, 0, 0, false
		if b[0] == ':' {
			r.kind = lineComment
		}
	}
	if r.kind == lineComment {
		return nil
	}
	r.lineLen += len(b)
	if n := r.size + r.lineLen + 1; r.over(n) {
		return r.tooLarge(n)
	}
	r.feed(b)
	return nil
}

// feed parses more bytes of the line that spans reads.
func (r *Reader) feed(b []byte) {
	if r.kind == lineName {
		i := bytes.IndexByte(b, ':')
		name := b
		if i >= 0 {
			name = b[:i]
		}
		if r.nameLen+len(name) <= len(r.name) {
			copy(r.name[r.nameLen:], name)
		}
		r.nameLen += len(name)
		if i < 0 {
			return
		}
		r.kind, r.skipSpace = r.nameKind(), true
		if r.kind == lineData {
			r.startData()
		}
		b = b[i+1:]
	}
	if r.skipSpace && len(b) > 0 {
		r.skipSpace = false
		if b[0] == ' ' {
			b = b[1:]
		}
	}
	switch r.kind {
	case lineData:
		r.data.own.write(b, r.max)
	case lineEvent, lineID, lineRetry:
		r.value.write(b, r.max)
	}
}

// startData begins a data line whose value is to be copied, as a second
// line's or one that spans reads is: after the data so far, itself copied
// out of buf.
func (r *Reader) startData() {
	r.data.spill(r.max)
	if r.hasData {
		r.data.own.write(newline, r.max)
	}
	r.hasData = true
}

// nameKind returns the kind of the field the line that spans reads names.
func (r *Reader) nameKind() lineKind {
	if r.nameLen > len(r.name) {
		return lineOther
	}
	return fieldKind(r.name[:r.nameLen])
}

// endPartial ends the line that spanned reads with tail, its last bytes.
func (r *Reader) endPartial(tail []byte) error {
	r.inLine = false
	if r.kind == lineComment {
		return nil
	}
	if err := r.grow(r.lineLen + len(tail) + 1); err != nil {
		return err
	}
	r.fields = true
	r.feed(tail)
	k := r.kind
	if k == lineName { // a name without a colon: a field with an empty value
		if k = r.nameKind(); k == lineData {
			r.startData()
		}
	}
	switch k {
	case lineEvent, lineID, lineRetry:
		r.setSpanned(k)
	}
	return nil
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
