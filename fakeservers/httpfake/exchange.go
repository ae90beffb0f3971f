package httpfake

import (
	"net/http"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// exchange is one request being answered: what arrived, and how the
// answer went. Only its handler's goroutine uses it.
type exchange struct {
	f        *Fake
	w        http.ResponseWriter
	r        *http.Request
	listener int // which listener it reached: 0 URL, 1 SecondURL
	index    int // its record in f.records

	msgs      []*jsonrpc.Message
	batch     bool
	bodyErr   error // reading the body failed, or it was too long
	decodeErr error // the body is not a message or a batch
	ordinary  bool  // an ordinary POST (counted in MaxConcurrent)
	sess      *session
	adm       fakeservers.Admission // how a single request was admitted (its era)

	status    int  // the status written; 0 before
	streaming bool // answered with an SSE stream, counted in MaxSSEStreams
	answered  bool // the answer was written to its end
	aborted   bool // the client left before the answer was written
}

// header writes the status line and headers once.
func (x *exchange) header(code int) {
	if x.status != 0 {
		return
	}
	x.status = code
	if x.f.b.recase != nil {
		x.f.b.recase(x.w.Header())
	}
	x.w.WriteHeader(code)
	x.f.setStatus(x, code)
}

// write writes body bytes; a failure while the fake is open means the client
// left.
func (x *exchange) write(b []byte) bool {
	if x.aborted {
		return false
	}
	if _, err := x.w.Write(b); err != nil {
		x.left()
		return false
	}
	return true
}

// flush sends what is buffered to the client now.
func (x *exchange) flush() bool {
	if x.aborted {
		return false
	}
	if err := http.NewResponseController(x.w).Flush(); err != nil {
		x.left()
		return false
	}
	return true
}

// left notes that the answer broke off: the client went away, unless the
// fake is closing (then nobody left: the fake stopped).
func (x *exchange) left() {
	if !x.f.stopping.Load() {
		x.aborted = true
	}
}

// gone reports whether the client went away or the fake is closing; a client
// that went away is recorded as Aborted.
func (x *exchange) gone() bool {
	if x.f.stopping.Load() {
		return true
	}
	if x.r.Context().Err() != nil {
		x.left()
		return true
	}
	return false
}

// plain answers code with a short text body.
func (x *exchange) plain(code int, text string) {
	x.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	x.header(code)
	if x.write([]byte(text + "\n")) {
		x.answered = true
	}
}

// empty answers code with no body (202 Accepted, 200 to DELETE).
func (x *exchange) empty(code int) {
	x.header(code)
	x.answered = true
}

// json answers 200 with one JSON-RPC message as application/json.
func (x *exchange) json(m *jsonrpc.Message) { x.jsonBody(http.StatusOK, fakeservers.Encode(m)) }

// jsonBody answers code with body as application/json.
func (x *exchange) jsonBody(code int, body []byte) {
	x.w.Header().Set("Content-Type", mcp.ContentTypeJSON)
	x.header(code)
	if x.write(body) {
		x.answered = true
	}
}

// expire ends x's session (every later request carrying it gets 404) and
// answers this request 404, as for a session that expired (HT-56).
func (x *exchange) expire() {
	if x.sess != nil {
		x.f.expireSession(x.sess)
	}
	x.plain(http.StatusNotFound, "session expired")
}

// waitEnd is how a wait ended.
type waitEnd int

const (
	waitReady   waitEnd = iota // the awaited channel closed
	waitTimeout                // the bound passed
	waitGone                   // the client went away (recorded as Aborted) or the fake closed
)

// wait blocks until ready closes, bound passes, the client goes away or the
// fake closes. A nil ready never closes; a bound of 0 or less never passes.
func (x *exchange) wait(ready <-chan struct{}, bound time.Duration) waitEnd {
	var timeout <-chan time.Time
	if bound > 0 {
		t := time.NewTimer(bound)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ready:
		return waitReady
	case <-timeout:
		return waitTimeout
	case <-x.f.ctx.Done():
		return waitGone
	case <-x.r.Context().Done():
		x.left()
		return waitGone
	}
}

// hold blocks until the client goes away or the fake closes.
func (x *exchange) hold() { x.wait(nil, 0) }
