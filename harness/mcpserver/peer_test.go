package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// serverWait bounds every wait of the server tests; reaching it is a failure.
const serverWait = 10 * time.Second

// peer is an in-memory client of a Server: it calls Handle as a transport
// would and records everything the server sends, in order, on sent. Requests
// from the server are answered by reply (nil leaves them unanswered). The
// channels make it usable inside testing/synctest bubbles.
type peer struct {
	t    *testing.T
	srv  *Server
	ctx  context.Context
	sent chan *jsonrpc.Message

	mu      sync.Mutex
	nextID  int64
	reply   func(req *jsonrpc.Message) *jsonrpc.Message
	late    []string // messages a request's out got after its Handle returned
	session SessionInfo
}

// newPeer starts a reference server (or its mutant) with small bounds.
func newPeer(t *testing.T, m mutant.Name) *peer {
	t.Helper()
	return newPeerWith(t, Options{Mutant: m})
}

func newPeerWith(t *testing.T, opts Options) *peer {
	t.Helper()
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &peer{t: t, srv: srv, ctx: context.Background(), sent: make(chan *jsonrpc.Message, 4096), session: testSession{}}
}

// answering makes the peer answer the server's requests with f.
func (p *peer) answering(f func(req *jsonrpc.Message) *jsonrpc.Message) *peer {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reply = f
	return p
}

// outFor is the out function of one request: it records the message and
// answers server requests; after the request's Handle returned it records
// a violation instead (PR-08).
func (p *peer) outFor(returned *bool, mu *sync.Mutex) func(*jsonrpc.Message) error {
	return func(m *jsonrpc.Message) error {
		mu.Lock()
		over := *returned
		mu.Unlock()
		if over {
			p.mu.Lock()
			p.late = append(p.late, m.Method)
			p.mu.Unlock()
			return nil
		}
		p.sent <- m
		p.mu.Lock()
		reply := p.reply
		p.mu.Unlock()
		if m.Kind() == jsonrpc.KindRequest && reply != nil {
			if r := reply(m); r != nil {
				p.srv.Handle(p.ctx, p.session, r, nil)
			}
		}
		return nil
	}
}

// handle hands one message to the server; a response is recorded on sent
// after what the server sent about the request.
func (p *peer) handle(m *jsonrpc.Message) *jsonrpc.Message {
	var mu sync.Mutex
	returned := false
	resp := p.srv.Handle(p.ctx, p.session, m, p.outFor(&returned, &mu))
	mu.Lock()
	returned = true
	mu.Unlock()
	if resp != nil {
		p.sent <- resp
	}
	return resp
}

func (p *peer) id() jsonrpc.ID {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	return jsonrpc.IntID(p.nextID)
}

// msg builds a message; params is a JSON text or "".
func msg(id jsonrpc.ID, method, params string) *jsonrpc.Message {
	m := &jsonrpc.Message{ID: id, Method: method}
	if params != "" {
		m.Params = json.RawMessage(params)
	}
	return m
}

// call sends a request and returns its response, which must come.
func (p *peer) call(method, params string) *jsonrpc.Message {
	p.t.Helper()
	return p.callID(p.id(), method, params)
}

func (p *peer) callID(id jsonrpc.ID, method, params string) *jsonrpc.Message {
	p.t.Helper()
	resp := p.handle(msg(id, method, params))
	if resp == nil {
		p.t.Fatalf("%s (id %s) got no response", method, id)
	}
	if resp.ID != id {
		p.t.Fatalf("%s (id %s) answered with id %s", method, id, resp.ID)
	}
	return resp
}

// start sends a request in the background; its response (nil for none)
// arrives on the channel.
func (p *peer) start(id jsonrpc.ID, method, params string) <-chan *jsonrpc.Message {
	done := make(chan *jsonrpc.Message, 1)
	go func() { done <- p.handle(msg(id, method, params)) }()
	return done
}

// notify sends a notification and returns what Handle answered (nil).
func (p *peer) notify(method, params string) *jsonrpc.Message {
	return p.handle(msg(jsonrpc.ID{}, method, params))
}

// initialize runs the handshake declaring caps (a JSON object text).
func (p *peer) initialize(caps string) {
	p.t.Helper()
	wantServerResult(p.t, p.call("initialize", initParams("2025-11-25", caps)))
	p.notify("notifications/initialized", "")
	p.drain()
}

func initParams(version, caps string) string {
	return fmt.Sprintf(`{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"t","version":"1"}}`, version, caps)
}

// tool calls a tool with arguments (a JSON text or "") and returns its
// response.
func (p *peer) tool(name, args string) *jsonrpc.Message {
	p.t.Helper()
	params := fmt.Sprintf(`{"name":%q}`, name)
	if args != "" {
		params = fmt.Sprintf(`{"name":%q,"arguments":%s}`, name, args)
	}
	return p.call("tools/call", params)
}

// next returns the next message the server sent.
func (p *peer) next() *jsonrpc.Message {
	p.t.Helper()
	select {
	case m := <-p.sent:
		return m
	case <-time.After(serverWait):
		p.t.Fatalf("the server sent nothing within %v", serverWait)
		return nil
	}
}

// drain returns what the server sent so far.
func (p *peer) drain() []*jsonrpc.Message {
	var out []*jsonrpc.Message
	for {
		select {
		case m := <-p.sent:
			out = append(out, m)
		default:
			return out
		}
	}
}

// lateSends are the messages sent through a request's out after its Handle
// returned.
func (p *peer) lateSends() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.late...)
}

// methods lists the methods of messages ("response" for responses).
func methods(ms []*jsonrpc.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Method
		if m.Method == "" {
			out[i] = "response"
		}
	}
	return out
}

// ofMethod keeps the messages of one method.
func ofMethod(ms []*jsonrpc.Message, method string) []*jsonrpc.Message {
	var out []*jsonrpc.Message
	for _, m := range ms {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// toolResult decodes a tools/call result.
func toolResultOf(t *testing.T, resp *jsonrpc.Message) mcp.CallToolResult {
	t.Helper()
	wantServerResult(t, resp)
	var r mcp.CallToolResult
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		t.Fatalf("tools/call result %s: %v", resp.Result, err)
	}
	return r
}

// textOf is the text of a result's content blocks.
func textOf(r mcp.CallToolResult) string {
	var texts []string
	for _, c := range r.Content {
		var b struct{ Text string }
		_ = json.Unmarshal(c, &b)
		texts = append(texts, b.Text)
	}
	return strings.Join(texts, "|")
}

// wantIsError checks that a tools/call answered a result with isError.
func wantIsError(t *testing.T, resp *jsonrpc.Message, contains string) {
	t.Helper()
	r := toolResultOf(t, resp)
	if !r.IsError || !strings.Contains(textOf(r), contains) {
		t.Fatalf("result %s, want isError mentioning %q", resp.Result, contains)
	}
}

// paramsOf decodes a message's params.
func paramsOf(t *testing.T, m *jsonrpc.Message) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(m.Params, &v); err != nil {
		t.Fatalf("params of %s: %v", m.Method, err)
	}
	return v
}
