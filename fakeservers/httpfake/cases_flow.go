package httpfake

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The flow cases script RM-01 … RM-03: calls that take time (as JSON or as
// SSE), server requests whose replies must travel the control queue, and
// control POSTs that are never answered.

func slowCalls(o Options) (*behaviour, error) {
	return &behaviour{
		tools: numberedTools("t", o.Tools),
		call: func(x *exchange, c fakeservers.ToolCall) {
			if x.wait(nil, o.Delay) == waitTimeout {
				x.json(c.OK())
			}
		},
	}, nil
}

// sseEarly answers each call with SSE headers at once and, after Delay,
//
//	id: ev-<r>
//	data: <the result>
//	(blank line)
func sseEarly(o Options) (*behaviour, error) {
	return &behaviour{
		tools: numberedTools("t", o.Tools),
		call: func(x *exchange, c fakeservers.ToolCall) {
			s := x.sse("\n", false)
			if x.wait(nil, o.Delay) == waitTimeout && s.message(x.f.eventID(), c.OK()) {
				x.answered = true
			}
		},
	}, nil
}

// reverseRequests tracks server-request's requests to the client by id
// until their replies arrive.
type reverseRequests struct {
	mu         sync.Mutex
	sent       int                      // requests handed out: srv-1 … srv-<sent>
	waiting    map[string]chan struct{} // by id Key; closed when the reply arrives
	firstReply chan struct{}            // closed when the reply to srv-1 arrives
	holders    int                      // later calls still to arrive and hold
	allHeld    chan struct{}            // closed when every later call holds
}

// newReverseRequests expects tools calls: the first and tools-1 holders.
func newReverseRequests(tools int) *reverseRequests {
	rr := &reverseRequests{waiting: map[string]chan struct{}{}, firstReply: make(chan struct{}), holders: tools - 1, allHeld: make(chan struct{})}
	if rr.holders <= 0 {
		close(rr.allHeld)
	}
	return rr
}

// holding notes that one more later call holds its answer.
func (rr *reverseRequests) holding() {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.holders--
	if rr.holders == 0 {
		close(rr.allHeld)
	}
}

// firstRequestID is the id of the first call's request.
var firstRequestID = jsonrpc.StringID("srv-1")

// claimFirst hands srv-1 and its reply channel to the first call to ask;
// ok is false for every later call.
func (rr *reverseRequests) claimFirst() (id string, replied chan struct{}, ok bool) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.sent > 0 {
		return "", nil, false
	}
	id, replied = rr.openLocked()
	return id, replied, true
}

// open hands out the next request id, srv-<n>, and its reply channel.
func (rr *reverseRequests) open() (string, chan struct{}) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.openLocked()
}

func (rr *reverseRequests) openLocked() (string, chan struct{}) {
	rr.sent++
	id := "srv-" + strconv.Itoa(rr.sent)
	ch := make(chan struct{})
	rr.waiting[jsonrpc.StringID(id).Key()] = ch
	return id, ch
}

// arrived releases the call waiting for a reply to m's id (and, for srv-1,
// the calls held behind it); replies to ids nobody waits for are ignored.
func (rr *reverseRequests) arrived(m *jsonrpc.Message) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if ch, ok := rr.waiting[m.ID.Key()]; ok {
		close(ch)
		delete(rr.waiting, m.ID.Key())
	}
	if m.ID.Key() == firstRequestID.Key() {
		select {
		case <-rr.firstReply:
		default:
			close(rr.firstReply)
		}
	}
}

// forget stops waiting for id.
func (rr *reverseRequests) forget(id string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	delete(rr.waiting, jsonrpc.StringID(id).Key())
}

// serverRequest: the first tools/call to arrive answers SSE headers at once
// (so it frees its client slot), waits until every other call holds (or
// Delay passes), then sends a request to the client,
//
//	id: ev-<q>
//	data: {"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}
//	(blank line)
//
// Every later call first holds its answer, sending nothing (not even
// headers, so it keeps one of the client's ordinary POST slots busy, RM-01),
// until the reply to srv-1 has arrived or Delay passed; then it answers the
// same way with its own request, srv-<n>. Each call's result event (id
// ev-<r>, data the result) follows once a POST brings the client's reply
// (result or error) to its request; if Delay passes first, an error response
// (-32603) instead. With more calls than the client's max_concurrent_requests,
// the reply to srv-1 finds every ordinary slot taken: it must travel the
// control queue (RM-02).
func serverRequest(o Options) (*behaviour, error) {
	tools := numberedTools("t", o.Tools)
	rr := newReverseRequests(len(tools))
	return &behaviour{
		tools: tools,
		call: func(x *exchange, c fakeservers.ToolCall) {
			id, replied, first := rr.claimFirst()
			var s *sseWriter
			if first {
				s = x.sse("\n", false)
				if x.wait(rr.allHeld, o.Delay) == waitGone {
					return
				}
			} else {
				rr.holding()
				if x.wait(rr.firstReply, o.Delay) == waitGone {
					return
				}
				id, replied = rr.open()
				s = x.sse("\n", false)
			}
			defer rr.forget(id)
			req, err := jsonrpc.NewRequest(jsonrpc.StringID(id), "roots/list", nil)
			if err != nil {
				panic(fmt.Sprintf("httpfake: build roots/list: %v", err))
			}
			if !s.message(x.f.eventID(), req) {
				return
			}
			var answer *jsonrpc.Message
			switch x.wait(replied, o.Delay) {
			case waitReady:
				answer = c.OK()
			case waitTimeout:
				answer = jsonrpc.NewError(c.Req.ID, jsonrpc.CodeInternalError, fmt.Sprintf("no reply to roots/list %s within %s", id, o.Delay))
			default:
				return
			}
			if s.message(x.f.eventID(), answer) {
				x.answered = true
			}
		},
		reply: rr.arrived,
	}, nil
}

// controlHang offers several tools, so a client calling them in turn is
// still busy with the next call while its cancellation of the first is held.
func controlHang(o Options) (*behaviour, error) {
	return &behaviour{tools: numberedTools("t", o.Tools), call: holdCall, cancelled: holdCancelled}, nil
}

// holdCall is control-hang's tools/call: never answered.
func holdCall(x *exchange, _ fakeservers.ToolCall) { x.hold() }

// holdCancelled is control-hang's notifications/cancelled: never answered,
// so the client's control_request_timeout (RM-03) must end it.
func holdCancelled(x *exchange, _ *jsonrpc.Message) { x.hold() }

// slowStart holds each initialize for Delay before the base answers it, so
// whatever the client sends before it has the answer arrives meanwhile.
func slowStart(o Options) (*behaviour, error) {
	return &behaviour{initialize: func(x *exchange, _ *jsonrpc.Message) bool {
		return x.wait(nil, o.Delay) == waitTimeout
	}}, nil
}
