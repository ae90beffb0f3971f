// Package httpclient is mcpconform's reference streamable HTTP client
// transport (Client, configured by Config). It carries an MCP session
// (package mcpclient): every message is its own POST, responses come as
// JSON or as server-sent events (read by package sse), the server→client
// stream is a GET, an expired session is recovered once, and a dropped
// stream is resumed with Last-Event-ID. The server side is package
// httpserver.
//
// The client keeps rules RM-01 … RM-13 of SEMANTICS.md and the client rules
// HT-10, HT-11, HT-13, HT-17, HT-29b, HT-30g, HT-45, HT-54, HT-57, HT-58 and
// HT-70 of the requirements digest. Which mutant (harness/mutant) it runs is
// chosen by Config.Mutant.
package httpclient

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
)

// Client is one MCP session over streamable HTTP, as an mcpclient.Transport and
// mcpclient.FailureSource. Its methods are safe for concurrent use.
type Client struct {
	cfg       Config
	hc        *http.Client
	own       *http.Transport // the transport of the client's own HTTP client; nil when the config gave one
	startedAt time.Time
	ctx       context.Context // cancelled when the client is closed
	cancel    context.CancelFunc

	incoming chan *jsonrpc.Message
	failures chan mcpclient.RequestFailure
	done     chan struct{} // closed when the client is closed

	ordinary *queue // ordinary POSTs (RM-01)
	control  *queue // cancellations and replies (RM-02)
	slots    *slots

	mu      sync.Mutex
	closed  bool
	err     error
	sess    *session         // the current session; before initialize one without id
	initMsg *jsonrpc.Message // the original initialize request, repeated by a recovery (RM-05)
	wg      sync.WaitGroup   // every goroutine of the client

	closeOnce sync.Once
	closeErr  error

	streamReady     chan struct{} // closed once the GET stream was answered, or will not be opened
	streamReadyOnce sync.Once
	reinits         atomic.Int64 // numbers the recoveries' initialize requests
	answersInvalid  atomic.Bool  // AnswerInvalidRequests was called
}

// Dial validates cfg and returns a client for its endpoint. Nothing is sent
// yet: the first request goes out when the session sends initialize.
func Dial(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		cfg:       cfg,
		startedAt: time.Now(),
		ctx:       ctx,
		cancel:    cancel,
		incoming:  make(chan *jsonrpc.Message),
		failures:  make(chan mcpclient.RequestFailure),
		done:      make(chan struct{}),
		ordinary:  newQueue(),
		control:   newQueue(),
		slots:     newSlots(cfg.MaxConcurrentRequests, cfg.Mutant),
		sess:      newSession("", ""),

		streamReady: make(chan struct{}),
	}
	c.hc = cfg.HTTPClient
	if c.hc == nil {
		c.hc, c.own = c.defaultHTTPClient()
	}
	c.spawn(c.dispatchOrdinary)
	c.spawn(c.dispatchControl)
	return c, nil
}

// Send queues m as its own POST (HT-10, HT-13) and returns at once, without
// waiting for the HTTP exchange. Cancellations and replies to server
// requests go to the control queue, everything else to the ordinary queue
// (RM-01, RM-02). What the server answers arrives on Incoming; a request
// whose exchange fails is reported on Failures. Send fails only when m does
// not encode or the client is closed (failure.ErrShutdown).
func (c *Client) Send(m *jsonrpc.Message) error { return c.SendWithHeaders(m, nil) }

// SendWithHeaders is Send with headers of the message's own (the
// Mcp-Param-* headers of a 2026-07-28 tools/call, HT-79) on its POST.
func (c *Client) SendWithHeaders(m *jsonrpc.Message, headers map[string]string) error {
	body, err := jsonrpc.Encode(m)
	if err != nil {
		return failure.Wrap(failure.ErrProtocol, "send "+m.Kind().String(), err)
	}
	o := &outbound{msgs: []*jsonrpc.Message{m}, body: c.batchMutated(m, body), control: c.isControl(m), headers: headers}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return failure.New(failure.ErrShutdown, "send", "the client is closed")
	}
	if m.Kind() == jsonrpc.KindRequest && m.Method == "initialize" {
		c.initMsg = m
	}
	if o.control {
		c.control.push(o)
	} else {
		c.ordinary.push(o)
	}
	return nil
}

// Incoming delivers every JSON-RPC message the server sends, from POST
// responses (JSON or SSE) and from the GET stream. It is closed once the
// client is closed and its goroutines have ended.
func (c *Client) Incoming() <-chan *jsonrpc.Message { return c.incoming }

// Failures reports the requests whose exchange failed (HTTP error, session
// expired and not recovered, recovery timeout, oversize event, stream lost),
// by JSON-RPC id, each a *failure.Error; the mcp session fails the call with
// it. It is closed with Incoming.
func (c *Client) Failures() <-chan mcpclient.RequestFailure { return c.failures }

// StreamReady is closed once the server→client GET stream that
// notifications/initialized opens was answered (a stream, a 405, an error),
// or when none will be opened (HT-30g); the session waits for it before its
// first request, so that a server request sent on that stream is not lost.
func (c *Client) StreamReady() <-chan struct{} { return c.streamReady }

// markStreamReady closes StreamReady, once.
func (c *Client) markStreamReady() { c.streamReadyOnce.Do(func() { close(c.streamReady) }) }

// Done is closed when the client is closed.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is nil while the client is open, then a failure of kind
// failure.ErrShutdown.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// StartedAt is when the client was dialled; the session's startup timeout
// runs from here.
func (c *Client) StartedAt() time.Time { return c.startedAt }

// SessionID is the current Mcp-Session-Id; "" before initialize and for a
// stateless server.
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess.id
}

// spawn runs f in a goroutine Close waits for, unless the client is closed.
func (c *Client) spawn(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spawnLocked(f)
}

// spawnLocked is spawn for a caller holding c.mu.
func (c *Client) spawnLocked(f func()) bool {
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

// deliver hands m to the session; it gives up when the client is closed.
func (c *Client) deliver(m *jsonrpc.Message) bool {
	select {
	case c.incoming <- m:
		return true
	case <-c.done:
		return false
	}
}

// report fails request id with err.
func (c *Client) report(id jsonrpc.ID, err error) {
	select {
	case c.failures <- mcpclient.RequestFailure{ID: id, Err: err}:
	case <-c.done:
	}
}

// failOut reports err for every request of o.
func (c *Client) failOut(o *outbound, err error) {
	for _, id := range o.requestIDs() {
		c.report(id, err)
	}
}

// sleep waits d; it reports false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
