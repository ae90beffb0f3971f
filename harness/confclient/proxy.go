package confclient

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// maxBody bounds what the tee reads of one request body; the rest is
// forwarded but not parsed (a JSON-RPC request the client sends is far
// smaller).
const maxBody = 1 << 20

// Request is one JSON-RPC request the conformance client sent, as the tee
// saw it go by.
type Request struct {
	Method string
	ID     string // the raw JSON of its id
	Tool   string // tools/call: params.name
	At     time.Time
}

// tee is a TCP relay on 127.0.0.1 between the conformance client and the
// server under the check: it forwards every byte unchanged both ways and
// parses a copy of what the client sends, to learn which requests it made.
// The server's bytes are copied only, never parsed, so an SSE event of any
// size reaches the client as the server wrote it.
type tee struct {
	ln       net.Listener
	upstream string

	mu       sync.Mutex
	requests []Request
	parsers  sync.WaitGroup
	conns    map[net.Conn]bool
}

func startTee(upstream string) (*tee, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t := &tee{ln: ln, upstream: upstream, conns: map[net.Conn]bool{}}
	go t.serve()
	return t, nil
}

// Addr is the relay's host:port, for the client's URL.
func (t *tee) Addr() string { return t.ln.Addr().String() }

func (t *tee) serve() {
	for {
		c, err := t.ln.Accept()
		if err != nil {
			return
		}
		go t.relay(c)
	}
}

func (t *tee) track(cs ...net.Conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns == nil {
		return false
	}
	for _, c := range cs {
		t.conns[c] = true
	}
	return true
}

// relay forwards one connection: the client's bytes to the server and to
// the parser, the server's to the client. A half-close is passed on; an
// error on either side closes both.
func (t *tee) relay(client net.Conn) {
	server, err := net.Dial("tcp", t.upstream)
	if err != nil {
		client.Close()
		return
	}
	if !t.track(client, server) {
		client.Close()
		server.Close()
		return
	}
	pr, pw := io.Pipe()
	t.parsers.Add(1)
	go func() {
		defer t.parsers.Done()
		t.parse(pr)
		_, _ = io.Copy(io.Discard, pr)
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := io.Copy(client, server); err != nil {
			client.Close()
			server.Close()
			return
		}
		closeWrite(client)
	}()
	_, err = io.Copy(io.MultiWriter(server, pw), client)
	pw.Close()
	if err != nil {
		client.Close()
		server.Close()
	} else {
		closeWrite(server)
	}
	<-done
	client.Close()
	server.Close()
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

// parse reads the HTTP/1.1 requests of one connection and records the
// JSON-RPC requests of their bodies.
func (t *tee) parse(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, _ := io.ReadAll(io.LimitReader(req.Body, maxBody))
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
		if req.Method == http.MethodPost {
			t.record(body, time.Now())
		}
	}
}

// message is the part of a JSON-RPC message the tee reads.
type message struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

func (t *tee) record(body []byte, at time.Time) {
	var msgs []message
	var one message
	if json.Unmarshal(body, &msgs) != nil {
		if json.Unmarshal(body, &one) != nil {
			return
		}
		msgs = []message{one}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range msgs {
		if m.Method == "" || len(m.ID) == 0 {
			continue // a notification or a response
		}
		q := Request{Method: m.Method, ID: string(m.ID), At: at}
		if m.Method == "tools/call" {
			q.Tool = m.Params.Name
		}
		t.requests = append(t.requests, q)
	}
}

// Close stops the relay: it waits up to settle for the parsers to read
// what the client sent before it exited, then closes every connection.
func (t *tee) Close(settle time.Duration) []Request {
	t.ln.Close()
	waited := make(chan struct{})
	go func() { t.parsers.Wait(); close(waited) }()
	timer := time.NewTimer(settle)
	defer timer.Stop()
	select {
	case <-waited:
	case <-timer.C:
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.conns {
		c.Close()
	}
	t.conns = nil
	return append([]Request(nil), t.requests...)
}
