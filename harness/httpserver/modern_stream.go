package httpserver

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpserver"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/sse"
)

// modernAnswer writes the answer to one 2026-07-28 POST: one
// application/json body when the handler sends nothing before its
// response, otherwise an SSE stream that carries what the handler sends
// about the request (progress, log messages, a subscriptions/listen
// stream's notifications) and then the response (HT-17, HT-22). The
// stream has no event ids to resume from: the 2026-07-28 era has no
// resumption, and a client that closes the stream cancels the request
// (HT-27). Its methods are safe for concurrent use.
type modernAnswer struct {
	s *Server
	w http.ResponseWriter

	mu   sync.Mutex
	sw   *sse.Writer // nil until the handler sends a message
	done bool        // the response went out
}

// handleModern hands a 2026-07-28 request to the handler and writes its
// answer with status (of an application/json answer). The handler's
// context ends with the server, and the client closing the connection
// cancels the request (mcpserver.WithHTTPRequest).
func (s *Server) handleModern(w http.ResponseWriter, r *http.Request, sess *Session, msg *jsonrpc.Message, status func(*jsonrpc.Message) int) {
	a := &modernAnswer{s: s, w: w}
	out := a.out
	if s.cfg.JSONResponse {
		out = noStream
	}
	resp := s.cfg.Handler.Handle(mcpserver.WithHTTPRequest(sess.context(), r), sess, msg, out)
	a.finish(msg, resp, status)
}

// out sends a notification about the request on its SSE stream, starting
// the stream on the first one.
func (a *modernAnswer) out(m *jsonrpc.Message) error {
	if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
		return fmt.Errorf("out sends notifications; return the %s from Handle instead", k)
	}
	data, err := jsonrpc.Encode(m)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return errStreamEnded
	}
	if a.sw == nil {
		h := a.w.Header()
		h.Set("Content-Type", a.s.answerContentType(contentTypeSSE))
		h.Set("Cache-Control", "no-cache")
		if a.s.cfg.Mutant != mutant.NoAccelBuffering {
			h.Set("X-Accel-Buffering", "no")
		}
		a.w.WriteHeader(http.StatusOK)
		a.sw = sse.NewWriter(a.w, 0)
	}
	if err := a.sw.Event("", data); err != nil {
		return err
	}
	return a.sw.Flush()
}

// finish writes the response: as the last event of the stream once one
// started, otherwise as an application/json body with its status. A
// request the handler leaves unanswered (the client cancelled it) ends its
// stream without a response, or gets an internal error where a JSON body
// must say something.
func (a *modernAnswer) finish(req, resp *jsonrpc.Message, status func(*jsonrpc.Message) int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.done = true
	if a.sw == nil {
		if resp == nil {
			resp = jsonrpc.NewError(req.ID, jsonrpc.CodeInternalError, fmt.Sprintf("the server produced no response to %s", req.Method))
		}
		a.s.writeModern(a.w, status(resp), resp)
		return
	}
	if resp != nil && a.sw.Event("", encodeResponse(resp)) == nil {
		_ = a.sw.Flush()
	}
}
