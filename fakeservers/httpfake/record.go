package httpfake

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// maxRecordedBody is how much of a request body a record keeps.
const maxRecordedBody = 64 << 10

// Request is the record of one HTTP request an HTTP fake received. It is
// recorded when the request arrives (End zero, Status zero until the fake
// answers) and completed when the fake is done with it.
type Request struct {
	Start, End time.Time
	Method     string             // HTTP method
	Header     http.Header        // a copy; Authorization kept (the checks need it; the harness redacts)
	Body       string             // the first 64 KiB of the body
	Messages   []*jsonrpc.Message // the body decoded: one message or a batch; nil when it is neither
	Status     int                // the status the fake answered; 0 if it never answered (the client left, or Close)
	SessionID  string             // the Mcp-Session-Id the request carried
	Host       string             // r.Host: which listener it reached (the redirect case has two)
	Aborted    bool               // the client went away before the fake finished answering
}

// Requests returns a snapshot of the record so far, in arrival order.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.records)
}

// changed returns a channel closed at the next change of the record.
func (f *Fake) changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.updated
}

// touch wakes everyone waiting for a change of the record; call it with f.mu held.
func (f *Fake) touch() {
	close(f.updated)
	f.updated = make(chan struct{})
}

// begin reads the request's body (up to maxBody), decodes it and records
// the request.
func (f *Fake) begin(w http.ResponseWriter, r *http.Request, listener int) *exchange {
	start := time.Now()
	x := &exchange{f: f, w: w, r: r, listener: listener}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	switch {
	case err != nil:
		x.bodyErr = err
	case len(body) > maxBody:
		x.bodyErr = errBodyTooLarge
	}
	x.msgs, x.batch, x.decodeErr = decodeBody(body)
	x.ordinary = r.Method == http.MethodPost && ordinaryPOST(x.msgs)
	rec := Request{
		Start:     start,
		Method:    r.Method,
		Header:    r.Header.Clone(),
		Body:      string(body[:min(len(body), maxRecordedBody)]),
		Messages:  x.msgs,
		SessionID: r.Header.Get(mcp.HeaderSessionID),
		Host:      r.Host,
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	x.index = len(f.records)
	f.records = append(f.records, rec)
	if x.ordinary {
		f.ordinary.up()
	}
	f.touch()
	return x
}

// errBodyTooLarge is the body error of a request longer than maxBody.
var errBodyTooLarge = errors.New("request body larger than 4 MiB")

// decodeBody decodes a POST body: one message or a batch (a JSON array).
func decodeBody(body []byte) (msgs []*jsonrpc.Message, batch bool, err error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		msgs, err = jsonrpc.DecodeBatch(body)
		return msgs, true, err
	}
	m, err := jsonrpc.Decode(body)
	if err != nil {
		return nil, false, err
	}
	return []*jsonrpc.Message{m}, false, nil
}

// ordinaryPOST reports whether a POST with msgs counts against the client's
// ordinary POST limit: it carries something other than notifications/cancelled
// and client responses (RM-01, RM-02). An undecodable body counts.
func ordinaryPOST(msgs []*jsonrpc.Message) bool {
	if len(msgs) == 0 {
		return true
	}
	for _, m := range msgs {
		if !isControl(m) {
			return true
		}
	}
	return false
}

// isControl reports whether m travels the client's control queue (RM-02).
func isControl(m *jsonrpc.Message) bool {
	switch m.Kind() {
	case jsonrpc.KindResult, jsonrpc.KindError:
		return true
	case jsonrpc.KindNotification:
		return m.Method == methodCancelled
	}
	return false
}

// setStatus records the status the fake answered x with.
func (f *Fake) setStatus(x *exchange, code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.records[x.index].Status = code
	f.touch()
}

// openStream counts x's SSE answer as an open stream (ordinary POSTs only).
func (f *Fake) openStream(x *exchange) {
	if !x.ordinary || x.streaming {
		return
	}
	x.streaming = true
	f.mu.Lock()
	defer f.mu.Unlock()
	f.streams.up()
}

// finish completes x's record: End, whether the client left, and the gauges.
func (f *Fake) finish(x *exchange) {
	end := time.Now()
	if !x.aborted && !f.stopping.Load() && x.r.Context().Err() != nil && !x.answered {
		x.aborted = true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rec := &f.records[x.index]
	rec.End = end
	rec.Aborted = x.aborted
	if x.ordinary {
		f.ordinary.down()
	}
	if x.streaming {
		f.streams.down()
	}
	f.touch()
}
