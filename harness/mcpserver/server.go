package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Options configure the reference Server. The zero value of every field
// means its default.
type Options struct {
	// ProtocolVersions are the versions the server speaks, newest first
	// (LC-09). Default mcp.LegacyProtocolVersions.
	ProtocolVersions []string
	// PageSize is how many items a page of tools/list, resources/list,
	// resources/templates/list and prompts/list holds (PA-01). The small
	// default, DefaultPageSize, makes clients paginate.
	PageSize int
	// ReverseTimeout bounds the wait for the client's reply to each request
	// the server sends it: sampling, elicitation, roots (CX-08, LC-30).
	// Default DefaultReverseTimeout.
	ReverseTimeout time.Duration
	// SlowBound is the longest the slow tool waits to be cancelled before it
	// answers. Default DefaultSlowBound.
	SlowBound time.Duration
	// RequestStateTTL is how long the requestState of an
	// InputRequiredResult is accepted (MR-05). Default
	// DefaultRequestStateTTL.
	RequestStateTTL time.Duration
	// Era is the protocol eras the server serves. Default EraDual.
	Era Era
	// Tasks serves the 2026-07-28 tasks extension (TasksExtension): the
	// official conformance suite's tasks scenarios and their tools.
	Tasks bool
	// Mutant selects a mutant of the reference server; empty is the
	// reference. Mutants of other parts (the transports) leave it unchanged.
	Mutant mutant.Name
}

// Era is which protocol eras a server serves.
type Era string

// Eras a reference server can serve.
const (
	// EraDual answers the initialize handshake and 2026-07-28 requests
	// alike (LC-49): a request naming its version in _meta, or
	// server/discover, is handled statelessly; everything else is legacy.
	EraDual Era = "dual"
	// EraLegacy serves the initialize handshake only: server/discover is an
	// unknown method (-32601), as it is to every server of 2025-11-25.
	EraLegacy Era = "legacy"
	// EraModern serves 2026-07-28 requests only: initialize gets -32022
	// naming the versions served (LC-48).
	EraModern Era = "modern"
)

// ParseEra validates an era name; "" is EraDual.
func ParseEra(s string) (Era, error) {
	switch e := Era(s); e {
	case "":
		return EraDual, nil
	case EraDual, EraLegacy, EraModern:
		return e, nil
	}
	return "", fmt.Errorf("unknown era %q; use dual (both), legacy (initialize only) or modern (2026-07-28 only)", s)
}

// Defaults of Options.
const (
	DefaultPageSize       = 2
	DefaultReverseTimeout = 30 * time.Second
	DefaultSlowBound      = 30 * time.Second
	// DefaultRequestStateTTL leaves a user minutes to answer an
	// elicitation, and no more (MR-05: a short expiry).
	DefaultRequestStateTTL = 10 * time.Minute
)

// withDefaults fills the zero fields and rejects negative ones.
func (o Options) withDefaults() (Options, error) {
	if o.PageSize < 0 || o.ReverseTimeout < 0 || o.SlowBound < 0 || o.RequestStateTTL < 0 {
		return o, fmt.Errorf("mcp server options: PageSize (%d), ReverseTimeout (%v), SlowBound (%v) and RequestStateTTL (%v) must not be negative; 0 means the default",
			o.PageSize, o.ReverseTimeout, o.SlowBound, o.RequestStateTTL)
	}
	era, err := ParseEra(string(o.Era))
	if err != nil {
		return o, fmt.Errorf("mcp server options: %w", err)
	}
	o.Era = era
	if len(o.ProtocolVersions) == 0 {
		o.ProtocolVersions = mcp.LegacyProtocolVersions
	}
	o.ProtocolVersions = slices.Clone(o.ProtocolVersions)
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.ReverseTimeout == 0 {
		o.ReverseTimeout = DefaultReverseTimeout
	}
	if o.SlowBound == 0 {
		o.SlowBound = DefaultSlowBound
	}
	if o.RequestStateTTL == 0 {
		o.RequestStateTTL = DefaultRequestStateTTL
	}
	return o, nil
}

// Server is mcpconform's reference MCP server, of the legacy era (2025-03-26 …
// 2025-11-25) and, by default, of the modern one (2026-07-28: server/discover
// and stateless requests carrying their context in _meta). It negotiates
// the version (LC-09), answers ping at any time (PG-01), offers tools, resources, prompts and completion with cursor
// pagination (PA-01, PA-03), and gives every request handler a
// RequestContext (CX-01): logging filtered by logging/setLevel (CX-02),
// progress (CX-03), cooperative cancellation (CX-04), and requests back to
// the client for sampling, elicitation and roots, sent only when declared and
// always with a timeout (CX-05 … CX-08).
//
// Its Handle serves any transport: the streamable HTTP server transport calls
// it as an httpserver.Handler, the stdio server transport per line. State is
// kept per SessionInfo.ID; messages without a session id (stdio, a stateless
// HTTP server) share one state. A session's state is dropped when the context
// of its messages ends. Its methods are safe for concurrent use.
type Server struct {
	opts Options

	mu       sync.Mutex
	sessions map[string]*serverSession
	wedges   map[string]*plantedWedge // mutant PlantedWedgeAfterUnknownCancel's state, per session key

	hub   listenHub // the open subscriptions/listen streams
	tasks taskStore // the tasks of the tasks extension

	toolLists atomic.Int64 // tools/list answers, for mutant ToolsListOrderVaries
}

// New returns a reference server with opts.
func New(opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Server{opts: opts, sessions: map[string]*serverSession{}}, nil
}

// Handle handles one message of a session. A request gets its response, or
// nil when the client cancelled it (CX-04); a notification gets nil (JR-14);
// a response is a reply to one of the server's own requests and is routed to
// it (Deliver). While a request is handled, the messages about it (log,
// progress, requests to the client) go out through out; out is never called
// after Handle returned.
func (s *Server) Handle(ctx context.Context, info SessionInfo, m *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
	sess := s.session(ctx, info)
	if s.opts.Mutant == mutant.PlantedWedgeAfterUnknownCancel {
		return sess.wedge(m, func() *jsonrpc.Message { return s.handle(ctx, sess, m, out) })
	}
	return s.handle(ctx, sess, m, out)
}

// handle is Handle once the session is found.
func (s *Server) handle(ctx context.Context, sess *serverSession, m *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
	switch m.Kind() {
	case jsonrpc.KindResult, jsonrpc.KindError:
		if !sess.deliver(m) && s.opts.Mutant == mutant.LateReplyAnswered {
			return jsonrpc.NewError(m.ID, jsonrpc.CodeInvalidRequest, "no request of this server has this id")
		}
		return nil
	case jsonrpc.KindNotification:
		return s.notification(sess, m)
	}
	return s.request(ctx, sess, m, out)
}

// Deliver routes a client's reply to the server request it answers, by id
// (keeping its JSON type, JR-07). It reports whether a request was waiting
// for it; replies to unknown, timed-out or cancelled requests are dropped.
// Handle calls it for every response; transports may call it directly.
func (s *Server) Deliver(info SessionInfo, resp *jsonrpc.Message) bool {
	s.mu.Lock()
	sess := s.sessions[sessionKey(info)]
	s.mu.Unlock()
	return sess != nil && sess.deliver(resp)
}

// methodHandler handles the params of one request method.
type methodHandler func(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error)

// method finds the handler of a request method.
func (s *Server) method(name string) (methodHandler, bool) {
	switch name {
	case "initialize":
		return s.initialize, true
	case "ping":
		if s.opts.Mutant == mutant.PingResultNotEmpty {
			return func(*RequestContext, json.RawMessage) (any, *jsonrpc.Error) {
				return map[string]bool{"alive": true}, nil
			}, true
		}
		return ping, true
	case "logging/setLevel":
		return s.setLogLevel, true
	case "tools/list":
		return s.listTools, true
	case "tools/call":
		return s.callTool, true
	case "resources/list":
		return s.listResources, true
	case "resources/templates/list":
		return s.listResourceTemplates, true
	case "resources/read":
		return readResource, true
	case "resources/subscribe":
		return subscribeResource, true
	case "resources/unsubscribe":
		return unsubscribeResource, true
	case "prompts/list":
		return s.listPrompts, true
	case "prompts/get":
		return getPrompt, true
	case "completion/complete":
		return complete, true
	}
	return nil, false
}

// request answers one request: an unknown method gets -32601 (JR-22), a known
// one before initialize gets -32600 (LC-02), otherwise its handler runs with
// a RequestContext. A request the client cancelled meanwhile gets no response
// (CX-04, CN-04).
func (s *Server) request(ctx context.Context, sess *serverSession, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
	if resp, modern := s.modernRequest(ctx, sess, req, out); modern {
		return resp
	}
	handle, ok := s.method(req.Method)
	if !ok {
		// server/discover lands here when the server serves the legacy era
		// only (LC-45, LC-46).
		code := int64(jsonrpc.CodeMethodNotFound)
		if s.opts.Mutant == mutant.UnknownMethodWrongCode {
			code = jsonrpc.CodeInvalidRequest
		}
		return s.respond(req, nil, &jsonrpc.Error{Code: code, Message: fmt.Sprintf("method %q is not offered by this server", req.Method)})
	}
	if rpcErr := sess.admit(req.Method, s.opts.Mutant); rpcErr != nil {
		return s.respond(req, nil, rpcErr)
	}
	rc, rpcErr := sess.begin(ctx, s, req, out)
	if rpcErr != nil {
		return s.respond(req, nil, rpcErr)
	}
	if s.opts.Mutant == mutant.RequestsBeforeInitDone && req.Method == "ping" && !sess.isReady() {
		rc.askEarly()
	}
	if s.opts.Mutant == mutant.CancelsClientRequest && req.Method == "tools/call" {
		rc.cancelReverse(req.ID, "mutant "+string(mutant.CancelsClientRequest))
	}
	if s.opts.Mutant == mutant.CancelWithoutRequestID && req.Method == "tools/call" {
		if note, err := jsonrpc.NewNotification("notifications/cancelled", map[string]any{"reason": "mutant " + string(mutant.CancelWithoutRequestID)}); err == nil {
			_ = rc.send(note)
		}
	}
	result, rpcErr := handle(rc, req.Params)
	if sess.finish(rc) && s.opts.Mutant != mutant.AnswersCancelledRequest {
		return nil
	}
	return s.respond(req, result, rpcErr)
}

// respond builds the response to req with the request's id, keeping its JSON
// type (JR-07).
func (s *Server) respond(req *jsonrpc.Message, result any, rpcErr *jsonrpc.Error) *jsonrpc.Message {
	id := req.ID
	if s.opts.Mutant == mutant.IDTypeChanged {
		id = retyped(id)
	}
	if rpcErr != nil {
		return s.mutateResponse(req, &jsonrpc.Message{ID: id, Error: rpcErr})
	}
	resp, err := jsonrpc.NewResult(id, result)
	if err != nil {
		return jsonrpc.NewError(id, jsonrpc.CodeInternalError, "the server could not encode its result")
	}
	return s.mutateResponse(req, resp)
}

// retyped is mutant IDTypeChanged's id: a number becomes a string and a
// string of digits a number.
func retyped(id jsonrpc.ID) jsonrpc.ID {
	var parsed jsonrpc.ID
	if id.IsString() {
		var text string
		if json.Unmarshal([]byte(id.Key()), &text) == nil && json.Unmarshal([]byte(text), &parsed) == nil && !parsed.IsZero() && !parsed.IsString() {
			return parsed
		}
		return id
	}
	return jsonrpc.StringID(id.Key())
}

// ping answers {} (PG-02).
func ping(*RequestContext, json.RawMessage) (any, *jsonrpc.Error) { return struct{}{}, nil }
