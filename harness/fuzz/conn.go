package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	nethttp "net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/sse"
	"github.com/mcpconform/mcpconform/harness/stdiotarget"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// Target opens fresh connections to the server under test: over stdio a
// new process each time, over HTTP a new session on the same endpoint.
type Target struct {
	// Command is the stdio server's argv; URL the streamable HTTP
	// endpoint. Exactly one is set.
	Command []string
	URL     string
}

// Transport is "stdio" or "http".
func (t Target) Transport() string {
	if t.URL != "" {
		return "http"
	}
	return "stdio"
}

// conn is one connection: frames out, the server's messages in.
type conn interface {
	// send delivers one frame; refused says the transport answered it
	// itself (an HTTP error status with no JSON-RPC body). An error means
	// the server is gone (stdio) or unreachable (HTTP).
	send(f Frame) (refused bool, err error)
	messages() <-chan *jsonrpc.Message
	// broken says why the server cannot be talked to any more ("" while it
	// can): it exited, or wrote something that is not JSON-RPC to stdout.
	exited() string
	// stdoutNoise describes the first line on stdout that is no message
	// and that excuse does not excuse: excuse is asked about each response
	// invalid for its id alone (a forbidden id echoed), with that id.
	stdoutNoise(excuse func(id string) bool) string
	// rss is the process group's resident bytes; ok false when unknown.
	rss(force bool) (int64, bool)
	// paused is how long the connection has waited, in all, because the
	// server asked it to (an SSE retry delay before resuming a stream):
	// time that does not count against the server's answer.
	paused() time.Duration
	// close ends the connection, each wait of a teardown at most grace,
	// and says what of the server outlived it ("" for nothing; HTTP
	// cannot see the server's processes).
	close(grace time.Duration) (left string)
}

// open connects; log, when set, records the wire.
func (t Target) open(log *transcript.Log) (conn, error) {
	if t.URL != "" {
		return newHTTPConn(t.URL, log), nil
	}
	s, err := stdiotarget.Start(t.Command, stdiotarget.Options{Log: log})
	if err != nil {
		return nil, err
	}
	return &stdioConn{s: s, mem: &groupRSS{pgid: s.Pid()}}, nil
}

type stdioConn struct {
	s   *stdiotarget.Server
	mem *groupRSS
}

func (c *stdioConn) send(f Frame) (bool, error)        { return false, c.s.Send(f.Body) }
func (c *stdioConn) messages() <-chan *jsonrpc.Message { return c.s.Messages() }
func (c *stdioConn) rss(force bool) (int64, bool)      { return c.mem.bytes(force) }
func (c *stdioConn) paused() time.Duration             { return 0 }

// close ends the server as a client does (stdin, SIGTERM, SIGKILL to its
// group) and reports the processes of its tree still alive after that,
// which it then kills.
func (c *stdioConn) close(grace time.Duration) string {
	left := c.s.Stop(grace)
	c.s.Kill()
	c.mem.close()
	if len(left) == 0 {
		return ""
	}
	names := make([]string, len(left))
	for i, p := range left {
		names[i] = p.String()
	}
	return fmt.Sprintf("%d process(es) of the server's tree outlived its teardown (stdin closed, SIGTERM and SIGKILL to its process group, %s each): %s; the fuzzer killed them",
		len(left), grace, strings.Join(names, ", "))
}
func (c *stdioConn) exited() string {
	if !c.s.Exited() {
		return ""
	}
	if r := c.s.ExitReport(0); r != "" {
		return r
	}
	return "the server exited"
}

func (c *stdioConn) stdoutNoise(excuse func(id string) bool) string {
	ids := c.s.NonMessageIDs()
	for i, n := range c.s.NonMessages() {
		if i < len(ids) && ids[i] != "" && excuse(ids[i]) {
			continue
		}
		return "the server wrote " + n + " to stdout"
	}
	return ""
}

// httpConn is a session on a streamable HTTP endpoint: each frame is a
// request (POST unless the frame says otherwise) carrying the session the
// server issued and the negotiated version; replies, JSON or SSE, arrive
// on the messages channel.
type httpConn struct {
	url    string
	client *nethttp.Client
	ctx    context.Context
	cancel context.CancelFunc
	in     chan *jsonrpc.Message
	wg     sync.WaitGroup

	waited atomic.Int64 // nanoseconds spent in the server's retry delays

	mu      sync.Mutex
	session string
	version string
	down    string // why the endpoint stopped answering
}

// httpTimeout bounds one HTTP exchange's headers.
const httpTimeout = 10 * time.Second

func newHTTPConn(url string, log *transcript.Log) *httpConn {
	ctx, cancel := context.WithCancel(context.Background())
	var tr nethttp.RoundTripper = &nethttp.Transport{ResponseHeaderTimeout: httpTimeout, MaxIdleConnsPerHost: 4}
	if log != nil {
		tr = &transcript.HTTPRecorder{Next: tr, Log: log}
	}
	return &httpConn{url: url, client: &nethttp.Client{Transport: tr}, ctx: ctx, cancel: cancel, in: make(chan *jsonrpc.Message, 1024)}
}

// foreignSession is what the "foreign" session header value becomes.
const foreignSession = "mcpconform-fuzz-foreign-session"

func (c *httpConn) send(f Frame) (refused bool, err error) {
	method := f.Method
	if method == "" {
		method = nethttp.MethodPost
	}
	var body io.Reader
	if method == nethttp.MethodPost {
		body = bytes.NewReader(f.Body)
	}
	req, err := nethttp.NewRequestWithContext(c.ctx, method, c.url, body)
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	session, version := c.session, c.version
	c.mu.Unlock()
	if method == nethttp.MethodPost {
		req.Header.Set("Content-Type", mcp.ContentTypeJSON)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(mcp.HeaderSessionID, session)
	}
	if version != "" {
		req.Header.Set(mcp.HeaderProtocolVersion, version)
	}
	for name, value := range f.Header {
		req.Header.Del(name)
		if strings.EqualFold(name, mcp.HeaderSessionID) && value == "foreign" {
			value = foreignSession
		}
		if value != "" {
			req.Header.Set(name, value)
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		err = transcript.RedactError(err)
		if c.ctx.Err() == nil {
			c.mu.Lock()
			c.down = fmt.Sprintf("the endpoint stopped answering: %v", err)
			c.mu.Unlock()
		}
		return false, err
	}
	if id := resp.Header.Get(mcp.HeaderSessionID); id != "" && session == "" && f.Header == nil {
		c.mu.Lock()
		c.session = id
		c.mu.Unlock()
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), mcp.ContentTypeSSE) {
		c.wg.Add(1)
		go c.readEvents(resp.Body)
		return false, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	// An HTTP error whose body answers no id (none, or an error with a null
	// id) refuses the whole frame (HT-16).
	refused = resp.StatusCode >= 400
	for _, m := range jsonrpc.DecodeAny(bytes.TrimSpace(b)) {
		refused = refused && m.ID.IsZero()
		c.deliver(m)
	}
	return refused, nil
}

// readEvents reads one SSE stream. When it ends after an event that had
// an id and before the stream's response came, it resumes it: a GET with
// Last-Event-ID, after the retry delay the server asked for (HT-60s;
// bounded), at most maxResumes times.
func (c *httpConn) readEvents(body io.ReadCloser) {
	defer c.wg.Done()
	var lastID []byte // the last event id, in a buffer of its own: no allocation per event
	retry := time.Duration(0)
	for resumes := 0; ; resumes++ {
		answered := false
		r := sse.NewReader(body, 4<<20)
		for {
			ev, err := r.NextBytes()
			if err != nil {
				break
			}
			if len(ev.ID) > 0 {
				lastID = append(lastID[:0], ev.ID...)
			}
			if ev.HasRetry {
				retry = min(ev.Retry, time.Second)
			}
			if m, err := jsonrpc.Decode(ev.Data); err == nil {
				answered = answered || m.Kind() == jsonrpc.KindResult || m.Kind() == jsonrpc.KindError
				c.deliver(m)
			}
		}
		body.Close()
		if answered || len(lastID) == 0 || resumes >= maxResumes || c.ctx.Err() != nil {
			return
		}
		c.waited.Add(int64(retry))
		select {
		case <-time.After(retry):
		case <-c.ctx.Done():
			return
		}
		if body = c.resume(string(lastID)); body == nil {
			return
		}
	}
}

// maxResumes bounds the resumptions of one stream.
const maxResumes = 3

// resume opens the GET stream that continues after lastID; nil when the
// server offers none.
func (c *httpConn) resume(lastID string) io.ReadCloser {
	req, err := nethttp.NewRequestWithContext(c.ctx, nethttp.MethodGet, c.url, nil)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	session, version := c.session, c.version
	c.mu.Unlock()
	req.Header.Set("Accept", mcp.ContentTypeSSE)
	req.Header.Set(mcp.HeaderLastEventID, lastID)
	if session != "" {
		req.Header.Set(mcp.HeaderSessionID, session)
	}
	if version != "" {
		req.Header.Set(mcp.HeaderProtocolVersion, version)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil
	}
	if resp.StatusCode != nethttp.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), mcp.ContentTypeSSE) {
		resp.Body.Close()
		return nil
	}
	return resp.Body
}

func (c *httpConn) deliver(m *jsonrpc.Message) {
	// The negotiated version rides on every later request (HT-40).
	if m.Kind() == jsonrpc.KindResult {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(m.Result, &r) == nil && r.ProtocolVersion != "" {
			c.mu.Lock()
			if c.version == "" {
				c.version = r.ProtocolVersion
			}
			c.mu.Unlock()
		}
	}
	select {
	case c.in <- m:
	case <-c.ctx.Done():
	}
}

func (c *httpConn) messages() <-chan *jsonrpc.Message    { return c.in }
func (c *httpConn) rss(bool) (int64, bool)               { return 0, false }
func (c *httpConn) paused() time.Duration                { return time.Duration(c.waited.Load()) }
func (c *httpConn) stdoutNoise(func(string) bool) string { return "" }

func (c *httpConn) exited() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.down
}

// close ends the session (DELETE, bounded) and every stream.
func (c *httpConn) close(time.Duration) string {
	c.mu.Lock()
	session := c.session
	c.mu.Unlock()
	if session != "" && c.down == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if req, err := nethttp.NewRequestWithContext(ctx, nethttp.MethodDelete, c.url, nil); err == nil {
			req.Header.Set(mcp.HeaderSessionID, session)
			if resp, err := c.client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
	c.cancel()
	c.wg.Wait()
	c.client.CloseIdleConnections()
	return ""
}
