package mcpclient

import (
	"strings"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// dispatch reads the server's messages until the transport ends: responses
// go to their callers, requests are answered, notifications go to their
// subscription (others are ignored),
// and a transport's RequestFailure fails its call (FailureSource). When the
// transport ends, every pending call fails with its reason.
func (s *Session) dispatch() {
	defer close(s.dispatchDone)
	in, done, failures := s.t.Incoming(), s.t.Done(), s.failures()
	for {
		select {
		case m, ok := <-in:
			if !ok {
				s.transportEnded()
				return
			}
			s.handle(m)
		case f, ok := <-failures:
			if !ok {
				failures = nil
				continue
			}
			s.fail(f)
		case <-done:
			s.drain(in)
			s.transportEnded()
			return
		}
	}
}

// drain handles the messages a transport delivered before it ended.
func (s *Session) drain(in <-chan *jsonrpc.Message) {
	for {
		select {
		case m, ok := <-in:
			if !ok {
				return
			}
			s.handle(m)
		default:
			return
		}
	}
}

// transportEnded records why the transport ended and wakes every pending call.
func (s *Session) transportEnded() {
	err := s.t.Err()
	if err == nil {
		err = failure.New(failure.ErrConnection, "receive", "the transport stopped delivering messages")
	}
	s.mu.Lock()
	s.endErr = err
	s.pending = map[string]*pendingCall{}
	s.mu.Unlock()
	close(s.gone)
}

// handle acts on one message from the server.
func (s *Session) handle(m *jsonrpc.Message) {
	switch m.Kind() {
	case jsonrpc.KindResult, jsonrpc.KindError:
		s.route(m)
	case jsonrpc.KindRequest:
		s.answer(m)
	case jsonrpc.KindNotification:
		if s.opts.Mutant == mutant.UnknownNotificationAnswered {
			_ = s.t.Send(jsonrpc.NewError(jsonrpc.ID{}, jsonrpc.CodeMethodNotFound, "Method not found: "+m.Method)) // a failed send: dispatch learns it from Done
		}
		if !s.staleCancel(m) && !s.completionFatal(m.Method) {
			s.notify(m)
		}
	}
}

// route gives a response to the call it answers; a response that matches no
// pending call (unknown, cancelled, or without a readable id) is ignored.
func (s *Session) route(m *jsonrpc.Message) {
	if m.ID.IsZero() {
		return
	}
	s.mu.Lock()
	p := s.match(m.ID)
	if p == nil && (s.opts.Mutant == mutant.LateAnswerMisrouted || s.opts.Mutant == mutant.InFlightIDReused) {
		p = s.oldestPending()
	}
	if p != nil {
		delete(s.pending, p.key)
	}
	s.mu.Unlock()
	if p != nil {
		p.reply <- m
	}
}

// match finds the pending call a response id answers, by the id's key, which
// keeps its JSON type: 2 and "2" are different ids (NG-12, JR-07). The
// caller holds s.mu.
func (s *Session) match(id jsonrpc.ID) *pendingCall {
	switch s.opts.Mutant {
	case mutant.IDTypeConfusion:
		return s.pending[strings.Trim(id.Key(), `"`)]
	case mutant.FIFOCorrelation:
		return s.oldestPending()
	}
	return s.pending[id.Key()]
}

// oldestPending is the pending call sent first, nil for none (mutants
// FIFOCorrelation, LateAnswerMisrouted and InFlightIDReused). The caller
// holds s.mu.
func (s *Session) oldestPending() *pendingCall {
	var oldest *pendingCall
	for _, p := range s.pending {
		if oldest == nil || p.id < oldest.id {
			oldest = p
		}
	}
	return oldest
}

// answer replies to a server request: with the answer the client was given
// for it (fixedAnswer); ping gets {} (PG-02); in the legacy era a form-mode
// elicitation/create is accepted with its form's defaults
// (EL-06) and any other mode refused with -32602 (EL-02); anything else is
// method-not-found, since the client declares no other capability (and in
// the 2026-07-28 era servers send no requests, JR-17).
func (s *Session) answer(req *jsonrpc.Message) {
	reply := jsonrpc.NewError(req.ID, jsonrpc.CodeMethodNotFound, "Method not found: "+req.Method)
	var result any
	var rpcErr *jsonrpc.Error
	fixed := false
	if s.era != EraModern {
		result, rpcErr, fixed = s.fixedAnswer(req.Method, req.Params)
	}
	switch {
	case fixed && rpcErr != nil:
		reply = &jsonrpc.Message{ID: req.ID, Error: rpcErr}
	case fixed:
	case req.Method == "roots/list" && s.opts.Mutant == mutant.RootsUndeclaredAnswered:
		result = map[string]any{"roots": []any{}}
	case req.Method == "ping" && s.opts.Mutant != mutant.PingRefused:
		result = struct{}{}
	case req.Method == "elicitation/create" && s.era != EraModern:
		res, err := elicitResult(req.Params)
		if err != nil {
			reply = jsonrpc.NewError(req.ID, jsonrpc.CodeInvalidParams, err.Error())
			break
		}
		result = res
	}
	if result != nil {
		if r, err := jsonrpc.NewResult(req.ID, result); err == nil {
			reply = r
		}
	}
	// A failed send means the transport ended or broke; dispatch learns
	// that from Done.
	late := s.progress(req, fixed && rpcErr == nil)
	_ = s.t.Send(s.mutatedReply(req, reply))
	late()
}
