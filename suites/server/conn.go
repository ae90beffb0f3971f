package server

import (
	"bytes"
	"context"
	"io"
	nethttp "net/http"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/streamable"
	"github.com/mcpconform/mcpconform/harness/target"
)

// conn is one connection to the server under test: raw messages out, the
// server's messages in, whatever the transport.
type conn interface {
	// send delivers one raw message (a stdio line, an HTTP POST body).
	send(raw []byte) error
	// messages delivers what the server sends, in order.
	messages() <-chan *jsonrpc.Message
	close()
}

// stdioConn is a conn to a fresh server process.
type stdioConn struct{ s *target.StdioServer }

func (c stdioConn) send(raw []byte) error             { return c.s.Send(raw) }
func (c stdioConn) messages() <-chan *jsonrpc.Message { return c.s.Messages() }
func (c stdioConn) close()                            { c.s.Kill() }

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
	// lastStatus is the HTTP status of the latest POST: a refused body may
	// be answered with an HTTP error and no JSON-RPC body (HT-16).
	lastStatus int
}

func newHTTPConn(url string, timeout time.Duration) *httpConn {
	ctx, cancel := context.WithCancel(context.Background())
	return &httpConn{url: url, client: &nethttp.Client{Timeout: timeout}, ctx: ctx, cancel: cancel, in: make(chan *jsonrpc.Message, 1024)}
}

func (c *httpConn) messages() <-chan *jsonrpc.Message { return c.in }

func (c *httpConn) send(raw []byte) error {
	req, err := nethttp.NewRequestWithContext(c.ctx, nethttp.MethodPost, c.url, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	if c.modern {
		if m, err := jsonrpc.Decode(raw); err == nil {
			streamable.SetModernHeaders(req.Header, m)
		}
		for name, value := range c.override {
			req.Header.Del(name)
			if value != "" {
				req.Header.Set(name, value)
			}
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	c.lastStatus = resp.StatusCode
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && c.session == "" {
		c.session = id
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		go c.readEvents(resp.Body)
		return nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	for _, m := range jsonrpc.DecodeAny(bytes.TrimSpace(body)) {
		c.deliver(m)
	}
	return nil
}

func (c *httpConn) readEvents(body io.ReadCloser) {
	defer body.Close()
	r := streamable.NewSSEReader(body, 4<<20)
	for {
		ev, err := r.Next()
		if err != nil {
			return
		}
		if m, err := jsonrpc.Decode([]byte(ev.Data)); err == nil {
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
			req.Header.Set("Mcp-Session-Id", c.session)
			if resp, err := c.client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
	c.cancel()
}
