package sse

import (
	"io"
	"net/http"
	"strconv"
	"time"
)

// Writer writes Server-Sent Events to one HTTP response (the reference
// server's answers and GET streams).
type Writer struct {
	w     io.Writer
	rc    *http.ResponseController
	retry time.Duration // the retry field of priming events
	buf   []byte
}

// NewWriter writes to w, with retry as the retry field of priming events.
func NewWriter(w http.ResponseWriter, retry time.Duration) *Writer {
	return &Writer{w: w, rc: http.NewResponseController(w), retry: retry}
}

// Event writes one event; it is on the wire after the next Flush.
func (sw *Writer) Event(id string, data []byte) error {
	sw.buf = AppendEvent(sw.buf[:0], id, data, sw.retry)
	_, err := sw.w.Write(sw.buf)
	return err
}

// Flush sends what was written so far to the client.
func (sw *Writer) Flush() error { return sw.rc.Flush() }

// AppendEvent appends one SSE event carrying id to dst. A nil data makes the
// priming event: an id, the retry field in whole milliseconds when retry is
// positive (HT-29b), and one empty data line (HT-28). Otherwise data is the
// event's payload, one data line per line of it, so that even a payload with
// line breaks reaches the client intact.
func AppendEvent(dst []byte, id string, data []byte, retry time.Duration) []byte {
	dst = append(dst, "id: "...)
	dst = append(dst, id...)
	dst = append(dst, '\n')
	if data == nil {
		if ms := retry.Milliseconds(); ms > 0 {
			dst = append(dst, "retry: "...)
			dst = strconv.AppendInt(dst, ms, 10)
			dst = append(dst, '\n')
		}
		return append(dst, "data: \n\n"...)
	}
	dst = append(dst, "event: message\n"...)
	for {
		line, rest, more := cutLine(data)
		dst = append(dst, "data: "...)
		dst = append(dst, line...)
		dst = append(dst, '\n')
		if !more {
			break
		}
		data = rest
	}
	return append(dst, '\n')
}

// cutLine splits b at its first line break (CRLF, LF or CR, as SSE reads them).
func cutLine(b []byte) (line, rest []byte, found bool) {
	for i, c := range b {
		switch c {
		case '\n':
			return b[:i], b[i+1:], true
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				return b[:i], b[i+2:], true
			}
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}
