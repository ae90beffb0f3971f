package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	nethttp "net/http"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/sse"
	"github.com/mcpconform/mcpconform/harness/stdiotarget"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// conn is one connection to the server under test: raw messages out, the
// server's messages in, whatever the transport.
type conn interface {
	// send delivers one raw message (a stdio line, an HTTP POST body).
	send(raw []byte) error
	// messages delivers what the server sends, in order.
	messages() <-chan *jsonrpc.Message
	// silence says why an awaited message did not come, beyond the wait
	// itself: how the server process ended, what the latest POST got; ""
	// when there is nothing more to tell. ended says the messages channel
	// closed (so an exit is waited for briefly).
	silence(ended bool) string
	close()
}

// stdioConn is a conn to a fresh server process.
type stdioConn struct{ s *stdiotarget.Server }

func (c stdioConn) send(raw []byte) error             { return c.s.Send(raw) }
func (c stdioConn) messages() <-chan *jsonrpc.Message { return c.s.Messages() }
func (c stdioConn) close()                            { c.s.Kill() }

func (c stdioConn) silence(ended bool) string {
	wait := time.Duration(0)
	if ended {
		wait = exitGrace
	}
	if exit := c.s.ExitReport(wait); exit != "" {
		return exit
	}
	if ended {
		return "the server closed its stdout"
	}
	return ""
}

// exitGrace is how long a check waits for the exit of a server that closed
// its stdout, to report its status.
const exitGrace = 500 * time.Millisecond

// httpConn is a conn to a streamable HTTP endpoint: each message is a POST
// (carrying the session once the server issued one); replies, JSON or SSE,
// arrive on the messages channel.
type httpConn struct {
	url     string
	client  *nethttp.Client
	ctx     context.Context
	cancel  context.CancelFunc
	in      chan *jsonrpc.Message
	session string
	version string
	// modern marks a 2026-07-28 conversation: every POST names its method
	// (and the tool, prompt or resource) in headers (HT-77).
	modern bool
	// override replaces headers after the mirrored ones are set (a value
	// "" leaves the header out): how a check sends wrong ones.
	override map[string]string
	// lowerNames sends the MCP headers' names in lower case (HT-83).
	lowerNames bool
	// extra are further request headers, set as given (Last-Event-ID,
	// a foreign Mcp-Session-Id).
	extra map[string]string
	// lastStatus is the HTTP status of the latest POST: a refused body may
	// be answered with an HTTP error and no JSON-RPC body (HT-16);
	// lastHeader its response headers.
	lastStatus int
	lastHeader nethttp.Header
	// last describes the latest POST's reply, for silence, lastHead its
	// status and time only; lastSSE says it was a stream (whose messages
	// may still come).
	last, lastHead string
	lastSSE        bool
	// streamEnd is closed once the latest POST's SSE stream ended, every
	// message it carried delivered; nil before a stream.
	streamEnd chan struct{}
}

// newHTTPConn returns a conn to url whose exchanges log records (nil: none).
func newHTTPConn(url string, timeout time.Duration, log *transcript.Log) *httpConn {
	ctx, cancel := context.WithCancel(context.Background())
	client := &nethttp.Client{Timeout: timeout, Transport: run.RunTokenTransport(nil)}
	if log != nil {
		client.Transport = &transcript.HTTPRecorder{Next: client.Transport, Log: log}
	}
	return &httpConn{url: url, client: client, ctx: ctx, cancel: cancel, in: make(chan *jsonrpc.Message, 1024)}
}

func (c *httpConn) messages() <-chan *jsonrpc.Message { return c.in }

// lasting lets each later exchange take up to d (its client's timeout,
// otherwise the one newHTTPConn gave), reading its SSE stream included:
// for an answer that comes only after a timeout of the server's own.
func (c *httpConn) lasting(d time.Duration) { c.client.Timeout = d }

func (c *httpConn) silence(bool) string {
	if c.last == "" || c.lastSSE {
		return ""
	}
	return "the POST was answered " + c.last
}

// settled reports whether the latest POST's reply is complete: a JSON body
// (or none), not a stream, so no further message can answer it.
func (c *httpConn) settled() bool { return c.last != "" && !c.lastSSE }

func (c *httpConn) send(raw []byte) error {
	req, err := nethttp.NewRequestWithContext(c.ctx, nethttp.MethodPost, c.url, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", mcp.ContentTypeJSON)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set(mcp.HeaderSessionID, c.session)
	}
	if c.version != "" {
		req.Header.Set(mcp.HeaderProtocolVersion, c.version)
	}
	if c.modern {
		if m, err := jsonrpc.Decode(raw); err == nil {
			mcp.SetModernHeaders(req.Header, m)
		}
		for name, value := range c.override {
			req.Header.Del(name)
			if value != "" {
				req.Header.Set(name, value)
			}
		}
	}
	for name, value := range c.extra {
		req.Header.Set(name, value)
	}
	if c.lowerNames {
		for name, values := range req.Header {
			if strings.HasPrefix(strings.ToLower(name), "mcp-") {
				delete(req.Header, name)
				req.Header[strings.ToLower(name)] = values
			}
		}
	}
	start := time.Now()
	c.last, c.lastHead, c.lastSSE = "", "", false
	resp, err := c.client.Do(req)
	if err != nil {
		return transcript.RedactError(err)
	}
	c.lastStatus, c.lastHeader = resp.StatusCode, resp.Header
	c.lastHead = fmt.Sprintf("%d in %s", resp.StatusCode, time.Since(start).Round(time.Millisecond))
	if id := resp.Header.Get(mcp.HeaderSessionID); id != "" && c.session == "" {
		c.session = id
	}
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, mcp.ContentTypeSSE) {
		c.last, c.lastSSE = c.lastHead+" with an SSE stream", true
		c.streamEnd = make(chan struct{})
		go c.readEvents(resp.Body, c.streamEnd)
		return nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	c.last = c.lastHead + bodyExcerpt(ct, body)
	for _, m := range jsonrpc.DecodeAny(bytes.TrimSpace(body)) {
		c.deliver(m)
	}
	return nil
}

// bodyExcerpt renders a reply body for a message: its Content-Type and,
// for JSON, its start; other text only by its length (it may be anything).
func bodyExcerpt(contentType string, body []byte) string {
	body = bytes.TrimSpace(body)
	switch {
	case len(body) == 0:
		return ", empty body"
	case body[0] == '{' || body[0] == '[':
		return fmt.Sprintf(", Content-Type %q, body %s", contentType, clip(string(body)))
	}
	return fmt.Sprintf(", Content-Type %q, a body of %d bytes that is not JSON", contentType, len(body))
}

func (c *httpConn) readEvents(body io.ReadCloser, end chan struct{}) {
	defer close(end)
	defer body.Close()
	r := sse.NewReader(body, 4<<20)
	for {
		ev, err := r.NextBytes()
		if err != nil {
			return
		}
		if m, err := jsonrpc.Decode(ev.Data); err == nil {
			c.deliver(m)
		}
	}
}

func (c *httpConn) deliver(m *jsonrpc.Message) {
	select {
	case c.in <- m:
	case <-c.ctx.Done():
	}
}

func (c *httpConn) close() {
	if c.session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if req, err := nethttp.NewRequestWithContext(ctx, nethttp.MethodDelete, c.url, nil); err == nil {
			req.Header.Set(mcp.HeaderSessionID, c.session)
			if resp, err := c.client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
	c.cancel()
}
