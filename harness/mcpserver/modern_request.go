package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// httpRequestKey is the context key of the HTTP request that brought a
// 2026-07-28 request.
type httpRequestKey struct{}

// WithHTTPRequest returns a copy of ctx carrying r, the HTTP request that
// brought a 2026-07-28 request; the streamable HTTP transport passes it to
// Handle. The headers that mirror a tool's arguments are checked against
// them (HT-81), and r's context ending, which is the client closing the
// response stream, cancels the request (HT-27).
func WithHTTPRequest(ctx context.Context, r *http.Request) context.Context {
	return context.WithValue(ctx, httpRequestKey{}, r)
}

// httpRequestOf is the HTTP request WithHTTPRequest put in ctx, or nil.
func httpRequestOf(ctx context.Context) *http.Request {
	r, _ := ctx.Value(httpRequestKey{}).(*http.Request)
	return r
}

// runModern handles a 2026-07-28 request with handle. Its state is made
// from meta alone (JR-51); a tools/call over HTTP first has its Mcp-Param-*
// headers checked (HT-81). The client may cancel it, with
// notifications/cancelled on conn (stdio) or by closing its HTTP response
// stream (HT-27): then it gets no response (CN-04).
func (s *Server) runModern(ctx context.Context, conn *serverSession, meta mcp.ModernMeta, req *jsonrpc.Message, handle methodHandler, out func(*jsonrpc.Message) error) *jsonrpc.Message {
	if problem := s.paramHeaderProblem(ctx, req); problem != "" {
		return s.respond(req, nil, &jsonrpc.Error{Code: jsonrpc.CodeHeaderMismatch, Message: problem})
	}
	round, rpcErr := s.openRound(req, time.Now())
	if rpcErr != nil {
		return s.respond(req, nil, rpcErr)
	}
	sess := s.statelessSession(meta)
	rc, rpcErr := sess.begin(withRound(ctx, round), s, req, out)
	if rpcErr != nil {
		return s.respond(req, nil, rpcErr)
	}
	if !(s.opts.Mutant == mutant.ListenIgnoresCancel && req.Method == mcp.MethodListen) {
		conn.track(rc)
		defer conn.untrack(rc)
	}
	if r := httpRequestOf(ctx); r != nil {
		defer context.AfterFunc(r.Context(), rc.cancel)()
	} else if s.opts.Mutant == mutant.ModernStdioRequest && req.Method == "tools/call" {
		conn.pingUnasked(rc)
	}
	result, rpcErr := handle(rc, req.Params)
	if sess.finish(rc) && s.opts.Mutant != mutant.ModernAnswersCancelled {
		if s.opts.Mutant == mutant.CancelEchoed {
			echoCancel(req, out)
		}
		return nil
	}
	result, rpcErr = s.concludeRound(rc, round, req.Method, result, rpcErr)
	if rpcErr != nil {
		return s.respond(req, nil, rpcErr)
	}
	return s.respond(req, s.modernResult(req.Method, result), nil)
}

// paramHeaderProblem says how the Mcp-Param-* headers of a tools/call
// that came over HTTP disagree with its arguments (HT-81); "" when they
// agree, or the tool is not the server's (it is refused later).
func (s *Server) paramHeaderProblem(ctx context.Context, req *jsonrpc.Message) string {
	r := httpRequestOf(ctx)
	if r == nil || req.Method != "tools/call" || s.opts.Mutant == mutant.ParamHeadersUnchecked {
		return ""
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = mcp.DecodeParams(req.Params, &p)
	t := findTool(modernToolList, p.Name)
	if t == nil {
		return ""
	}
	return mcp.ParamHeaderProblem(r.Header, t.InputSchema, p.Arguments)
}

// cancel cancels the request as notifications/cancelled does (CX-04).
func (rc *RequestContext) cancel() {
	rc.cancelled.Store(true)
	rc.stop(ErrCancelled)
}

// track registers a 2026-07-28 request in flight on the connection, so
// that notifications/cancelled reaches it, and cancels it at once when its
// cancel came first. Its id is not refused when in use: over HTTP each
// request stands alone.
func (sess *serverSession) track(rc *RequestContext) {
	key := rc.id.Key()
	sess.mu.Lock()
	if sess.modernInflight == nil {
		sess.modernInflight = map[string]*RequestContext{}
	}
	sess.modernInflight[key] = rc
	early := sess.takeEarlyCancel(key)
	sess.mu.Unlock()
	if early {
		rc.cancel()
	}
}

// untrack forgets a finished 2026-07-28 request; a cancel for it that
// comes later changes nothing (CN-05).
func (sess *serverSession) untrack(rc *RequestContext) {
	key := rc.id.Key()
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.modernInflight[key] == rc {
		delete(sess.modernInflight, key)
		sess.rememberFinished(key)
	}
}

// echoCancel is mutant CancelEchoed's notifications/cancelled for a
// request the client cancelled.
func echoCancel(req *jsonrpc.Message, out func(*jsonrpc.Message) error) {
	if note, err := jsonrpc.NewNotification("notifications/cancelled", map[string]any{"requestId": req.ID, "reason": "the server stopped the request"}); err == nil {
		_ = out(note)
	}
}
