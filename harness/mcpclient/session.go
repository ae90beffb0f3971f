package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
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

// CancelPolicy is implemented by transports that act after a request was
// cancelled or timed out and notifications/cancelled was sent: *stdio.Client
// terminates the server after its cancel grace (NG-07).
type CancelPolicy interface{ RequestCancelled() }

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
	// Mutant selects a mutant of the reference client; empty is the reference.
	Mutant mutant.Name
}

// Defaults of Options.
const (
	DefaultName           = "mcpconform-reference"
	DefaultVersion        = "dev"
	DefaultStartupTimeout = 10 * time.Second
	DefaultCallTimeout    = 30 * time.Second
)

// withDefaults fills the zero fields and rejects negative timeouts.
func (o Options) withDefaults() (Options, error) {
	if o.StartupTimeout < 0 || o.CallTimeout < 0 {
		return o, fmt.Errorf("mcp client options: StartupTimeout (%v) and CallTimeout (%v) must not be negative; 0 means the default", o.StartupTimeout, o.CallTimeout)
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
	return o, nil
}

// Session is an initialized MCP session over a Transport: it issues
// requests with integer ids from 1 that are never reused (JR-05), routes
// responses to their callers by id keeping its JSON type (NG-12), answers the
// server's ping and refuses its other requests. Its methods are safe for
// concurrent use.
type Session struct {
	t          Transport
	opts       Options
	version    string
	initResult json.RawMessage

	mu      sync.Mutex
	nextID  int64
	pending map[string]*pendingCall // by routing key
	endErr  error                   // the transport's reason, once it ended

	gone         chan struct{} // closed when the transport ended; endErr is set
	dispatchDone chan struct{}
}

// Connect runs the initialize handshake over t (LC-03 … LC-05, NG-09):
// initialize with the first preferred version, no client capabilities and
// clientInfo; the server's version must be one of ours; then
// notifications/initialized. All of it must happen within StartupTimeout; if
// it does not, initialize is not cancelled (LC-13): the transport is closed
// and a failure.ErrTimeout returned. On any failure the transport is closed.
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
	if err := s.handshake(ctx); err != nil {
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
	ProtocolVersion string     `json:"protocolVersion"`
	Capabilities    struct{}   `json:"capabilities"`
	ClientInfo      clientInfo `json:"clientInfo"`
}

// handshake sends initialize, checks the result and sends
// notifications/initialized, all before ctx's deadline.
func (s *Session) handshake(ctx context.Context) error {
	if s.opts.Mutant == mutant.DiscoverNoFallback || s.opts.Mutant == mutant.DiscoverFallback {
		if err := s.discover(ctx); err != nil && s.opts.Mutant == mutant.DiscoverNoFallback {
			return err
		}
	}
	var params any = initializeParams{
		ProtocolVersion: s.opts.ProtocolVersions[0],
		ClientInfo:      clientInfo{Name: s.opts.Name, Version: s.opts.Version},
	}
	if s.opts.Mutant == mutant.InitializeWithoutCapabilities {
		params = map[string]any{"protocolVersion": s.opts.ProtocolVersions[0], "clientInfo": clientInfo{Name: s.opts.Name, Version: s.opts.Version}}
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
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || res.ProtocolVersion == "" {
		return failure.New(failure.ErrProtocol, "initialize", "the initialize result carries no protocolVersion string (LC-04)")
	}
	if !slices.Contains(s.opts.ProtocolVersions, res.ProtocolVersion) {
		return failure.New(failure.ErrProtocol, "initialize", fmt.Sprintf(
			"the server chose protocol version %q; this client speaks %s (LC-10)",
			res.ProtocolVersion, strings.Join(s.opts.ProtocolVersions, ", ")))
	}
	s.version, s.initResult = res.ProtocolVersion, m.Result
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
	return nil
}

// discover is the server/discover probe of variant DiscoverFallback, which
// then goes on with initialize whatever the answer (the only handshake it
// speaks), and of mutant DiscoverNoFallback, which gives up on an error
// instead of falling back (LC-45). The probe names the client in _meta as
// a 2026-07-28 request does.
func (s *Session) discover(ctx context.Context) error {
	m, err := s.startupRequest(ctx, mcp.MethodDiscover, map[string]any{"_meta": map[string]any{
		mcp.MetaProtocolVersion:    mcp.ModernVersion,
		mcp.MetaClientCapabilities: map[string]any{},
		mcp.MetaClientInfo:         clientInfo{Name: s.opts.Name, Version: s.opts.Version},
	}})
	if err != nil {
		return err
	}
	if m.Error != nil {
		return failure.Wrap(failure.ErrProtocol, "server/discover", m.Error)
	}
	return nil
}

// startupRequest sends a handshake request and waits for its response
// within the startup deadline. When the deadline passes the request is
// abandoned without cancelling it.
func (s *Session) startupRequest(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
	p, err := s.start(method, params)
	if err != nil {
		return nil, err
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

// ProtocolVersion is the version the server chose.
func (s *Session) ProtocolVersion() string { return s.version }

// InitializeResult is the server's initialize result as it was received.
func (s *Session) InitializeResult() json.RawMessage { return s.initResult }

// Close closes the transport, which ends the session and releases the
// server; pending calls fail. It waits for the session's goroutine.
func (s *Session) Close() error {
	err := s.t.Close()
	<-s.dispatchDone
	return err
}
