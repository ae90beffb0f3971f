package httpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// result is how one POST exchange ended.
type result int

const (
	failed  result = iota // reported, or nothing to report
	sent                  // the server accepted it and its response was read
	expired               // 404 to a request that carried a session id (RM-04)
)

// runOrdinary runs ordinary POST o holding a slot (RM-01), and after a
// session expiry its one retry on the new session (RM-05).
func (c *Client) runOrdinary(o *outbound, release func()) {
	for {
		x := c.begin(o, c.ctx)
		res := c.exchange(x, release)
		release()
		c.finish(x)
		switch {
		case res == sent && o.is("notifications/initialized"):
			c.openGETStream(x.sess)
			return
		case o.is("notifications/initialized") && res == failed:
			// No GET stream will open: the session need not wait for one.
			c.markStreamReady()
			return
		case res != expired || !c.afterExpiry(x):
			return
		}
		var ok bool
		if release, ok = c.slots.acquire(c.done); !ok {
			return
		}
	}
}

// runControl runs control POST o, bounded by ControlRequestTimeout from its
// start (RM-03). A control POST is never retried (RM-06).
func (c *Client) runControl(o *outbound) {
	ctx, cancel := c.controlContext()
	defer cancel()
	x := c.begin(o, ctx)
	res := c.exchange(x, func() {})
	c.finish(x)
	if res == expired && c.cfg.Mutant == mutant.RetryControl {
		c.spawn(func() {
			if c.afterExpiry(x) {
				c.runControl(o)
			}
		})
	}
}

// controlContext bounds a control POST from its start (RM-03).
func (c *Client) controlContext() (context.Context, context.CancelFunc) {
	if c.cfg.Mutant == mutant.NoControlTimeout {
		return context.WithCancel(c.ctx)
	}
	return context.WithTimeout(c.ctx, c.cfg.ControlRequestTimeout)
}

// exchange POSTs x's body and reads the response. release gives up the
// POST's slot; it is called as soon as the response turns into an SSE
// stream (RM-01).
func (c *Client) exchange(x *exchange, release func()) result {
	op := x.out.op()
	req, err := c.newRequest(x.ctx, http.MethodPost, x.out.body, x.sess)
	if err != nil {
		c.failLive(x, failure.Wrap(failure.ErrConnection, op, err))
		return failed
	}
	modern := c.setModernHeaders(req.Header, x.out)
	x.modern = modern
	resp, err := c.hc.Do(req)
	if err != nil {
		c.failLive(x, doFailure(x.ctx, op, err))
		return failed
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound && resp.Request.Header.Get(headerSession) != "":
		if x.live() {
			return expired
		}
		return failed
	case (resp.StatusCode < 200 || resp.StatusCode > 299) && modern:
		c.readErrorBody(x, resp)
		return failed
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		c.failLive(x, statusFailure(op, resp))
		return failed
	}
	if !c.readResponse(x, resp, release) {
		return failed
	}
	return sent
}

// doFailure is the failure of a request that got no response.
func doFailure(ctx context.Context, op string, err error) *failure.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return causedBy(failure.ErrTimeout, op, "no response within the control request timeout (RM-03)", err)
	}
	return failure.Wrap(failure.ErrConnection, op, err)
}

// readResponse reads a 2xx response: one JSON body or an SSE stream
// (HT-17); a notification or reply is answered with 202 and no body (HT-15).
func (c *Client) readResponse(x *exchange, resp *http.Response, release func()) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case mcp.ContentTypeSSE:
		if c.cfg.Mutant != mutant.SSEHoldsSlot {
			release()
		}
		return c.readPOSTStream(x, resp)
	case mcp.ContentTypeJSON:
		return c.readJSON(x, resp)
	}
	if len(x.awaiting) > 0 {
		c.failLive(x, failure.New(failure.ErrProtocol, x.out.op(), fmt.Sprintf(
			"the server answered a request with HTTP %s and Content-Type %q; a request is answered with application/json or text/event-stream (HT-17)",
			resp.Status, resp.Header.Get("Content-Type"))))
		return false
	}
	return true
}

// readJSON reads a JSON response body and delivers its message (or the
// messages of a batch); the body must answer the POST's requests.
func (c *Client) readJSON(x *exchange, resp *http.Response) bool {
	op := x.out.op()
	err := c.takeJSON(resp, func(m *jsonrpc.Message) bool { return !c.accept(x, resp.Header, m) })
	switch {
	case x.gaveUp:
		return false
	case errors.Is(err, errReadBody):
		c.failLive(x, failure.Wrap(failure.ErrConnection, op, err))
		return false
	case err != nil:
		c.failLive(x, failure.Wrap(failure.ErrProtocol, op, err))
		return false
	case len(x.awaiting) > 0:
		c.failLive(x, failure.New(failure.ErrProtocol, op, "the JSON response carries no response to the request (HT-17)"))
		return false
	}
	return true
}

// errReadBody marks a response body that could not be read.
var errReadBody = errors.New("read the response body")

// takeJSON reads a JSON response body of at most MaxSSEEventSize bytes (of
// any size under the no-sse-cap variant) and hands its messages to take
// until take says stop. An empty body holds no message.
func (c *Client) takeJSON(resp *http.Response, take func(*jsonrpc.Message) (stop bool)) error {
	limit := c.cfg.MaxSSEEventSize
	if c.cfg.Mutant == mutant.NoSSECap {
		limit = math.MaxInt - 1
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", errReadBody, err)
	case len(b) > limit:
		return fmt.Errorf("the JSON response is larger than MaxSSEEventSize (%d bytes); raise the limit if the server is right", limit)
	case len(bytes.TrimSpace(b)) == 0:
		return nil
	}
	msgs, err := decodeMessages(b)
	if err != nil {
		return fmt.Errorf("the JSON response: %w", err)
	}
	for _, m := range msgs {
		if take(m) {
			return nil
		}
	}
	return nil
}

// decodeMessages decodes a JSON-RPC message, or a batch of them (allowed by
// 2025-03-26).
func decodeMessages(b []byte) ([]*jsonrpc.Message, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		return jsonrpc.DecodeBatch(b)
	}
	m, err := jsonrpc.Decode(b)
	if err != nil {
		return nil, err
	}
	return []*jsonrpc.Message{m}, nil
}
