package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// RequestContext is what the handler of one request gets (CX-01): logging
// (Log), progress (Progress), cancellation (Context, Cancelled), requests
// back to the client (Sample, Elicit, Roots) and, where the transport allows,
// closing the connection of the request's stream mid-call (Disconnect). It is
// valid until the handler returns; afterwards every method that would send
// fails with ErrRequestDone, so nothing about the request follows its
// response (PR-08). Its methods are safe for concurrent use.
type RequestContext struct {
	srv   *Server
	sess  *serverSession
	id    jsonrpc.ID
	ctx   context.Context
	stop  context.CancelCauseFunc
	token json.RawMessage // params._meta.progressToken as sent; nil without one

	cancelled atomic.Bool // the client sent notifications/cancelled for it
	// dropped: a mutant abandons the request, which then gets no response
	// (mutants ReverseErrorDropsCall, ElicitDeclineDropsCall, ReusedIDDropped).
	dropped atomic.Bool

	mu       sync.Mutex
	out      func(*jsonrpc.Message) error
	done     bool    // the handler returned
	reported bool    // a progress notification went out
	last     float64 // the last progress value sent
}

// Errors of a RequestContext.
var (
	// ErrRequestDone: the handler already returned; nothing more is sent.
	ErrRequestDone = errors.New("the request is finished; nothing more is sent about it")
	// ErrCancelled is the cause of a request context the client cancelled.
	ErrCancelled = errors.New("the client cancelled the request")
)

// Context ends when the client cancels the request (its cause is then
// ErrCancelled), when the session or the connection ends, or when the
// handler returns. Handlers check it and stop (CX-04).
func (rc *RequestContext) Context() context.Context { return rc.ctx }

// Cancelled reports whether the client cancelled the request with
// notifications/cancelled (CX-04). Its response will not be sent.
func (rc *RequestContext) Cancelled() bool { return rc.cancelled.Load() }

// ID is the request's id.
func (rc *RequestContext) ID() jsonrpc.ID { return rc.id }

// send sends a message about the request through the transport, unless the
// handler has returned.
func (rc *RequestContext) send(m *jsonrpc.Message) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.sendLocked(m)
}

// sendLocked is send with rc.mu held.
func (rc *RequestContext) sendLocked(m *jsonrpc.Message) error {
	if rc.done {
		return ErrRequestDone
	}
	if rc.out == nil {
		return errors.New("the transport gave this request no way to send messages")
	}
	return rc.out(m)
}

// begin registers a request in flight so that notifications/cancelled can
// reach it, and makes its context. initialize is not registered: it is never
// cancelled (LC-13, CN-02). An id already in flight is refused with -32600
// (JR-05).
func (sess *serverSession) begin(ctx context.Context, s *Server, req *jsonrpc.Message, out func(*jsonrpc.Message) error) (*RequestContext, *jsonrpc.Error) {
	rctx, stop := context.WithCancelCause(ctx)
	rc := &RequestContext{srv: s, sess: sess, id: req.ID, ctx: rctx, stop: stop, out: out, token: progressToken(req.Params)}
	if req.Method == "initialize" {
		return rc, nil
	}
	sess.mu.Lock()
	if _, busy := sess.inflight[req.ID.Key()]; busy {
		sess.mu.Unlock()
		stop(nil)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
			"request id %s is already in use by a request in flight; use a new id for every request", req.ID)}
	}
	if s.opts.Mutant == mutant.ReusedIDDropped && slices.Contains(sess.finished, req.ID.Key()) {
		rc.dropped.Store(true)
	}
	sess.inflight[req.ID.Key()] = rc
	if sess.takeEarlyCancel(req.ID.Key()) {
		rc.cancelled.Store(true)
		rc.stop(ErrCancelled)
	}
	late := sess.late
	sess.late = nil
	sess.mu.Unlock()
	if late != nil {
		_ = rc.send(late)
	}
	return rc, nil
}

// finish ends a request: nothing more goes out about it (PR-08), it leaves
// the requests in flight, and its context ends. It reports whether the client
// cancelled it (or a mutant dropped it), in which case it gets no response
// (CX-04).
func (sess *serverSession) finish(rc *RequestContext) bool {
	rc.mu.Lock()
	rc.done = true
	if rc.reported && sess.srv.opts.Mutant == mutant.ProgressAfterResponse {
		sess.lateProgress(rc)
	}
	rc.mu.Unlock()
	sess.mu.Lock()
	if sess.inflight[rc.id.Key()] == rc {
		delete(sess.inflight, rc.id.Key())
		sess.rememberFinished(rc.id.Key())
	}
	sess.mu.Unlock()
	rc.stop(ErrRequestDone)
	return rc.cancelled.Load() || rc.dropped.Load()
}
