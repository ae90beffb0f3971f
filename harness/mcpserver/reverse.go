package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Errors of the requests a handler sends the client (CX-05 … CX-08). A reply
// with a JSON-RPC error comes back as an error wrapping its *jsonrpc.Error.
var (
	// ErrNotDeclared: the client did not declare the capability the request
	// needs, so it was not sent (CX-08, LC-11).
	ErrNotDeclared = errors.New("the client did not declare the capability")
	// ErrClientNotReady: the client has not sent notifications/initialized,
	// and until then the server sends it no requests (LC-07).
	ErrClientNotReady = errors.New("the client has not sent notifications/initialized")
	// ErrReverseTimeout: the client did not reply within the reverse timeout;
	// the request was cancelled (CX-08, LC-31).
	ErrReverseTimeout = errors.New("the client did not reply in time")
	// ErrDeclined: the user declined an elicitation (CX-06).
	ErrDeclined = errors.New("the user declined")
	// ErrDismissed: the user cancelled an elicitation without choosing (CX-06).
	ErrDismissed = errors.New("the user dismissed the request")
)

// reverseRequest sends the client a request about rc's request and waits for
// its reply into result. It is not sent unless declared is true (CX-08) and
// the client is ready (LC-07). The wait ends with the reply, with the reverse
// timeout (CX-08), or with rc's context; in the last two cases the request is
// cancelled with notifications/cancelled (LC-31) and an error returned.
func (rc *RequestContext) reverseRequest(method string, declared bool, params, result any) error {
	if !declared {
		return fmt.Errorf("%s: %w", method, ErrNotDeclared)
	}
	sess := rc.sess
	if !sess.isReady() {
		return fmt.Errorf("%s: %w", method, ErrClientNotReady)
	}
	id, reply := sess.expect()
	defer sess.forget(id)
	req, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := rc.send(req); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var timeout <-chan time.Time
	if rc.srv.opts.Mutant != mutant.ReverseRequestNoTimeout {
		t := time.NewTimer(rc.srv.opts.ReverseTimeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case m := <-reply:
		if m.Error != nil {
			if rc.srv.opts.Mutant == mutant.ReverseErrorDropsCall {
				rc.dropped.Store(true)
			}
			return fmt.Errorf("%s: the client answered with %w", method, m.Error)
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("%s: the client's result does not decode: %w", method, err)
		}
		return nil
	case <-timeout:
		rc.cancelReverse(id, "timed out")
		return fmt.Errorf("%s after %v: %w", method, rc.srv.opts.ReverseTimeout, ErrReverseTimeout)
	case <-rc.ctx.Done():
		rc.cancelReverse(id, "the request it serves ended")
		return fmt.Errorf("%s: %w", method, context.Cause(rc.ctx))
	}
}

// cancelReverse tells the client the server no longer waits for its
// request id (LC-31). It is best effort: the request may have no stream left.
func (rc *RequestContext) cancelReverse(id jsonrpc.ID, reason string) {
	note, err := jsonrpc.NewNotification("notifications/cancelled", map[string]any{"requestId": id, "reason": reason})
	if err == nil {
		_ = rc.send(note)
	}
}

// expect allots the id of a new server request and the channel its reply
// arrives on.
func (sess *serverSession) expect() (jsonrpc.ID, chan *jsonrpc.Message) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.srv.opts.Mutant != mutant.ServerRequestIDReused || sess.nextID == 0 {
		sess.nextID++
	}
	id := jsonrpc.IntID(sess.nextID)
	reply := make(chan *jsonrpc.Message, 1)
	sess.waiting[id.Key()] = reply
	return id, reply
}

// forget stops waiting for a reply to id.
func (sess *serverSession) forget(id jsonrpc.ID) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	delete(sess.waiting, id.Key())
}

// deliver hands a reply to the server request with its id (JR-07) and
// reports whether one was waiting; other replies are dropped (CN-06).
func (sess *serverSession) deliver(resp *jsonrpc.Message) bool {
	if resp.ID.IsZero() {
		return false
	}
	sess.mu.Lock()
	reply := sess.waiting[resp.ID.Key()]
	delete(sess.waiting, resp.ID.Key())
	sess.mu.Unlock()
	if reply == nil {
		return false
	}
	reply <- resp
	return true
}

// pingUnasked is mutant ModernStdioRequest's: a ping request about rc's
// request, whose reply nobody waits for.
func (sess *serverSession) pingUnasked(rc *RequestContext) {
	id, _ := sess.expect()
	sess.forget(id)
	if req, err := jsonrpc.NewRequest(id, "ping", nil); err == nil {
		_ = rc.send(req)
	}
}
