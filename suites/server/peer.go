package server

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/stdiotarget"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Protocol versions the peer proposes.
const (
	v0326 = "2025-03-26"
	v0618 = "2025-06-18"
	v1125 = "2025-11-25"
)

// legacyVersions are the versions of the legacy era, oldest first.
var legacyVersions = []string{v0326, v0618, v1125}

// peer is the check's side of one connection: it sends requests and reads
// the server's messages, keeping those no wait has consumed.
type peer struct {
	c         *run.C
	conn      conn
	transport string
	nextID    int64
	unread    []*jsonrpc.Message
	// ended: the connection's messages channel closed (a stdio server
	// closed its stdout).
	ended bool
	// modern is the 2026-07-28 version the peer's requests name in _meta
	// once it made one (modernRequest); "" for a legacy conversation.
	modern string
	// wire, when set, records every message sent and read (wire.go).
	wire *wire
	// heard: the server sent a message on this connection, so it has
	// started. Until then a wait for a response also gives it startup,
	// the run's start-up budget (StartupBudget).
	heard   bool
	startup time.Duration
}

// newPeer is the check's side of cn, a connection to a server it just
// started (or a session it is opening) over t.
func newPeer(c *run.C, cn conn, t check.Transport) *peer {
	return &peer{c: c, conn: cn, transport: string(t), startup: c.StartupBudget(t)}
}

// openPeer starts a fresh connection to the server under test over t
// (closed when the check ends) and returns the check's side of it; a
// server the harness cannot start is the check's ERROR, and a transport
// the run names no target for (no URL, no command) SKIPs the check.
func openPeer(c *run.C, t check.Transport) *peer {
	switch cfg := c.Options(); {
	case t == check.HTTP && cfg.ServerURL == "":
		c.Skip(run.NoServerURL)
	case t == check.Stdio && len(cfg.ServerCommand) == 0:
		c.Skip(run.NoServerCommand)
	}
	cn, err := dial(c.Options(), t, c.Log())
	if err != nil {
		c.Errorf("the server could not be started over %s: %v", t, err)
	}
	c.Cleanup(cn.close)
	return newPeer(c, cn, t)
}

// eachTransport runs body once per transport the run names, on a fresh
// connection each time, and judges each transport apart: a failure over
// one does not keep the other from being judged, and the check ends with
// the worst of them, each one's verdict in its message (run.C.Conclude).
func eachTransport(c *run.C, body func(p *peer)) { onTransports(c, true, body) }

// onTransports is eachTransport, over stdio only unless withHTTP. A
// transport over which the server does not serve the check's era is N/A
// and not judged; when that leaves none, the check is N/A.
func onTransports(c *run.C, withHTTP bool, body func(p *peer)) {
	cfg := c.Options()
	if len(cfg.ServerCommand) == 0 && (cfg.ServerURL == "" || !withHTTP) {
		c.Skip(run.NoServerCommand)
	}
	var judged []run.Judgement
	for _, t := range []check.Transport{check.Stdio, check.HTTP} {
		if t == check.Stdio && len(cfg.ServerCommand) == 0 || t == check.HTTP && (cfg.ServerURL == "" || !withHTTP) {
			continue
		}
		if ok, reason := c.EraApplies(t); !ok {
			judged = append(judged, run.NotJudged(t, reason))
			continue
		}
		judged = append(judged, c.JudgeOn(t, func() { body(openPeer(c, t)) }))
	}
	c.Conclude(judged)
}

// dial opens a fresh connection to the server under test over t: a new
// process for stdio, a new client for HTTP; log records it (nil: nothing).
func dial(cfg run.Options, t check.Transport, log *transcript.Log) (conn, error) {
	if t == check.Stdio {
		s, err := stdiotarget.Start(cfg.ServerCommand, stdiotarget.Options{Log: log})
		if err != nil {
			return nil, err
		}
		return stdioConn{s}, nil
	}
	return newHTTPConn(cfg.ServerURL, cfg.CheckDeadline, log), nil
}

// reopen returns a peer on a fresh connection to the same server over the
// same transport, past the handshake.
func (p *peer) reopen() *peer {
	q := openPeer(p.c, check.Transport(p.transport))
	q.initialize(v1125, nil)
	return q
}

// id returns a fresh integer request id.
func (p *peer) id() jsonrpc.ID {
	p.nextID++
	return jsonrpc.IntID(p.nextID)
}

// raw sends bytes as one message.
func (p *peer) raw(b []byte) {
	p.wire.sent(b)
	err := p.conn.send(b)
	if err != nil && !p.started() && run.Unreachable(err) {
		// Nothing was exchanged yet and the HTTP session could not be
		// opened, which no rule of the check is about. A stdio server that
		// takes no input has closed its stdin or exited: that is judged.
		p.c.NotStarted("the HTTP session could not be opened: %v; the era probe reached the server, so it is unsteady: rerun, or check that nothing else stops it", err)
	}
	p.c.Require(err == nil, "the server accepts the message ("+p.transport+")", "%v", err)
}

// message sends a request (id set) or a notification (id zero).
func (p *peer) message(id jsonrpc.ID, method string, params any) {
	b, err := jsonrpc.EncodeCall(id, method, params)
	p.c.Require(err == nil, "the check can encode "+method, "%v", err)
	p.raw(b)
}

// wait returns the first message (unread first) that match accepts, or nil
// once d passes; with d <= 0 it takes only what was already delivered.
func (p *peer) wait(match func(*jsonrpc.Message) bool, d time.Duration) *jsonrpc.Message {
	return p.waitUntil(match, d, nil)
}

// waitUntil is wait that also gives up once stop is closed (nil: never),
// taking what was delivered before it.
func (p *peer) waitUntil(match func(*jsonrpc.Message) bool, d time.Duration, stop <-chan struct{}) *jsonrpc.Message {
	for i, m := range p.unread {
		if match(m) {
			p.unread = append(p.unread[:i], p.unread[i+1:]...)
			return m
		}
	}
	var expired <-chan time.Time
	if d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		expired = timer.C
	}
	for {
		var m *jsonrpc.Message
		var ok bool
		if d > 0 {
			select {
			case m, ok = <-p.conn.messages():
			case <-expired:
				return nil
			case <-stop:
				return p.waitUntil(match, 0, nil)
			}
		} else {
			select {
			case m, ok = <-p.conn.messages():
			default:
				return nil
			}
		}
		if !ok {
			p.ended = true
			return nil
		}
		p.heard = true
		p.wire.received(m)
		if match(m) {
			return m
		}
		p.unread = append(p.unread, m)
	}
}

// waitReady is wait without waiting: the first message already delivered
// that match accepts.
func (p *peer) waitReady(match func(*jsonrpc.Message) bool) *jsonrpc.Message { return p.wait(match, 0) }

// anyResponse matches any response, whatever its id.
func anyResponse(m *jsonrpc.Message) bool {
	k := m.Kind()
	return k == jsonrpc.KindResult || k == jsonrpc.KindError
}

// responseTo matches the response with id (its JSON type included).
func responseTo(id jsonrpc.ID) func(*jsonrpc.Message) bool {
	return func(m *jsonrpc.Message) bool { return anyResponse(m) && m.ID.Key() == id.Key() }
}

// request sends a request and returns its response, failing the check when
// none arrives within the run's patience.
func (p *peer) request(method string, params any) *jsonrpc.Message {
	return p.requestWithID(p.id(), method, params)
}

func (p *peer) requestWithID(id jsonrpc.ID, method string, params any) *jsonrpc.Message {
	p.message(id, method, params)
	d := p.patience()
	m := p.wait(responseTo(id), d)
	if m == nil {
		p.requireStarted(method)
		m = p.waitReady(responseTo(id)) // an answer that came while requireStarted asked
	}
	p.c.Require(m != nil, fmt.Sprintf("a response to %s (id %s) over %s", method, id, p.transport), "%s", p.silence(d))
	return m
}

// patience is how long to wait for the response to the request just sent:
// the run's Patience, and the start-up budget too while the server has
// not yet shown it started; no time at all once an HTTP reply is complete
// without it (nothing else can bring it).
func (p *peer) patience() time.Duration {
	d := p.c.Options().Patience
	if !p.started() {
		d += p.startup
	}
	return p.within(d)
}

// started reports whether the server has shown it is there: a message on
// this connection, or over HTTP any reply.
func (p *peer) started() bool {
	if h, ok := p.conn.(*httpConn); ok && h.last != "" {
		return true
	}
	return p.heard
}

// requireStarted ends the check as ERROR when the server has shown
// nothing since it was started, its start-up budget and the check's
// patience gone: it did not start, and no rule of the check can be judged.
// A stdio server still running is first asked what the era probe saw it
// answer (initialize, or server/discover for a modern-only server): one
// that answers, or sends anything meanwhile, had started, and its silence
// to method is the check's to judge. A server that exited is judged too
// (its exit is the evidence).
func (p *peer) requireStarted(method string) {
	if p.started() || p.ended || p.transport != string(check.Stdio) {
		return
	}
	id := p.id()
	if e := p.c.ServerEras(check.Stdio); e.Legacy || !e.Modern {
		p.message(id, "initialize", initializeParams(v1125, nil))
	} else {
		p.message(id, mcp.MethodDiscover, modernParams(mcp.ModernVersion, nil))
	}
	answered := p.wait(responseTo(id), p.c.Options().Patience) != nil
	switch {
	case p.ended:
		return // it exited: its exit is the evidence
	case answered || p.started():
		p.c.Note("the server answered after it was silent to %s: it had started", method)
		return
	}
	p.c.NotStarted("the server did not start: it sent nothing over stdio within %s of its start (its start-up budget, %d times the slowest start the era probe saw and at least --probe-timeout, and the check's patience) "+
		"and answered nothing after, so %s could not be judged; on a busy machine raise --probe-timeout or lower --parallel",
		p.startup+p.c.Options().Patience, run.StartupFactor, method)
}

// within is d, or no time at all once the latest HTTP reply is complete: a
// JSON body or none, whatever its status, brings every message it will.
func (p *peer) within(d time.Duration) time.Duration {
	if h, ok := p.conn.(*httpConn); ok && h.settled() {
		return 0
	}
	return d
}

// silence says what was observed when a wait of d saw nothing: "none
// within 5s", and what else the connection tells (an exit and its status,
// the HTTP reply).
func (p *peer) silence(d time.Duration) string {
	why := p.conn.silence(p.ended)
	switch {
	case why != "":
		return "none: " + why
	case p.ended:
		return "none: the connection ended"
	}
	return fmt.Sprintf("none within %s", d)
}

// initResult is what initialize answered.
type initResult struct {
	ProtocolVersion string                     `json:"protocolVersion"`
	Capabilities    map[string]json.RawMessage `json:"capabilities"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

// String is the result as JSON, the way a message shows it.
func (r initResult) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// initialize runs the handshake proposing version with the client
// capabilities caps, and returns the result.
func (p *peer) initialize(version string, caps map[string]any) initResult {
	m := p.request("initialize", initializeParams(version, caps))
	p.c.Require(m.Error == nil, "initialize succeeds ("+p.transport+")", "%s", answered(m))
	var r initResult
	_ = json.Unmarshal(m.Result, &r)
	if h, ok := p.conn.(*httpConn); ok {
		h.version = r.ProtocolVersion
	}
	p.message(jsonrpc.ID{}, "notifications/initialized", nil)
	return r
}

// initializeDeclaring runs the handshake and ends the check UNIMPLEMENTED
// unless the server declares capability: a server is never failed for not
// offering an optional feature.
func (p *peer) initializeDeclaring(capability string) initResult {
	r := p.initialize(v1125, nil)
	if r.Capabilities[capability] == nil {
		p.c.Unimplemented("the server declares no " + capability + " capability")
	}
	return r
}

// quiet returns every message that arrives within d: one window, not
// restarted by what arrives, so a chatty server does not stretch it.
func (p *peer) quiet(d time.Duration) []*jsonrpc.Message {
	deadline := time.Now().Add(d)
	every := func(*jsonrpc.Message) bool { return true }
	var out []*jsonrpc.Message
	for left := d; left > 0; left = time.Until(deadline) {
		m := p.wait(every, left)
		if m == nil {
			break
		}
		out = append(out, m)
	}
	return out
}
