package httpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mcpserver"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/sse"
)

// servePOST takes one JSON-RPC message per body (or, in a 2025-03-26 session,
// a batch): notifications and responses get 202 (HT-15), requests an
// application/json or SSE answer (HT-17).
func (s *Server) servePOST(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			refuse(w, http.StatusRequestEntityTooLarge, codeServerError, fmt.Sprintf(
				"the body is larger than the server's limit of %d bytes; send smaller messages", tooLarge.Limit))
			return
		}
		refuse(w, http.StatusBadRequest, codeServerError, fmt.Sprintf("reading the body: %v", err))
		return
	}
	msgs, batch, status, code, problem := parseBody(body)
	if problem != "" {
		s.refuseBody(w, status, code, problem)
		return
	}
	if batch && s.cfg.ModernOnly {
		s.refuseBody(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
			"JSON-RPC batches were removed after 2025-03-26 and this server speaks 2026-07-28 only; send one message per POST")
		return
	}
	if s.modern(r, msgs, batch) {
		s.serveModern(w, r, msgs[0])
		return
	}
	if !batch && msgs[0].Kind() == jsonrpc.KindRequest && msgs[0].Method == "initialize" {
		s.serveInitialize(w, r, msgs[0])
		return
	}
	sess, ok := s.sessionFor(w, r)
	if !ok {
		return
	}
	if batch {
		if problem := s.batchProblem(sess, msgs); problem != "" {
			s.refuseBody(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, problem)
			return
		}
	}
	var requests []*jsonrpc.Message
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			requests = append(requests, m)
			continue
		}
		s.cfg.Handler.Handle(sess.context(), sess, m, noStream)
	}
	switch {
	case len(requests) == 0:
		s.accepted(w)
	case s.cfg.JSONResponse:
		s.answerJSON(w, sess, requests, batch)
	default:
		s.answerSSE(w, r, sess, requests)
	}
}

// parseBody decodes a POST body: one message, or a JSON array of them.
// Unparseable JSON is a parse error (-32700, JR-20); anything else invalid is
// an invalid request (-32600, JR-21); both get 400 (HT-16).
func parseBody(body []byte) (msgs []*jsonrpc.Message, batch bool, status int, code int64, problem string) {
	if !json.Valid(body) {
		return nil, false, http.StatusBadRequest, jsonrpc.CodeParseError,
			"the body is not valid JSON; send one JSON-RPC message per POST"
	}
	if t := bytes.TrimLeft(body, " \t\r\n"); t[0] == '[' {
		msgs, err := jsonrpc.DecodeBatch(body)
		if err != nil {
			return nil, true, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, err.Error()
		}
		return msgs, true, 0, 0, ""
	}
	m, err := jsonrpc.Decode(body)
	if err != nil {
		return nil, false, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, err.Error()
	}
	return []*jsonrpc.Message{m}, false, 0, 0, ""
}

// batchProblem says why a batch is refused: batches exist only in 2025-03-26
// (JR-35, JR-37), and initialize is never batched (JR-36).
func (s *Server) batchProblem(sess *Session, msgs []*jsonrpc.Message) string {
	if v := sess.ProtocolVersion(); v != "2025-03-26" && s.cfg.Mutant != mutant.AcceptBatch {
		return fmt.Sprintf("JSON-RPC batches were removed after 2025-03-26 and this session speaks %s; send one message per POST", v)
	}
	for _, m := range msgs {
		if m.Method == "initialize" {
			return "initialize is never part of a batch; send it alone"
		}
	}
	return ""
}

// accepted answers a body of notifications and responses: 202 with no body
// (HT-15).
func (s *Server) accepted(w http.ResponseWriter) {
	if s.cfg.Mutant == mutant.NotificationGets200 {
		writeJSON(w, http.StatusOK, []byte("{}"))
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// serveInitialize opens a session. The handler runs before the response
// starts, so that the Mcp-Session-Id header goes out only with a successful
// InitializeResult (HT-50).
func (s *Server) serveInitialize(w http.ResponseWriter, r *http.Request, req *jsonrpc.Message) {
	if !s.cfg.Stateless && r.Header.Get(hdrSessionID) != "" {
		if sess, ok := s.sessionFor(w, r); ok {
			refuse(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
				"session %q is already initialized; to start over, send initialize without Mcp-Session-Id", sess.ID()))
		}
		return
	}
	sess := s.newSession(s.cfg.Stateless, "")
	if s.cfg.JSONResponse {
		resp := s.answer(sess, req, noStream)
		if s.establish(w, sess, resp) {
			s.writeAnswer(w, []*jsonrpc.Message{resp}, false)
		}
		return
	}
	st := sess.openStream()
	resp := s.runRequests(sess, st, []*jsonrpc.Message{req})[0]
	if !s.establish(w, sess, resp) {
		return
	}
	if err := st.attach(r, -1, false); err != nil {
		refuse(w, http.StatusNotFound, codeServerError, "the session ended before its initialize response went out; initialize again")
		return
	}
	s.sendStream(w, r, st, s.answerContentType(contentTypeSSE), nil)
}

// answerJSON answers requests with one application/json body: the response,
// or for a batch the array of responses (HT-17).
func (s *Server) answerJSON(w http.ResponseWriter, sess *Session, requests []*jsonrpc.Message, batch bool) {
	resps := make([]*jsonrpc.Message, len(requests))
	for i, req := range requests {
		resps[i] = s.answer(sess, req, noStream)
	}
	s.writeAnswer(w, resps, batch)
}

func (s *Server) writeAnswer(w http.ResponseWriter, resps []*jsonrpc.Message, batch bool) {
	parts := make([][]byte, len(resps))
	for i, resp := range resps {
		parts[i] = encodeResponse(resp)
	}
	body := parts[0]
	if batch {
		body = append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']')
	}
	w.Header().Set("Content-Type", s.answerContentType(mcp.ContentTypeJSON))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// answerSSE answers requests with an SSE stream that carries the messages the
// handler sends about them and then their responses (HT-17, HT-20, HT-21).
// The handler runs apart from the connection: a client that goes away does
// not cancel it (HT-26), and can resume the stream with GET (HT-45).
func (s *Server) answerSSE(w http.ResponseWriter, r *http.Request, sess *Session, requests []*jsonrpc.Message) {
	st := sess.openStream()
	if err := st.attach(r, -1, false); err != nil {
		refuse(w, http.StatusNotFound, codeServerError, "the session has ended; initialize a new session without Mcp-Session-Id")
		return
	}
	if !s.goHandle(func() { s.runRequests(sess, st, requests) }) {
		st.detach(r)
		refuse(w, http.StatusServiceUnavailable, codeServerError, "the server is shutting down; start it again")
		return
	}
	s.sendStream(w, r, st, s.answerContentType(contentTypeSSE), nil)
}

// runRequests handles requests in order, sending each response on the stream
// after what the handler sent about it, then ends the stream (HT-25). A
// request the handler leaves unanswered (the client cancelled it, CN-04) gets
// no response; initialize always gets one.
func (s *Server) runRequests(sess *Session, st *serverStream, requests []*jsonrpc.Message) []*jsonrpc.Message {
	out := s.outFor(sess, st)
	resps := make([]*jsonrpc.Message, len(requests))
	for i, req := range requests {
		if req.Method == "initialize" {
			resps[i] = s.answer(sess, req, out)
		} else {
			resps[i] = s.cfg.Handler.Handle(s.handlerContext(sess, st), sess, req, out)
		}
		if resps[i] != nil {
			s.respond(sess, st, resps[i])
			if s.cfg.Mutant == mutant.PlantedDuplicateReply && mcpserver.PlantedDuplicateTrigger(req) {
				s.respond(sess, st, resps[i])
			}
		}
	}
	if s.cfg.Mutant != mutant.StreamStaysOpen {
		st.end()
	}
	return resps
}

// disconnectSince is the first protocol version that lets a server close
// the connection of a request's stream before the response, once it has
// sent an event id (HT-29a).
const disconnectSince = "2025-11-25"

// handlerContext is the context of a request answered on stream st: the
// session's, carrying st's disconnect (mcpserver.WithDisconnect) where the client
// can resume the stream: a session of disconnectSince or later, on a server
// that serves GET (HT-29a, HT-45).
func (s *Server) handlerContext(sess *Session, st *serverStream) context.Context {
	ctx := sess.context()
	if sess.ephemeral || !s.cfg.EnableGET || sess.ProtocolVersion() < disconnectSince {
		return ctx
	}
	return mcpserver.WithDisconnect(ctx, st.disconnect)
}

// outFor is the out function of a request answered on stream st: each
// message goes on that stream only (HT-41).
func (s *Server) outFor(sess *Session, st *serverStream) func(*jsonrpc.Message) error {
	return func(m *jsonrpc.Message) error {
		if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
			return fmt.Errorf("out sends notifications and requests; return the %s from Handle instead", k)
		}
		data, err := jsonrpc.Encode(m)
		if err != nil {
			return err
		}
		if s.cfg.Mutant == mutant.NotificationsOnGetStream && m.Kind() == jsonrpc.KindNotification && sess.getStreamRead() &&
			sess.getStream().push(sess.context(), data, refuseWhenFull) == nil {
			return nil
		}
		if err := st.push(sess.context(), data, waitWhenFull); err != nil {
			return err
		}
		if s.cfg.Mutant == mutant.StreamClosedEarly && sess.ProtocolVersion() < disconnectSince {
			st.disconnect()
		}
		if s.cfg.Mutant == mutant.DuplicateAcrossStreams {
			_ = sess.getStream().push(sess.context(), data, refuseWhenFull)
		}
		return nil
	}
}

// respond sends a response on the stream of its request; responses never go
// on the GET stream (HT-33g).
func (s *Server) respond(sess *Session, st *serverStream, resp *jsonrpc.Message) {
	data := encodeResponse(resp)
	if s.cfg.Mutant == mutant.ResponseOnGetStream && sess.getStreamRead() {
		if sess.getStream().push(sess.context(), data, refuseWhenFull) == nil {
			return
		}
	}
	_ = st.push(sess.context(), data, waitWhenFull)
}

// answer hands a request to the handler where a response must be written:
// initialize (never cancelled, LC-13) and requests answered with
// application/json, which has no way to say nothing. A handler that returns no
// response gets the request an internal error, so the client is not left
// waiting; a client that cancelled the request ignores it (CN-06). On an SSE
// stream a request the handler leaves unanswered, because the client
// cancelled it, gets nothing (CN-04).
func (s *Server) answer(sess *Session, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
	resp := s.cfg.Handler.Handle(sess.context(), sess, req, out)
	if resp == nil {
		resp = jsonrpc.NewError(req.ID, jsonrpc.CodeInternalError, fmt.Sprintf("the server produced no response to %s", req.Method))
	}
	return resp
}

// encodeResponse encodes a response; one that cannot be encoded becomes an
// internal error for the same id.
func encodeResponse(resp *jsonrpc.Message) []byte {
	data, err := jsonrpc.Encode(resp)
	if err != nil {
		data, _ = jsonrpc.Encode(jsonrpc.NewError(resp.ID, jsonrpc.CodeInternalError, "the server could not encode its response"))
	}
	return data
}

// noStream is the out function where a message has no stream to go on.
func noStream(*jsonrpc.Message) error { return ErrNoStream }

// contentTypeSSE is the media type of an SSE stream.
const contentTypeSSE = mcp.ContentTypeSSE

// answerContentType is the Content-Type of a response that answers requests:
// application/json or text/event-stream (HT-17).
func (s *Server) answerContentType(contentType string) string {
	if s.cfg.Mutant == mutant.WrongContentType {
		return "text/plain; charset=utf-8"
	}
	return contentType
}

// sendStream starts an SSE response and writes the stream's events to it,
// after the events in first.
func (s *Server) sendStream(w http.ResponseWriter, r *http.Request, st *serverStream, contentType string, first []streamEvent) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	retry := s.cfg.RetryInterval
	if s.cfg.Mutant == mutant.NoRetryField {
		retry = 0
	}
	sw := sse.NewWriter(w, retry)
	for _, e := range first {
		if sw.Event(e.id, e.data) != nil {
			st.detach(r)
			return
		}
	}
	if sw.Flush() != nil {
		st.detach(r)
		return
	}
	st.pump(r, sw)
}
