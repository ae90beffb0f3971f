package httpfake

import (
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// The SSE cases script RM-09 (event size limits, line breaks, comments) and
// HT-28/HT-29/HT-45 (priming, retry, resumption). Their tools/call answers
// are SSE streams whose exact bytes are documented on each function.

// sseKeepAlives is how many keep-alive comment lines sse-comments sends.
const sseKeepAlives = 100

// errNoEventSize is the error of a case that needs SSEEventSize.
var errNoEventSize = errors.New("SSEEventSize is required: the raw size of the big SSE event (RM-09 counting)")

func sseEvent(o Options) (*behaviour, error) {
	if o.SSEEventSize <= 0 {
		return nil, errNoEventSize
	}
	return &behaviour{call: func(x *exchange, c fakeservers.ToolCall) {
		bigResult(x, c, o.SSEEventSize, "\n", false)
	}}, nil
}

func sseCRLFSplit(o Options) (*behaviour, error) {
	return &behaviour{call: func(x *exchange, c fakeservers.ToolCall) {
		if o.SSEEventSize > 0 {
			bigResult(x, c, o.SSEEventSize, "\r\n", true)
			return
		}
		s := x.sse("\r\n", true)
		if s.priming(x.f.eventID(), 0) && s.message(x.f.eventID(), c.OK()) {
			x.answered = true
		}
	}}, nil
}

// bigResult answers c with an SSE stream of two events, lines ending in eol
// (LF for sse-event; CRLF for sse-crlf-split, CR and LF each flushed alone):
//
//	id: ev-<p>
//	data:
//	(blank line)
//	id: ev-<r>
//	data: {"jsonrpc":"2.0","id":<id>,"result":{"content":[{"type":"text","text":"ok <name>"}],"padding":"xxx…"}}
//	(blank line)
//
// The second event's raw size is exactly size (see paddedEvent). A size too
// small for the event without padding gets a JSON-RPC error (-32603, as JSON)
// that names the smallest size that works.
func bigResult(x *exchange, c fakeservers.ToolCall, size int, eol string, split bool) {
	prime, id := x.f.eventID(), x.f.eventID()
	ev, err := planPadded(id, paddedOK(c), int64(size))
	if err != nil {
		x.json(jsonrpc.NewError(c.Req.ID, jsonrpc.CodeInternalError, "http fake: "+err.Error()))
		return
	}
	s := x.sse(eol, split)
	if s.priming(prime, 0) && s.padded(ev) {
		x.answered = true
	}
}

func sseHuge(o Options) (*behaviour, error) {
	if o.SSEEventSize <= 0 {
		return nil, errNoEventSize
	}
	return &behaviour{call: func(x *exchange, c fakeservers.ToolCall) { hugeEvent(x, c, o.SSEEventSize) }}, nil
}

// hugeEvent answers c with an SSE stream of three events:
//
//	id: ev-<p>
//	data:
//	(blank line)
//	id: ev-<h>
//	data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"mcpconform-fake","data":"xxx…"}}
//	(blank line)
//	id: ev-<r>
//	data: {"jsonrpc":"2.0","id":<id>,"result":{"content":[{"type":"text","text":"ok <name>"}]}}
//	(blank line)
//
// The second event's raw size is exactly size (see paddedEvent); its padding
// is written in chunks of padChunkBytes, so memory stays flat whatever size
// is, and writing stops when the client leaves (recorded as Aborted).
func hugeEvent(x *exchange, c fakeservers.ToolCall, size int) {
	prime, big, id := x.f.eventID(), x.f.eventID(), x.f.eventID()
	ev, err := planPadded(big, paddedLog(), int64(size))
	if err != nil {
		x.json(jsonrpc.NewError(c.Req.ID, jsonrpc.CodeInternalError, "http fake: "+err.Error()))
		return
	}
	s := x.sse("\n", false)
	if s.priming(prime, 0) && s.padded(ev) && s.message(id, c.OK()) {
		x.answered = true
	}
}

// sseComments answers c with comments around and inside its result event:
//
//	: keep-alive 1
//	…
//	: keep-alive 100
//	(blank line: a comment-only event, which dispatches nothing)
//	id: ev-<r>
//	: a comment inside the event
//	data: {"jsonrpc":"2.0",
//	data:"id":<id>,
//	data: "result":{"content":[{"type":"text","text":"ok <name>"}]}}
//	(blank line)
//
// Each keep-alive is flushed on its own. The data lines joined with LF (after
// dropping "data:" and one leading space, which the second line lacks) are
// the JSON response.
func sseComments(x *exchange, c fakeservers.ToolCall) {
	s := x.sse("\n", false)
	for i := range sseKeepAlives {
		if !s.comment(" keep-alive " + strconv.Itoa(i+1)) {
			return
		}
	}
	m := c.OK()
	if s.end() &&
		s.line("id: "+x.f.eventID()) &&
		s.line(": a comment inside the event") &&
		s.line(`data: {"jsonrpc":"2.0",`) &&
		s.line(`data:"id":`+m.ID.String()+`,`) &&
		s.line(`data: "result":`+string(m.Result)+`}`) &&
		s.end() {
		x.answered = true
	}
}

// resumable keeps the results of resume's dropped streams by the id of their
// priming event, until a GET with that Last-Event-ID collects them.
type resumable struct {
	mu      sync.Mutex
	pending map[string]*jsonrpc.Message
}

func (r *resumable) put(id string, m *jsonrpc.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending[id] = m
}

func (r *resumable) take(id string) *jsonrpc.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.pending[id]
	delete(r.pending, id)
	return m
}

// resume: tools/call answers
//
//	id: ev-<p>
//	retry: <RetryMS>
//	data:
//	(blank line)
//
// and ends the stream there, before the result (HT-29a). A GET with
// Last-Event-ID: ev-<p> gets the result on a new stream and the stream ends:
//
//	id: ev-<r>
//	data: {"jsonrpc":"2.0","id":<id>,"result":{"content":[{"type":"text","text":"ok <name>"}]}}
//	(blank line)
//
// A GET without Last-Event-ID gets 405; with an id that has no result
// waiting (unknown, or collected already), 400.
func resume(o Options) (*behaviour, error) {
	r := &resumable{pending: map[string]*jsonrpc.Message{}}
	return &behaviour{
		call: func(x *exchange, c fakeservers.ToolCall) {
			id := x.f.eventID()
			r.put(id, c.OK())
			if x.sse("\n", false).priming(id, o.RetryMS) {
				x.answered = true
			}
		},
		get: func(x *exchange) {
			last := x.r.Header.Get(mcp.HeaderLastEventID)
			if last == "" {
				noGetStream(x)
				return
			}
			m := r.take(last)
			if m == nil {
				x.plain(http.StatusBadRequest, "no stream to resume after Last-Event-ID "+strconv.Quote(last))
				return
			}
			if x.sse("\n", false).message(x.f.eventID(), m) {
				x.answered = true
			}
		},
	}, nil
}
