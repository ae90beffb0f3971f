package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// pendingCall is a request waiting for its response.
type pendingCall struct {
	id     int64
	key    string                // jsonrpc.ID.Key() of the id
	method string                // for error messages
	sent   time.Time             // when the request was written
	reply  chan *jsonrpc.Message // receives the response; buffered, sent to once
	failed chan error            // receives the transport's RequestFailure; buffered, sent to once
}

// Call sends request method with params (nil for none) and decodes the
// result into result (nil to ignore it). The call is bounded by ctx and by
// CallTimeout, whichever ends first; when that passes, the request is
// cancelled with notifications/cancelled (LC-31, NG-07) and a
// failure.ErrTimeout returned (failure.ErrCancelled when the caller cancelled
// ctx). A JSON-RPC error response is returned as an error wrapping
// *jsonrpc.Error. When the transport ends, the call fails at once with the
// transport's failure. In the 2026-07-28 era the request carries the
// client's _meta and an InputRequiredResult is answered (modernCall).
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	var err error
	params = s.mutantMeta(params)
	if s.era == EraModern {
		raw, err = s.modernCall(ctx, method, params)
	} else {
		raw, _, err = s.roundTrip(ctx, method, params, nil, 0)
	}
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return failure.Wrap(failure.ErrProtocol, method, fmt.Errorf("the result does not decode: %w", err))
	}
	return nil
}

// roundTrip sends a request (with headers, on a transport that carries
// them) and returns its result and the request's id. reuse, when not 0, is
// the id to send it with (mutant MRTRSameID); otherwise it gets a fresh one.
func (s *Session) roundTrip(ctx context.Context, method string, params any, headers map[string]string, reuse int64) (json.RawMessage, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	p, err := s.startWith(reuse, method, params, headers)
	if err != nil {
		return nil, 0, err
	}
	m, err := s.wait(ctx, p)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, p.id, s.abandon(ctx, p)
	case err != nil:
		return nil, p.id, err
	case m.Error != nil:
		return nil, p.id, fmt.Errorf("%s: %w", method, m.Error)
	}
	return m.Result, p.id, nil
}

// start registers a pending call under a fresh id and sends the request.
func (s *Session) start(method string, params any, headers map[string]string) (*pendingCall, error) {
	return s.startWith(0, method, params, headers)
}

// startWith is start with id reuse instead of a fresh one when reuse is not
// 0.
func (s *Session) startWith(reuse int64, method string, params any, headers map[string]string) (*pendingCall, error) {
	s.mu.Lock()
	if s.endErr != nil {
		err := s.endErr
		s.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	n := reuse
	if n == 0 {
		s.nextID++
		n = s.nextID
	}
	id := jsonrpc.IntID(n)
	p := &pendingCall{id: n, key: id.Key(), method: method, reply: make(chan *jsonrpc.Message, 1), failed: make(chan error, 1)}
	if q := s.oldestPending(); q != nil && s.opts.Mutant == mutant.InFlightIDReused && s.era == EraModern && method == "tools/call" {
		id = jsonrpc.IntID(q.id) // its pending key stays its own; route hands a second answer to the oldest call
	}
	s.pending[p.key] = p
	s.mu.Unlock()

	req, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		s.forget(p)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	p.sent = time.Now()
	if err := s.send(req, headers); err != nil {
		s.forget(p)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return p, nil
}

// wait waits for p's response. It returns ctx's error when ctx ends first
// (the call is then forgotten), the transport's failure when the transport
// ends first, and the transport's RequestFailure for p when it gives up on
// the request. A response that arrived is preferred to either.
func (s *Session) wait(ctx context.Context, p *pendingCall) (*jsonrpc.Message, error) {
	select {
	case m := <-p.reply:
		return m, nil
	case err := <-p.failed:
		return nil, err
	case <-s.gone:
		select {
		case m := <-p.reply:
			return m, nil
		default:
		}
		return nil, fmt.Errorf("%s: %w", p.method, s.endErr)
	case <-ctx.Done():
		s.forget(p)
		select {
		case m := <-p.reply:
			return m, nil
		default:
		}
		return nil, ctx.Err()
	}
}

// forget drops p from the pending calls; a late response is then ignored
// (CN-06).
func (s *Session) forget(p *pendingCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending[p.key] == p {
		delete(s.pending, p.key)
	}
}

// abandon cancels a request whose deadline passed or whose caller gave up:
// notifications/cancelled, then the transport's cancel policy (NG-07).
func (s *Session) abandon(ctx context.Context, p *pendingCall) error {
	kind, reason := failure.ErrCancelled, "cancelled by the caller"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		kind, reason = failure.ErrTimeout, fmt.Sprintf("timed out after %v", time.Since(p.sent).Round(time.Millisecond))
	}
	if sc, ok := s.t.(StreamCanceller); ok && s.era == EraModern {
		sc.CloseRequest(jsonrpc.IntID(p.id))
		return failure.New(kind, p.method, fmt.Sprintf("no response to request %d: %s; closed its stream (CN-10)", p.id, reason))
	}
	s.sendCancelled(p.id, reason)
	if cp, ok := s.t.(CancelPolicy); ok {
		cp.RequestCancelled()
	}
	return failure.New(kind, p.method, fmt.Sprintf("no response to request %d: %s; sent notifications/cancelled", p.id, reason))
}

type cancelledParams struct {
	RequestID jsonrpc.ID `json:"requestId"`
	Reason    string     `json:"reason,omitempty"`
}

// sendCancelled tells the server to stop request id (CN-01). A send failure
// is ignored: the transport has ended and the caller learns that anyway.
func (s *Session) sendCancelled(id int64, reason string) {
	if s.opts.Mutant == mutant.NoCancelNotification {
		return
	}
	var params any = cancelledParams{RequestID: jsonrpc.IntID(id), Reason: reason}
	switch s.opts.Mutant {
	case mutant.CancelUnissuedID:
		params = cancelledParams{RequestID: jsonrpc.IntID(id + 1000), Reason: reason}
	case mutant.CancelNoRequestID:
		params = map[string]string{"reason": reason}
	}
	n, err := jsonrpc.NewNotification("notifications/cancelled", params)
	if err == nil {
		_ = s.t.Send(n)
	}
}
