package httpfake

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// sseWriter writes one SSE stream. Every method returns false once the
// stream broke off (the client left or the fake closed); callers stop there.
type sseWriter struct {
	x     *exchange
	eol   string // the line break: "\n" or "\r\n"
	split bool   // write each byte of a line break in its own flushed write, SplitBreakGap apart
}

// SplitBreakGap is how long sse-crlf-split waits between the CR and the LF
// of a line break, so that they reach the client in different reads (flushed
// writes sent back to back could still arrive together).
const SplitBreakGap = 10 * time.Millisecond

// sse answers x with an SSE stream (200, text/event-stream) and flushes the
// headers at once. Lines end with eol; split writes each byte of a line
// break in its own flushed write.
func (x *exchange) sse(eol string, split bool) *sseWriter {
	h := x.w.Header()
	h.Set("Content-Type", mcp.ContentTypeSSE)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	x.header(http.StatusOK)
	x.f.openStream(x)
	x.flush()
	return &sseWriter{x: x, eol: eol, split: split}
}

// line writes text and a line break.
func (s *sseWriter) line(text string) bool {
	if !s.split {
		return s.x.write([]byte(text + s.eol))
	}
	if text != "" && !(s.x.write([]byte(text)) && s.x.flush()) {
		return false
	}
	for i := range len(s.eol) {
		if i > 0 && s.x.wait(nil, SplitBreakGap) != waitTimeout {
			return false
		}
		if !s.x.write([]byte{s.eol[i]}) || !s.x.flush() {
			return false
		}
	}
	return true
}

// end ends the event with a blank line and flushes it to the client.
func (s *sseWriter) end() bool { return s.line("") && s.x.flush() }

// comment writes one comment line (a keep-alive) and flushes it.
func (s *sseWriter) comment(text string) bool { return s.line(":"+text) && s.x.flush() }

// priming writes the priming event (HT-28): an id, the retry field when
// retryMS is positive (HT-29b), and empty data.
//
//	id: <id>
//	retry: <retryMS>
//	data:
//	(blank line)
func (s *sseWriter) priming(id string, retryMS int) bool {
	if !s.line("id: " + id) {
		return false
	}
	if retryMS > 0 && !s.line("retry: "+strconv.Itoa(retryMS)) {
		return false
	}
	return s.line("data:") && s.end()
}

// message writes m as one event with an id:
//
//	id: <id>
//	data: <m as one line of JSON>
//	(blank line)
func (s *sseWriter) message(id string, m *jsonrpc.Message) bool {
	return s.line("id: "+id) && s.line("data: "+string(fakeservers.Encode(m))) && s.end()
}

// paddedEvent is one SSE event of an exact raw size (RM-09): an id line and
// one data line holding a JSON message whose last member, a string, is
// stretched with pad bytes 'x'.
//
//	id: <id>
//	data: <head><pad × 'x'><tail>
//	(blank line)
//
// Its raw size counts each of the two lines plus one byte for its line
// break, whatever the break is (LF, or CRLF split across writes); the blank
// line that ends the event is not counted:
//
//	size = len("id: <id>") + 1 + len("data: <head>") + pad + len(<tail>) + 1
type paddedEvent struct {
	id   string
	head []byte // "data: " and the message up to the padding
	tail []byte // the message after the padding
	pad  int64
}

// paddedTail is how every message planPadded stretches ends: an empty string
// as the last member of the last object (the padding goes between its quotes).
const paddedTail = `""}}`

// planPadded lays out enc, which ends with paddedTail, as an event of
// exactly size raw bytes; an error when size is too small even without
// padding.
func planPadded(id string, enc []byte, size int64) (paddedEvent, error) {
	if !bytes.HasSuffix(enc, []byte(paddedTail)) {
		panic(fmt.Sprintf("httpfake: padded message %.60s… does not end with %s", enc, paddedTail))
	}
	cut := len(enc) - len(paddedTail) + 1
	ev := paddedEvent{id: id, head: append([]byte("data: "), enc[:cut]...), tail: enc[cut:]}
	fixed := int64(len("id: ")+len(id)+1) + int64(len(ev.head)+len(ev.tail)+1)
	if size < fixed {
		return paddedEvent{}, fmt.Errorf("SSEEventSize %d is smaller than this event takes without padding (%d bytes); use %d or more", size, fixed, fixed)
	}
	ev.pad = size - fixed
	return ev, nil
}

// padChunkBytes is the size of one padding write: the padding of an event,
// however large, never takes more memory than this.
const padChunkBytes = 32 << 10

// padChunk is the padding written again and again.
var padChunk = sync.OnceValue(func() []byte { return bytes.Repeat([]byte{'x'}, padChunkBytes) })

// padded writes ev, its padding in chunks, and stops as soon as the client
// leaves or the fake closes.
func (s *sseWriter) padded(ev paddedEvent) bool {
	if !s.line("id: "+ev.id) || !s.x.write(ev.head) {
		return false
	}
	chunk := padChunk()
	for left := ev.pad; left > 0; {
		if s.x.gone() {
			return false
		}
		n := min(left, int64(len(chunk)))
		if !s.x.write(chunk[:n]) {
			return false
		}
		left -= n
	}
	return s.line(string(ev.tail)) && s.end()
}

// paddedResult is a tools/call result with a padding member last.
type paddedResult struct {
	Content    []fakeservers.TextContent `json:"content"`
	ResultType string                    `json:"resultType,omitempty"`
	Padding    string                    `json:"padding"`
}

// paddedOK is c's success response ("ok <name>", resultType in the modern
// era) with an empty padding member last, ready for planPadded.
func paddedOK(c fakeservers.ToolCall) []byte {
	return fakeservers.Encode(fakeservers.ResultMessage(c.Req.ID, paddedResult{
		Content: []fakeservers.TextContent{{Type: "text", Text: "ok " + c.Name}}, ResultType: c.ResultType()}))
}

// logParams are the params of a notifications/message with data last.
type logParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger"`
	Data   string `json:"data"`
}

// paddedLog is a notifications/message (level info) with empty data, ready
// for planPadded.
func paddedLog() []byte {
	m, err := jsonrpc.NewNotification("notifications/message", logParams{Level: "info", Logger: "mcpconform-fake"})
	if err != nil {
		panic(fmt.Sprintf("httpfake: encode log notification: %v", err))
	}
	return fakeservers.Encode(m)
}
