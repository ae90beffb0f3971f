package httpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Handler handles one JSON-RPC message of a session. For a request it may send
// notifications and requests related to it through out (they go on the
// request's SSE stream, HT-21) and returns the response, or nil to leave a
// request the client cancelled unanswered (CN-04): its SSE stream then ends
// without a response, while initialize and application/json answers get an
// internal error instead. Where the client can resume the request's stream,
// ctx carries the means to close its connection mid-call (mcpserver.Disconnect,
// HT-29a). Notifications and responses the client POSTs (among them replies
// to the handler's own requests) are handed over too; for those the handler
// returns nil and out fails with ErrNoStream.
type Handler interface {
	Handle(ctx context.Context, s *Session, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, s *Session, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, s *Session, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
	return f(ctx, s, req, out)
}

// Config configures the reference streamable HTTP server transport.
// Start from DefaultConfig: its flags are literal (a false EnableGET
// answers GET with 405), while a zero limit or list means its default.
type Config struct {
	// Handler answers the messages of every session.
	Handler Handler
	// Stateless serves without sessions: no Mcp-Session-Id is minted or
	// required, and GET and DELETE get 405.
	Stateless bool
	// JSONResponse answers requests with one application/json body instead of
	// an SSE stream (HT-17); related messages then have no stream to go on.
	JSONResponse bool
	// LegacyOnly serves the initialize handshake only. Otherwise a POST
	// without Mcp-Session-Id that carries one 2026-07-28 request (its
	// protocol version in _meta, or server/discover) is answered statelessly
	// with application/json (serveModern).
	LegacyOnly bool
	// ModernOnly serves the 2026-07-28 era only: every POST goes to
	// serveModern, GET and DELETE get 405, no session is ever minted (HT-60).
	ModernOnly bool
	// EnableGET lets GET open the server→client SSE stream; false answers GET
	// with 405 (HT-31g).
	EnableGET bool
	// AllowedOrigins are the exact Origin values accepted besides the loopback
	// ones (http or https, host 127.0.0.1, localhost or [::1], any port). A
	// request without Origin is accepted; any other Origin gets 403 (HT-03,
	// HT-04).
	AllowedOrigins []string
	// AllowedHosts are Host header values (with or without port) accepted
	// besides loopback names with any port; other hosts get 403, which stops
	// DNS rebinding beside the Origin check (HT-03); no rule of the spec
	// asks for it (the hardened profile does).
	AllowedHosts []string
	// SupportedVersions are the protocol versions accepted in the
	// MCP-Protocol-Version header (HT-72). Default DefaultSupportedVersions.
	SupportedVersions []string
	// MaxBodyBytes caps a POST body; a larger one gets 413. Default
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// HistoryEvents is how many events each SSE stream keeps for resumption
	// (HT-46), and how many may wait for a slow client. Default
	// DefaultHistoryEvents.
	HistoryEvents int
	// RetainedStreams is how many finished POST streams a session keeps for
	// resumption. Default DefaultRetainedStreams.
	RetainedStreams int
	// RetryInterval is the retry field of every priming event: how long a
	// client waits before it reconnects to a stream whose connection the
	// server closed (HT-29b). Default DefaultRetryInterval, well within
	// the tool budget of the checks that resume such a stream.
	RetryInterval time.Duration
	// MaxSessions caps the live sessions; an initialize beyond it gets 503.
	// Default DefaultMaxSessions.
	MaxSessions int
	// Mutant selects a mutant of the reference server transport; empty is the
	// reference.
	Mutant mutant.Name
}

// Defaults of Config.
const (
	DefaultMaxBodyBytes    = 4 << 20
	DefaultHistoryEvents   = 256
	DefaultRetainedStreams = 16
	DefaultRetryInterval   = 200 * time.Millisecond
	DefaultMaxSessions     = 1024
)

// DefaultSupportedVersions are the legacy-era protocol versions the server
// transport accepts, oldest first.
var DefaultSupportedVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// versionWithoutHeader is the version assumed for a request without
// MCP-Protocol-Version and without a negotiated session (HT-71).
const versionWithoutHeader = "2025-03-26"

// DefaultConfig is the reference configuration: sessions, SSE answers,
// the GET stream, loopback origins and hosts only.
func DefaultConfig(h Handler) Config {
	return Config{
		Handler:           h,
		EnableGET:         true,
		SupportedVersions: append([]string(nil), DefaultSupportedVersions...),
		MaxBodyBytes:      DefaultMaxBodyBytes,
		HistoryEvents:     DefaultHistoryEvents,
		RetainedStreams:   DefaultRetainedStreams,
		RetryInterval:     DefaultRetryInterval,
		MaxSessions:       DefaultMaxSessions,
	}
}

func (c Config) withDefaults() Config {
	if len(c.SupportedVersions) == 0 {
		c.SupportedVersions = append([]string(nil), DefaultSupportedVersions...)
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.HistoryEvents <= 0 {
		c.HistoryEvents = DefaultHistoryEvents
	}
	if c.RetainedStreams <= 0 {
		c.RetainedStreams = DefaultRetainedStreams
	}
	if c.RetryInterval <= 0 {
		c.RetryInterval = DefaultRetryInterval
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	return c
}

// withVariant applies a permitted variant that is one of the transport's
// own choices (HT-17, HT-31g).
func (c Config) withVariant() Config {
	switch c.Mutant {
	case mutant.JSONResponses:
		c.JSONResponse = true
	case mutant.GETRefused:
		c.EnableGET = false
	}
	return c
}

// The headers of the transport (package mcp names them). Header names
// compare case-insensitively.
const (
	hdrSessionID       = mcp.HeaderSessionID
	hdrProtocolVersion = mcp.HeaderProtocolVersion
	hdrLastEventID     = mcp.HeaderLastEventID
)

// Errors of Notify and of a handler's out function.
var (
	// ErrNoStream: the message has no SSE stream to go on (a JSON answer, or
	// a POSTed notification or response).
	ErrNoStream = errors.New("no SSE stream for this message")
	// ErrUnknownSession: no live session has that id.
	ErrUnknownSession = errors.New("unknown or ended session")
	// ErrSessionEnded: the session ended (DELETE, or the server closed).
	ErrSessionEnded = errors.New("session ended")
	// ErrBacklogFull: HistoryEvents messages already wait for a client to
	// read the GET stream.
	ErrBacklogFull = errors.New("too many undelivered events on the GET stream")
)

// Server is the reference streamable HTTP server transport: an http.Handler
// for the one MCP endpoint (HT-01), answering POST, GET and DELETE and
// nothing else.
type Server struct {
	cfg    Config
	ctx    context.Context // ends with Close
	cancel context.CancelFunc

	streamIDs atomic.Int64 // numbers every stream of the server
	minted    atomic.Int64 // counts the session ids of mutant.SequentialSessionIDs

	mu       sync.Mutex
	sessions map[string]*Session
	retired  []string // ids of the latest sessions that ended, oldest first
	closed   bool
	running  sync.WaitGroup // handlers answering POSTs in the background
}

// New returns a server transport; cfg.Handler must be set.
func New(cfg Config) *Server {
	if cfg.Handler == nil {
		panic("httpserver.New: Config.Handler is nil; set it to the MCP server that answers the messages")
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		cfg:      cfg.withDefaults().withVariant(),
		ctx:      ctx,
		cancel:   cancel,
		sessions: map[string]*Session{},
	}
}

// ServeHTTP checks Host (beyond the spec) and Origin (HT-03, HT-04), then
// serves POST, GET and DELETE; any other method gets 405.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r.Host) {
		refuse(w, http.StatusForbidden, codeServerError, fmt.Sprintf(
			"Host %q is not allowed; reach the server by a loopback name or add the host to the allowed hosts", r.Host))
		return
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 && !s.originAllowed(origins) {
		refuse(w, http.StatusForbidden, codeServerError, fmt.Sprintf(
			"Origin %q is not allowed; send requests from a loopback origin or add it to the allowed origins", origins[0]))
		return
	}
	if s.isClosed() {
		refuse(w, http.StatusServiceUnavailable, codeServerError, "the server is shutting down; start it again")
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.servePOST(w, r)
	case http.MethodGet:
		s.serveGET(w, r)
	case http.MethodDelete:
		s.serveDELETE(w, r)
	default:
		s.methodNotAllowed(w, r.Method)
	}
}

// methodNotAllowed answers 405 listing the methods this configuration serves.
func (s *Server) methodNotAllowed(w http.ResponseWriter, method string) {
	allow := "GET, POST, DELETE"
	switch {
	case s.cfg.Stateless || s.cfg.ModernOnly:
		allow = "POST"
	case !s.cfg.EnableGET:
		allow = "POST, DELETE"
	case s.cfg.Mutant == mutant.DeleteRefused:
		allow = "GET, POST"
	}
	w.Header().Set("Allow", allow)
	refuse(w, http.StatusMethodNotAllowed, codeServerError, fmt.Sprintf(
		"method %s is not served at this endpoint; use %s", method, allow))
}

// Notify sends a server-initiated notification or request on the session's
// GET stream, or queues it there until a client opens the stream. Responses
// never go on the GET stream (HT-33g). It fails with ErrUnknownSession,
// ErrSessionEnded or ErrBacklogFull.
func (s *Server) Notify(sessionID string, m *jsonrpc.Message) error {
	if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
		return fmt.Errorf("notify session %q: a %s never goes on the GET stream; return it from the handler", sessionID, k)
	}
	sess := s.lookup(sessionID)
	if sess == nil {
		return fmt.Errorf("notify session %q: %w", sessionID, ErrUnknownSession)
	}
	data, err := jsonrpc.Encode(m)
	if err != nil {
		return fmt.Errorf("notify session %q: %w", sessionID, err)
	}
	if err := sess.getStream().push(context.Background(), data, refuseWhenFull); err != nil {
		return fmt.Errorf("notify session %q: %w", sessionID, err)
	}
	return nil
}

// Close ends every session and its streams, cancels the handlers' contexts
// and waits for the handlers still answering POSTs. Requests arriving later
// get 503. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	sessions := s.sessions
	s.sessions = map[string]*Session{}
	s.mu.Unlock()
	s.cancel()
	for _, sess := range sessions {
		sess.end()
	}
	s.running.Wait()
	return nil
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// goHandle runs f in the background unless the server is closed.
func (s *Server) goHandle(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		f()
	}()
	return true
}

// newStreamID numbers a new stream; stream ids are unique in the server, so
// event ids are unique across all streams of a session, and across the POSTs
// of a stateless client (HT-43).
func (s *Server) newStreamID() string { return strconv.FormatInt(s.streamIDs.Add(1), 10) }

// eventID names event seq of a stream "<stream>-<seq>": unique across the
// session's streams (HT-43), and it names the stream it came from (HT-44).
func (s *Server) eventID(stream string, seq int64) string {
	if s.cfg.Mutant == mutant.DuplicateEventIDs {
		return strconv.FormatInt(seq, 10)
	}
	return stream + "-" + strconv.FormatInt(seq, 10)
}
