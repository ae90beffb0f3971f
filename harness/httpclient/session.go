package httpclient

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// session is one MCP session as the client sees it: the id the server
// issued (HT-50, HT-54), the negotiated version (HT-70), and what the client
// tracks for it. The fields after version are guarded by Client.mu.
type session struct {
	id, version string

	inflight  map[*exchange]struct{} // its ordinary POSTs in progress (RM-05)
	recovery  *recovery              // set by the first POST that met 404 (RM-05)
	getOpened bool
	stopGET   context.CancelFunc // ends its GET stream
}

func newSession(id, version string) *session {
	return &session{id: id, version: version, inflight: map[*exchange]struct{}{}}
}

// The states of an exchange.
const (
	running int32 = iota
	finished
	abandoned // given up by a recovery (RM-07): it reports and delivers nothing more
)

// exchange is one POST of an outbound on one session, from the request to
// the end of its response (the end of its SSE stream, resumptions included).
type exchange struct {
	out      *outbound
	sess     *session
	ctx      context.Context
	cancel   context.CancelFunc
	state    atomic.Int32
	ended    chan struct{}   // closed by finish
	awaiting map[string]bool // ids of its requests not answered yet; its goroutine's only
	gaveUp   bool            // a message could not be taken (failed, or the client closed); its goroutine's only
	modern   bool            // a 2026-07-28 POST: a stream of it that breaks is not resumed (HT-47); its goroutine's only
}

// begin starts an exchange of o on the current session, bounded by ctx; an
// ordinary one counts among the session's POSTs in progress.
func (c *Client) begin(o *outbound, ctx context.Context) *exchange {
	x := &exchange{out: o, ended: make(chan struct{}), awaiting: map[string]bool{}}
	x.ctx, x.cancel = context.WithCancel(ctx)
	for _, id := range o.requestIDs() {
		x.awaiting[id.Key()] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	x.sess = c.sess
	if !o.control {
		x.sess.inflight[x] = struct{}{}
	}
	return x
}

// finish ends x: it no longer counts as in progress.
func (c *Client) finish(x *exchange) {
	x.state.CompareAndSwap(running, finished)
	c.mu.Lock()
	delete(x.sess.inflight, x)
	c.mu.Unlock()
	x.cancel()
	close(x.ended)
}

// live reports whether x may still report and deliver.
func (x *exchange) live() bool { return x.state.Load() == running }

// abandon gives x up and aborts its HTTP exchange; false when it had
// already ended.
func (x *exchange) abandon() bool {
	if !x.state.CompareAndSwap(running, abandoned) {
		return false
	}
	x.cancel()
	return true
}

// answeredBy reports whether m answers one of x's requests not yet answered,
// and marks it answered.
func (x *exchange) answeredBy(m *jsonrpc.Message) bool {
	if k := m.Kind(); k != jsonrpc.KindResult && k != jsonrpc.KindError {
		return false
	}
	if !x.awaiting[m.ID.Key()] {
		return false
	}
	delete(x.awaiting, m.ID.Key())
	return true
}

// failLive reports err for x's unanswered requests, unless x was abandoned.
func (c *Client) failLive(x *exchange, err error) {
	if !x.live() {
		return
	}
	for _, id := range x.out.requestIDs() {
		if x.awaiting[id.Key()] {
			c.report(id, err)
		}
	}
}

// accept handles one message of a POST response: the initialize result
// establishes the session first; then the message goes to the session. It
// reports false, and marks x given up, when the message cannot be taken.
func (c *Client) accept(x *exchange, h http.Header, m *jsonrpc.Message) bool {
	if !x.live() {
		x.gaveUp = true
		return false
	}
	if x.answeredBy(m) && x.out.is("initialize") && m.Kind() == jsonrpc.KindResult {
		if f := c.establish(h, m); f != nil {
			x.awaiting[m.ID.Key()] = true
			c.failLive(x, f)
			x.gaveUp = true
			return false
		}
	}
	if !c.deliver(m) {
		x.gaveUp = true
		return false
	}
	return true
}

// establish starts the session an initialize result opens: its id from the
// response's Mcp-Session-Id (required unless AllowStateless, RM-10) and its
// version from the result (HT-70).
func (c *Client) establish(h http.Header, m *jsonrpc.Message) *failure.Error {
	id, err := sessionIDOf(c.cfg, h, "initialize")
	if err != nil {
		return err
	}
	c.replaceSession(newSession(id, protocolVersionOf(m.Result)))
	return nil
}

// sessionIDOf reads the session id of an initialize response; none is a
// protocol failure unless AllowStateless (RM-10).
func sessionIDOf(cfg Config, h http.Header, op string) (string, *failure.Error) {
	id := h.Get(headerSession)
	if id == "" && !cfg.AllowStateless && cfg.Mutant != mutant.StatelessIgnored {
		return "", causedBy(failure.ErrProtocol, op,
			"the initialize reply carries no Mcp-Session-Id and AllowStateless is off (RM-10); set AllowStateless to accept a stateless server", ErrNoSessionID)
	}
	return id, nil
}

// replaceSession makes next the current session and ends the old one's GET
// stream.
func (c *Client) replaceSession(next *session) {
	c.mu.Lock()
	old := c.sess
	c.sess = next
	c.mu.Unlock()
	c.stopGETStream(old)
}

// protocolVersionOf reads protocolVersion from an initialize result.
func protocolVersionOf(result json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &r)
	return r.ProtocolVersion
}
