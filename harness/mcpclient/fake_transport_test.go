package mcpclient

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// fakeTransport is an in-memory Transport with a cancel policy and a launch
// time. The test plays the server: it reads what the session sent from sent
// and writes messages with deliver. Everything is channels, so it runs
// inside testing/synctest bubbles.
type fakeTransport struct {
	sent    chan *jsonrpc.Message
	in      chan *jsonrpc.Message
	done    chan struct{}
	started time.Time

	mu     sync.Mutex
	err    error
	log    []string // "send METHOD", "send response ID", "policy", "close"
	closed int
}

func newFakeTransport() *fakeTransport {
	return &fakeTransport{
		sent:    make(chan *jsonrpc.Message, 4096),
		in:      make(chan *jsonrpc.Message),
		done:    make(chan struct{}),
		started: time.Now(),
	}
}

func (f *fakeTransport) Send(m *jsonrpc.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return failure.New(failure.ErrShutdown, "send", "the fake transport has ended")
	}
	if m.Method != "" {
		f.log = append(f.log, "send "+m.Method)
	} else {
		f.log = append(f.log, "send response "+m.ID.String())
	}
	f.sent <- m
	return nil
}

func (f *fakeTransport) Incoming() <-chan *jsonrpc.Message { return f.in }
func (f *fakeTransport) Done() <-chan struct{}             { return f.done }
func (f *fakeTransport) StartedAt() time.Time              { return f.started }

func (f *fakeTransport) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// end ends the transport with err, as a protocol failure or an exit would.
func (f *fakeTransport) end(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
		close(f.done)
	}
}

func (f *fakeTransport) Close() error {
	f.end(failure.New(failure.ErrShutdown, "close", "closed by its owner"))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed++
	f.log = append(f.log, "close")
	return nil
}

func (f *fakeTransport) RequestCancelled() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, "policy")
}

// events returns the log so far.
func (f *fakeTransport) events() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

// bareTransport hides the fake's optional methods (CancelPolicy, StartedAt).
type bareTransport struct{ Transport }

// expect returns the next message the session sent, which must be method
// (or a response when method is "").
func (f *fakeTransport) expect(t *testing.T, method string) *jsonrpc.Message {
	t.Helper()
	select {
	case m := <-f.sent:
		if m.Method != method {
			t.Fatalf("the session sent %s %q, want %q", m.Kind(), m.Method, method)
		}
		return m
	case <-time.After(time.Hour):
		t.Fatalf("the session sent nothing, want %q", method)
	}
	return nil
}

// nothingSent fails if the session sent anything not yet read.
func (f *fakeTransport) nothingSent(t *testing.T) {
	t.Helper()
	select {
	case m := <-f.sent:
		t.Fatalf("the session sent %s %q %s", m.Kind(), m.Method, m.Params)
	default:
	}
}

// deliver hands m to the session as if the server wrote it.
func (f *fakeTransport) deliver(t *testing.T, m *jsonrpc.Message) {
	t.Helper()
	select {
	case f.in <- m:
	case <-time.After(time.Hour):
		t.Fatal("the session does not read")
	}
}

// reply answers request req with result.
func (f *fakeTransport) reply(t *testing.T, req *jsonrpc.Message, result any) {
	t.Helper()
	r, err := jsonrpc.NewResult(req.ID, result)
	if err != nil {
		t.Fatal(err)
	}
	f.deliver(t, r)
}

// initResult is a server's initialize result choosing version.
func initResult(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{}},
		"serverInfo":      map[string]any{"name": "fake", "version": "1"},
	}
}

// connect runs Connect while the fake answers initialize with version; the
// options name the era (EraLegacy for a test of the handshake, EraAuto for
// one of the probe's fallback).
func connect(t *testing.T, f *fakeTransport, opts Options, version string) *Session {
	t.Helper()
	type result struct {
		s   *Session
		err error
	}
	res := make(chan result, 1)
	go func() {
		s, err := Connect(context.Background(), f, opts)
		res <- result{s, err}
	}()
	f.reply(t, f.expect(t, "initialize"), initResult(version))
	r := <-res
	if r.err != nil {
		t.Fatalf("Connect: %v", r.err)
	}
	f.expect(t, "notifications/initialized")
	t.Cleanup(func() { _ = r.s.Close() })
	return r.s
}

// params decodes a message's params.
func params(t *testing.T, m *jsonrpc.Message) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("params %s: %v", m.Params, err)
	}
	return p
}
