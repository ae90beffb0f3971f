package httpclient

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// setModernHeaders sets the headers of a 2026-07-28 POST, one whose message
// names a protocol version in its _meta (or is server/discover):
// MCP-Protocol-Version equal to that version (HT-73), Mcp-Method and
// Mcp-Name mirroring the body (HT-77, HT-78) and the message's own
// Mcp-Param-* headers (HT-79). It reports whether the POST is one.
func (c *Client) setModernHeaders(h http.Header, o *outbound) bool {
	if len(o.msgs) != 1 || o.msgs[0].Kind() != jsonrpc.KindRequest {
		return false
	}
	m := o.msgs[0]
	mm, modern := mcp.ModernRequest(m)
	if !modern {
		return false
	}
	if mm.HasVersion {
		h.Set(headerVersion, mm.Version)
	}
	mcp.SetModernHeaders(h, m)
	if c.cfg.Mutant == mutant.ModernHeaderMismatch && h.Get(mcp.HeaderName) != "" {
		h.Set(mcp.HeaderName, strings.ToUpper(h.Get(mcp.HeaderName)))
	}
	for name, v := range o.headers {
		h.Set(name, v)
	}
	return true
}

// readErrorBody reads the HTTP error answer to a 2026-07-28 POST: a JSON body
// holding a JSON-RPC error response is the request's answer (a -32022 at
// 400, a -32601 at 404, HT-74, HT-75, HT-92), delivered as any response is;
// its id may be null when the server could not read the request's. Any
// other body fails the request as an HTTP error.
func (c *Client) readErrorBody(x *exchange, resp *http.Response) {
	ids := x.out.requestIDs()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	if mt == mcp.ContentTypeJSON && err == nil && len(body) <= maxErrorBody && len(ids) == 1 {
		if m, derr := jsonrpc.Decode(bytes.TrimSpace(body)); derr == nil && m.Kind() == jsonrpc.KindError {
			if m.ID.IsZero() {
				m.ID = ids[0]
			}
			if m.ID.Key() == ids[0].Key() {
				c.accept(x, resp.Header, m)
				return
			}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	c.failLive(x, statusFailure(x.out.op(), resp))
}

// CloseRequest cancels a 2026-07-28 request the way HTTP does: it closes the
// request's stream (CN-10, HT-27). It reports whether the request was still
// in progress.
func (c *Client) CloseRequest(id jsonrpc.ID) bool {
	c.mu.Lock()
	var found *exchange
	for x := range c.sess.inflight {
		for _, rid := range x.out.requestIDs() {
			if rid.Key() == id.Key() {
				found = x
			}
		}
	}
	c.mu.Unlock()
	return found != nil && found.abandon()
}
