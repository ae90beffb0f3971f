package httpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// clientWait bounds every wait for something that must happen; clientQuiet is how
// long a test watches for something that must not happen.
const (
	clientWait  = 10 * time.Second
	clientQuiet = 200 * time.Millisecond
)

// seen is one HTTP request as the rig server saw it.
type seen struct {
	Method  string // HTTP method
	Path    string
	Header  http.Header
	Body    []byte
	Msgs    []*jsonrpc.Message // the decoded body of a POST
	At      time.Time
	ctx     context.Context // ends when the client gives the request up
	handled chan struct{}   // closed when the rig has answered it
}

// msg is the request's first JSON-RPC message (an empty one for GET and
// DELETE).
func (q *seen) msg() *jsonrpc.Message {
	if len(q.Msgs) == 0 {
		return &jsonrpc.Message{}
	}
	return q.Msgs[0]
}

// rpc names the request: the JSON-RPC method, "response" for a reply, or
// the HTTP method for GET and DELETE.
func (q *seen) rpc() string {
	switch m := q.msg(); {
	case q.Method != http.MethodPost:
		return q.Method
	case m.Method != "":
		return m.Method
	default:
		return "response"
	}
}

// session is the Mcp-Session-Id the request carried.
func (q *seen) session() string { return q.Header.Get(headerSession) }

// rig is a tiny MCP server on 127.0.0.1 for the client's tests. By default
// it is well behaved: initialize opens a session s1, s2, … (echoing the
// proposed protocol version), a request with an unknown session id gets
// 404, tools/list, tools/call and ping are answered with JSON, other
// requests get method-not-found, notifications and replies get 202, GET
// gets 405 and DELETE ends the session. hook sees every request first and
// may answer it instead (returning true).
type rig struct {
	*httptest.Server
	hook func(w http.ResponseWriter, q *seen) bool

	mu       sync.Mutex
	sessions map[string]bool
	issued   int
	log      []*seen
	arrived  chan *seen // every request, as it arrives
}

// newRig starts a rig with hook (nil for none).
func newRig(t *testing.T, hook func(w http.ResponseWriter, q *seen) bool) *rig {
	t.Helper()
	s := &rig{hook: hook, sessions: map[string]bool{}, arrived: make(chan *seen, 4096)}
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

func (s *rig) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	q := &seen{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, At: time.Now(), ctx: r.Context(), handled: make(chan struct{})}
	defer close(q.handled)
	if r.Method == http.MethodPost {
		q.Msgs, _ = decodeMessages(body)
	}
	s.mu.Lock()
	s.log = append(s.log, q)
	s.mu.Unlock()
	s.arrived <- q
	if s.hook != nil && s.hook(w, q) {
		return
	}
	s.serve(w, q)
}

// serve is the well-behaved default.
func (s *rig) serve(w http.ResponseWriter, q *seen) {
	switch q.Method {
	case http.MethodGet:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	case http.MethodDelete:
		s.expire(q.session())
		return
	}
	m := q.msg()
	if m.Method == "initialize" {
		w.Header().Set(headerSession, s.open())
		rigJSON(w, initResultFor(m))
		return
	}
	if !s.live(q.session()) {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	if m.Kind() != jsonrpc.KindRequest {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	rigJSON(w, rigAnswer(m))
}

// open issues a new session id.
func (s *rig) open() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issued++
	id := fmt.Sprintf("s%d", s.issued)
	s.sessions[id] = true
	return id
}

// expire ends session id; later requests bearing it get 404.
func (s *rig) expire(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, id)
}

func (s *rig) live(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// requests returns what the rig saw so far, optionally only of rpc name.
func (s *rig) requests(name string) []*seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*seen
	for _, q := range s.log {
		if name == "" || q.rpc() == name {
			out = append(out, q)
		}
	}
	return out
}

// want returns the next request to arrive, which must be rpc name (any
// request when name is "").
func (s *rig) want(t *testing.T, name string) *seen {
	t.Helper()
	select {
	case q := <-s.arrived:
		if name != "" && q.rpc() != name {
			t.Fatalf("the client sent %s %s, want %s", q.Method, q.rpc(), name)
		}
		return q
	case <-time.After(clientWait):
		t.Fatalf("nothing arrived within %v, want %s", clientWait, name)
	}
	return nil
}

// waitFor waits until the rig has seen n requests of rpc name.
func (s *rig) waitFor(t *testing.T, name string, n int) {
	t.Helper()
	deadline := time.After(clientWait)
	for len(s.requests(name)) < n {
		select {
		case <-s.arrived:
		case <-deadline:
			t.Fatalf("%d %s request(s) within %v, want %d", len(s.requests(name)), name, clientWait, n)
		}
	}
}

// wantNothingWithin fails if a request arrives within d.
func (s *rig) wantNothingWithin(t *testing.T, d time.Duration, why string) {
	t.Helper()
	select {
	case q := <-s.arrived:
		t.Fatalf("%s %s arrived; want none within %v (%s)", q.Method, q.rpc(), d, why)
	case <-time.After(d):
	}
}

// rigJSON answers with one JSON-RPC message.
func rigJSON(w http.ResponseWriter, m *jsonrpc.Message) {
	b, _ := jsonrpc.Encode(m)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// rigStream writes server-sent events and flushes each.
type rigStream struct {
	w http.ResponseWriter
}

// rigSSE answers with an SSE stream.
func rigSSE(w http.ResponseWriter) *rigStream {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	return &rigStream{w: w}
}

// raw writes bytes as they are and flushes them.
func (s *rigStream) raw(text string) {
	_, _ = io.WriteString(s.w, text)
	s.w.(http.Flusher).Flush()
}

// event writes one event carrying message m (nil for none) with id (""
// for none) and retry (0 for none).
func (s *rigStream) event(id string, retry time.Duration, m *jsonrpc.Message) {
	var b strings.Builder
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	if retry > 0 {
		fmt.Fprintf(&b, "retry: %d\n", retry.Milliseconds())
	}
	data := []byte{}
	if m != nil {
		data, _ = jsonrpc.Encode(m)
	}
	b.WriteString("data: " + string(data) + "\n\n")
	s.raw(b.String())
}

// initResultFor answers initialize with the version it proposed.
func initResultFor(req *jsonrpc.Message) *jsonrpc.Message {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(req.Params, &p)
	r, _ := jsonrpc.NewResult(req.ID, map[string]any{
		"protocolVersion": p.ProtocolVersion,
		"capabilities":    map[string]any{"tools": map[string]any{}},
		"serverInfo":      map[string]any{"name": "rig", "version": "1"},
	})
	return r
}

// answer is the rig's reply to a request.
func rigAnswer(m *jsonrpc.Message) *jsonrpc.Message {
	var res any
	switch m.Method {
	case "ping":
		res = map[string]any{}
	case "tools/list":
		res = map[string]any{"tools": []map[string]any{{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}
	case "tools/call":
		res = map[string]any{"content": []map[string]any{{"type": "text", "text": "called " + m.ID.String()}}}
	default:
		return jsonrpc.NewError(m.ID, jsonrpc.CodeMethodNotFound, "Method not found")
	}
	r, _ := jsonrpc.NewResult(m.ID, res)
	return r
}

// testConfig is the default config for u with the tests' small timeouts,
// and no GET stream unless a test asks for one.
func clientTestConfig(u string) Config {
	cfg := DefaultConfig(u)
	cfg.OpenGETStream = false
	cfg.ControlRequestTimeout = clientQuiet
	cfg.SessionRecoveryTimeout = clientQuiet
	cfg.Retry.Delay = 20 * time.Millisecond
	return cfg
}

// dial dials the rig with the tests' config changed by edit (nil for none),
// closing the client when the test ends.
func dialRig(t *testing.T, s *rig, edit func(*Config)) *Client {
	t.Helper()
	cfg := clientTestConfig(s.URL)
	if edit != nil {
		edit(&cfg)
	}
	c, err := Dial(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// withMutant is an edit that selects mutant m.
func withMutant(m mutant.Name) func(*Config) {
	return func(c *Config) { c.Mutant = m }
}

// request builds request id of method with params.
func rpcRequest(t *testing.T, id int64, method string, params any) *jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.NewRequest(jsonrpc.IntID(id), method, params)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// initRequest is the initialize request the tests send, with id 1.
func initRequest(t *testing.T) *jsonrpc.Message {
	return rpcRequest(t, 1, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "test", "version": "1"},
	})
}

// send sends m through the client.
func clientSend(t *testing.T, c *Client, m *jsonrpc.Message) {
	t.Helper()
	if err := c.Send(m); err != nil {
		t.Fatalf("Send %s: %v", m.Method, err)
	}
}

// handshake runs initialize and notifications/initialized over the bare
// transport, drains what the rig saw of it, and returns once the rig has
// answered both.
func handshake(t *testing.T, c *Client, s *rig) {
	t.Helper()
	clientSend(t, c, initRequest(t))
	s.want(t, "initialize")
	wantResponse(t, c, jsonrpc.IntID(1))
	note, _ := jsonrpc.NewNotification("notifications/initialized", nil)
	clientSend(t, c, note)
	select {
	case <-s.want(t, "notifications/initialized").handled:
	case <-time.After(clientWait):
		t.Fatal("the rig did not answer notifications/initialized")
	}
}

// callOutcome is what became of one request: its response or its failure.
type callOutcome struct {
	resp *jsonrpc.Message
	err  error
}

// nextOutcome returns the next response or request failure, skipping other
// messages.
func nextOutcome(t *testing.T, c *Client) (jsonrpc.ID, callOutcome) {
	t.Helper()
	deadline := time.After(clientWait)
	for {
		select {
		case m := <-c.Incoming():
			if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
				return m.ID, callOutcome{resp: m}
			}
		case f := <-c.Failures():
			return f.ID, callOutcome{err: f.Err}
		case <-deadline:
			t.Fatalf("no response or failure within %v", clientWait)
		}
	}
}

// outcomes collects the outcomes of n requests, by id key.
func outcomes(t *testing.T, c *Client, n int) map[string]callOutcome {
	t.Helper()
	out := map[string]callOutcome{}
	for range n {
		id, o := nextOutcome(t, c)
		if _, dup := out[id.Key()]; dup {
			t.Fatalf("two outcomes for request %s", id)
		}
		out[id.Key()] = o
	}
	return out
}

// wantResponse waits for the response to id, which must not fail.
func wantResponse(t *testing.T, c *Client, id jsonrpc.ID) *jsonrpc.Message {
	t.Helper()
	got, o := nextOutcome(t, c)
	if got != id || o.err != nil {
		t.Fatalf("request %s: %+v; want the response to %s", got, o, id)
	}
	return o.resp
}

// wantFailure waits for request id to fail with kind and cause (nil for
// any cause).
func wantFailure(t *testing.T, c *Client, id jsonrpc.ID, kind, cause error) error {
	t.Helper()
	got, o := nextOutcome(t, c)
	if got != id || o.err == nil {
		t.Fatalf("request %s: response %v; want a failure of %s", got, o.resp, id)
	}
	if !errors.Is(o.err, kind) || (cause != nil && !errors.Is(o.err, cause)) {
		t.Fatalf("request %s failed with %v; want %s (%v)", id, o.err, failure.KindOf(kind), cause)
	}
	return o.err
}

// holdUntil blocks a handler until release closes or the client gives the
// request up.
func holdUntil(q *seen, release <-chan struct{}) {
	select {
	case <-release:
	case <-q.ctx.Done():
	}
}

// the mcpclient.FailureSource the session relies on.
var _ mcpclient.FailureSource = (*Client)(nil)
