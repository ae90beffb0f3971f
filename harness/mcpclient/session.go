package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
)

// Transport carries JSON-RPC messages between the client session and one
// server; *stdio.Client is one.
type Transport interface {
	// Send writes one message to the server.
	Send(*jsonrpc.Message) error
	// Incoming delivers the server's messages in order.
	Incoming() <-chan *jsonrpc.Message
	// Done is closed when the transport's session has ended.
	Done() <-chan struct{}
	// Err says why it ended (a *failure.Error); nil while alive.
	Err() error
	// Close ends the session and releases the server.
	Close() error
}

// HeaderTransport is implemented by transports that carry headers of their
// own with each message (the streamable HTTP client): a 2026-07-28 tools/call
// goes out through it with its Mcp-Param-* headers (HT-79). Its presence
// also tells the session that tools whose x-mcp-header annotations are
// invalid are to be dropped (HT-80).
type HeaderTransport interface {
	SendWithHeaders(m *jsonrpc.Message, headers map[string]string) error
}

// StreamCanceller is implemented by transports that cancel a 2026-07-28
// request by closing its stream (the streamable HTTP client, CN-10, HT-27)
// instead of sending notifications/cancelled; it reports whether the
// request was still open.
type StreamCanceller interface {
	CloseRequest(id jsonrpc.ID) bool
}

// CancelPolicy is implemented by transports that act after a request was
// cancelled or timed out and notifications/cancelled was sent: *stdio.Client
// terminates the server after its cancel grace (NG-07).
type CancelPolicy interface{ RequestCancelled() }

// streamReadier is implemented by transports that open a server→client
// stream once the handshake is done (the streamable HTTP client's GET
// stream, HT-30g): the handshake waits until it was answered, so that a
// request the server sends on it while answering the first call is not
// lost.
type streamReadier interface{ StreamReady() <-chan struct{} }

// startedAter is implemented by transports that know when the server was
// launched; the startup timeout then runs from the launch (NG-09).
type startedAter interface{ StartedAt() time.Time }

// Options configure a client session. The zero value of every field
// means its default.
type Options struct {
	// Name and Version are the clientInfo sent with initialize; defaults
	// DefaultName and DefaultVersion.
	Name, Version string
	// ProtocolVersions lists the versions the client speaks, preferred first;
	// it proposes the first. Default mcp.LegacyProtocolVersions.
	ProtocolVersions []string
	// StartupTimeout bounds initialize and sending notifications/initialized,
	// from the transport's launch when it reports one (NG-09). Default 10s.
	StartupTimeout time.Duration
	// CallTimeout bounds each request when the context has no earlier
	// deadline (LC-30). Default 30s.
	CallTimeout time.Duration
	// Era is the protocol era to speak: EraLegacy (initialize only),
	// EraModern (2026-07-28 only), or EraAuto, the default: probe with
	// server/discover and fall back to initialize where the server does not
	// offer 2026-07-28 (LC-45, LC-46, HT-92).
	Era Era
	// ProbeTimeout bounds the wait for the answer to the server/discover
	// probe under EraAuto; a server silent that long is a legacy one (LC-45).
	// The startup deadline bounds it too. Default 3s.
	ProbeTimeout time.Duration
	// MaxInputRounds bounds how many InputRequiredResults one 2026-07-28
	// request may answer with before the call fails (MR-06). Default 8.
	MaxInputRounds int
	// Warn reports what the client leaves out and why (a tool dropped for
	// its x-mcp-header annotations, HT-80); nil reports nothing.
	Warn func(format string, args ...any)
	// Answers are the fixed answers to the server's sampling, elicitation
	// and roots requests (the adapter contract's MCPCONFORM_SAMPLING, …);
	// each one given declares its capability. The zero value gives none.
	Answers target.Answers
	// Mutant selects a mutant of the reference client; empty is the reference.
	Mutant mutant.Name
}

// Defaults of Options.
const (
	DefaultName           = "mcpconform-reference"
	DefaultVersion        = "dev"
	DefaultStartupTimeout = 10 * time.Second
	DefaultCallTimeout    = 30 * time.Second
	DefaultProbeTimeout   = 3 * time.Second
	DefaultInputRounds    = 8
)

// withDefaults fills the zero fields and rejects negative timeouts.
func (o Options) withDefaults() (Options, error) {
	if o.StartupTimeout < 0 || o.CallTimeout < 0 || o.ProbeTimeout < 0 || o.MaxInputRounds < 0 {
		return o, fmt.Errorf("mcp client options: StartupTimeout (%v), CallTimeout (%v), ProbeTimeout (%v) and MaxInputRounds (%d) must not be negative; 0 means the default",
			o.StartupTimeout, o.CallTimeout, o.ProbeTimeout, o.MaxInputRounds)
	}
	switch o.Era {
	case EraAuto, EraLegacy, EraModern:
	default:
		return o, fmt.Errorf("mcp client options: Era %q is none of %q, %q and \"\" (probe and fall back)", o.Era, EraLegacy, EraModern)
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	if len(o.ProtocolVersions) == 0 {
		o.ProtocolVersions = mcp.LegacyProtocolVersions
	}
	if o.StartupTimeout == 0 {
		o.StartupTimeout = DefaultStartupTimeout
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.ProbeTimeout == 0 {
		o.ProbeTimeout = DefaultProbeTimeout
	}
	if o.MaxInputRounds == 0 {
		o.MaxInputRounds = DefaultInputRounds
	}
	if o.Warn == nil {
		o.Warn = func(string, ...any) {}
	}
	return o, nil
}

// Session is an MCP session over a Transport, in the era Connect chose: it
// issues requests with integer ids from 1 that are never reused (JR-05),
// routes responses to their callers by id keeping its JSON type (NG-12),
// answers the server's ping and elicitation (legacy era) and refuses its
// other requests. In the 2026-07-28 era every request carries the client's
// _meta (JR-46, JR-48) and an InputRequiredResult is answered and retried
// (MR-06). Its methods are safe for concurrent use.
type Session struct {
	t          Transport
	opts       Options
	era        Era
	version    string
	initResult json.RawMessage
	serverCaps json.RawMessage // the capabilities of the initialize or discover result

	toolsMu sync.Mutex
	tools   map[string]mcp.Tool // the listed tools by name, for their Mcp-Param-* headers
	stale   map[string]any      // mutant MRTRStateReused: the last retry's fields
	tokens  atomic.Int64        // the progress tokens of its tool calls so far

	mu      sync.Mutex
	nextID  int64
	pending map[string]*pendingCall  // by routing key
	subs    map[string]*Subscription // open subscriptions by their listen request's key
	endErr  error                    // the transport's reason, once it ended

	gone         chan struct{} // closed when the transport ended; endErr is set
	dispatchDone chan struct{}
}

// Connect opens the session over t in the era Options.Era names (see
// connect): the 2026-07-28 server/discover, or the initialize handshake
// (LC-03 … LC-05, NG-09): initialize with the first preferred version, the
// elicitation capability and clientInfo; the server's version must be one
// of ours; then notifications/initialized. All of it must happen within
// StartupTimeout; if it does not, initialize is not cancelled (LC-13): the
// transport is closed and a failure.ErrTimeout returned. On any failure the
// transport is closed.
func Connect(ctx context.Context, t Transport, opts Options) (*Session, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		_ = t.Close()
		return nil, err
	}
	s := &Session{
		t:            t,
		opts:         opts,
		pending:      make(map[string]*pendingCall),
		gone:         make(chan struct{}),
		dispatchDone: make(chan struct{}),
	}
	go s.dispatch()
	ctx, cancel := s.startupContext(ctx)
	defer cancel()
	if err := s.connect(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// startupContext bounds the handshake by the startup deadline, counted from
// the transport's launch when it reports one, else from now (NG-09).
func (s *Session) startupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.opts.Mutant == mutant.NoStartupTimeout {
		return context.WithCancel(ctx)
	}
	start := time.Now()
	if sa, ok := s.t.(startedAter); ok {
		start = sa.StartedAt()
	}
	return context.WithDeadline(ctx, start.Add(s.opts.StartupTimeout))
}

type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeParams struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ClientInfo      clientInfo     `json:"clientInfo"`
}

// legacyCapabilities are what the client declares in initialize: form-mode
// elicitation, which it answers with the form's defaults (EL-01, EL-06).
func legacyCapabilities() map[string]any {
	return map[string]any{"elicitation": map[string]any{}}
}

// handshake sends initialize, checks the result and sends
// notifications/initialized, all before ctx's deadline.
func (s *Session) handshake(ctx context.Context) error {
	var params any = initializeParams{
		ProtocolVersion: s.opts.ProtocolVersions[0],
		Capabilities:    s.declared(legacyCapabilities()),
		ClientInfo:      clientInfo{Name: s.opts.Name, Version: s.opts.Version},
	}
	if s.opts.Mutant == mutant.InitializeWithoutCapabilities {
		params = map[string]any{"protocolVersion": s.opts.ProtocolVersions[0], "clientInfo": clientInfo{Name: s.opts.Name, Version: s.opts.Version}}
	}
	if s.opts.Mutant == mutant.NotUTF8 {
		params = map[string]any{"protocolVersion": s.opts.ProtocolVersions[0], "capabilities": legacyCapabilities(), "clientInfo": s.notUTF8ClientInfo()}
	}
	if s.opts.Mutant == mutant.PingBeforeInit {
		_, _ = s.start("ping", nil, nil) // its answer is never awaited
	}
	m, err := s.startupRequest(ctx, "initialize", params)
	if s.opts.Mutant == mutant.RefusalUnexplained && (err != nil || m.Error != nil) && ctx.Err() == nil {
		return failure.New(failure.ErrProtocol, "initialize", "the handshake failed")
	}
	if err != nil {
		return err
	}
	if m.Error != nil {
		return failure.Wrap(failure.ErrProtocol, "initialize", fmt.Errorf("the server refused initialize: %w", m.Error))
	}
	var res struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || res.ProtocolVersion == "" {
		return failure.New(failure.ErrProtocol, "initialize", "the initialize result carries no protocolVersion string (LC-04)")
	}
	if !s.speaks(res.ProtocolVersion) {
		return failure.New(failure.ErrProtocol, "initialize", fmt.Sprintf(
			"the server chose protocol version %q; this client speaks %s (LC-10)",
			res.ProtocolVersion, strings.Join(s.opts.ProtocolVersions, ", ")))
	}
	s.era, s.version, s.initResult, s.serverCaps = EraLegacy, res.ProtocolVersion, m.Result, res.Capabilities
	s.answerInvalidRequests()
	if ctx.Err() != nil {
		return s.startupAbandoned(ctx, "notifications/initialized", 0)
	}
	n, err := jsonrpc.NewNotification("notifications/initialized", nil)
	if err != nil {
		return err
	}
	if err := s.t.Send(n); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	if s.opts.Mutant == mutant.IDsRestart {
		s.mu.Lock()
		s.nextID = 0
		s.mu.Unlock()
	}
	s.announceRoots()
	if sr, ok := s.t.(streamReadier); ok {
		// Within the startup deadline; past it the session goes on
		// without the stream.
		select {
		case <-sr.StreamReady():
		case <-ctx.Done():
		}
	}
	return nil
}

// send writes req, with headers where the transport carries them.
func (s *Session) send(req *jsonrpc.Message, headers map[string]string) error {
	if ht, ok := s.t.(HeaderTransport); ok && len(headers) > 0 {
		return ht.SendWithHeaders(req, headers)
	}
	return s.t.Send(req)
}

// startupRequest sends a handshake request and waits for its response
// within the startup deadline. When the deadline passes the request is
// abandoned without cancelling it.
func (s *Session) startupRequest(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
	p, err := s.start(method, params, nil)
	if err != nil {
		return nil, err
	}
	if method == "initialize" {
		s.beforeInitializeResult()
	}
	m, err := s.wait(ctx, p)
	if err != nil && ctx.Err() != nil {
		return nil, s.startupAbandoned(ctx, method, p.id)
	}
	return m, err
}

// startupAbandoned is the failure for a handshake that did not finish in
// time, or that the caller cancelled. The initialize request is never
// cancelled (LC-13, CN-02): Connect closes the transport instead.
func (s *Session) startupAbandoned(ctx context.Context, op string, id int64) error {
	if s.opts.Mutant == mutant.CancelInitialize && id != 0 {
		s.sendCancelled(id, "startup timed out")
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return failure.New(failure.ErrCancelled, op, "the caller cancelled the start")
	}
	return failure.New(failure.ErrTimeout, op, fmt.Sprintf(
		"the handshake did not finish within the startup timeout of %v from launch (NG-09)", s.opts.StartupTimeout))
}

// ProtocolVersion is the version the session speaks: the one the server
// chose in initialize, or the 2026-07-28 version both sides support.
func (s *Session) ProtocolVersion() string { return s.version }

// Era is the era Connect chose: EraLegacy or EraModern.
func (s *Session) Era() Era { return s.era }

// ServerCapabilities are the capabilities the server declared in its
// initialize or server/discover result, as received.
func (s *Session) ServerCapabilities() json.RawMessage { return s.serverCaps }

// InitializeResult is the server's initialize result as it was received.
func (s *Session) InitializeResult() json.RawMessage { return s.initResult }

// Close closes the transport, which ends the session and releases the
// server; pending calls fail. It waits for the session's goroutine.
func (s *Session) Close() error {
	err := s.t.Close()
	<-s.dispatchDone
	return err
}
