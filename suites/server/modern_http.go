package server

import (
	"fmt"
	nethttp "net/http"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The streamable HTTP transport of the 2026-07-28 era: the status of an
// unknown method (HT-75), a missing version header (HT-76), header names
// and values (HT-83), SSE responses unbuffered (HT-29c), no sessions and no
// resumption (HT-60, HT-48).

var _ = httpServerCheck(check.Descriptor{
	ID:          "http.server.modern.unknown-method-404",
	Title:       "a 2026-07-28 request of an unknown method gets HTTP 404 with a -32601 body",
	Requirement: "An unknown method is answered with HTTP 404 and a JSON-RPC error -32601 in the body (which tells it from a legacy \"no such endpoint\" 404).",
	Rules:       []string{"HT-75"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.UnknownMethodStatus200},
}, func(c *run.C) {
	h, m := postModern(c, "mcpconform/no-such-method", nil, nil)
	c.Require(h.lastStatus == nethttp.StatusNotFound && m != nil && m.Error != nil && m.Error.Code == jsonrpc.CodeMethodNotFound,
		"HTTP 404 with error -32601", "status %d, %s", h.lastStatus, describe(m))
})

var _ = httpServerCheck(check.Descriptor{
	ID:    "http.server.modern.missing-version-header",
	Title: "a 2026-07-28 request without MCP-Protocol-Version is refused with 400 and -32020, or read as 2025-03-26, never served as 2026-07-28",
	Requirement: "A server that supports pre-2025-06-18 clients may read a missing MCP-Protocol-Version as 2025-03-26; otherwise it rejects the request with HTTP 400 and -32020. " +
		"Either way a request without the header is not served as a 2026-07-28 one.",
	Rules:    []string{"HT-76"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.MissingVersionHeaderServed},
}, func(c *run.C) {
	h, m := postModern(c, mcp.MethodDiscover, nil, func(h *httpConn) { h.override = map[string]string{mcp.HeaderProtocolVersion: ""} })
	refused := h.lastStatus == nethttp.StatusBadRequest && m != nil && m.Error != nil && m.Error.Code == jsonrpc.CodeHeaderMismatch
	c.Require(refused || m == nil || m.Kind() != jsonrpc.KindResult,
		"HTTP 400 with error -32020, or the answer a 2025-03-26 server gives to a server/discover (no DiscoverResult)",
		"status %d, %s: served as 2026-07-28 without the header", h.lastStatus, describe(m))
	if !refused {
		c.Note("the server did not answer 400 with -32020 (status %d, %s): read as reading the missing header as 2025-03-26, which HT-76 permits a server supporting pre-2025-06-18 clients", h.lastStatus, describe(m))
	}
})

var _ = httpServerCheck(check.Descriptor{
	ID:          "http.server.modern.header-case",
	Title:       "2026-07-28 header names are matched in any case, their values case-sensitively",
	Requirement: "Header names compare case-insensitively (a request whose MCP headers are named in lower case is served); header values are case-sensitive (Mcp-Method in upper case does not match the body's method: 400 with -32020).",
	Rules:       []string{"HT-83"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.MirrorValueCaseFolded},
}, func(c *run.C) {
	h, m := postModern(c, mcp.MethodDiscover, nil, func(h *httpConn) { h.lowerNames = true })
	c.Require(h.lastStatus == nethttp.StatusOK && m != nil && m.Kind() == jsonrpc.KindResult,
		"server/discover with its headers named mcp-protocol-version and mcp-method is served (200, a result)", "status %d, %s", h.lastStatus, describe(m))
	upper := strings.ToUpper(mcp.MethodDiscover)
	h, m = postModern(c, mcp.MethodDiscover, nil, func(h *httpConn) { h.override = map[string]string{mcp.HeaderMethod: upper} })
	c.Require(h.lastStatus == nethttp.StatusBadRequest && m != nil && m.Error != nil && m.Error.Code == jsonrpc.CodeHeaderMismatch,
		fmt.Sprintf("HTTP 400 with error -32020 for Mcp-Method %q on a %s body", upper, mcp.MethodDiscover), "status %d, %s", h.lastStatus, describe(m))
})

// streamingRoles are the fixture roles whose tools send something about
// the request before answering it: an HTTP server may answer them with SSE.
var streamingRoles = []string{"progress", "logging"}

var _ = httpServerCheck(check.Descriptor{
	ID:          "http.server.modern.sse-no-buffering",
	Title:       "a 2026-07-28 SSE response carries X-Accel-Buffering: no",
	Requirement: "SSE responses carry the header X-Accel-Buffering: no, so proxies pass each event on at once.",
	Rules:       []string{"HT-29c"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.NoAccelBuffering},
}, func(c *run.C) {
	p := openPeer(c, check.HTTP)
	h := p.conn.(*httpConn)
	p.modern = mcp.ModernVersion
	var tried []string
	for _, role := range streamingRoles {
		found, _, _ := offeredFixtures(c, p, role)
		for _, f := range found {
			tried = append(tried, f.Tool)
			m := p.callModern(f, map[string]any{"progressToken": "mcpconform-progress", mcp.MetaLogLevel: levels[0]})
			if m == nil || !h.lastSSE {
				continue
			}
			v := h.lastHeader.Values("X-Accel-Buffering")
			c.Require(len(v) == 1 && v[0] == "no", fmt.Sprintf("the SSE response to %s carries X-Accel-Buffering: no", f.Tool), "X-Accel-Buffering %q", v)
			return
		}
	}
	c.Unimplemented(fmt.Sprintf("no SSE response was seen (tools called with a progressToken and logLevel %s: %s): map a tool that reports progress or logs in a --fixtures file (progress: {tool: NAME})",
		levels[0], strings.Join(tried, ", ")))
})

// foreignSession and foreignEventID are what the sessions check sends: a
// session id no server issued, an event id no stream had.
const (
	foreignSession = "mcpconform-foreign-session"
	foreignEventID = "mcpconform-foreign-event"
)

var _ = httpServerCheck(check.Descriptor{
	ID: "http.server.modern.no-sessions",
	Title: "a modern-only server serves a 2026-07-28 request without a session and without resumption: no Mcp-Session-Id minted or echoed, " +
		"Last-Event-ID ignored, GET and DELETE answered 405",
	Requirement: "A server of 2026-07-28 alone ignores Last-Event-ID and a Mcp-Session-Id the client sends, never mints or echoes one, " +
		"and answers GET and DELETE with 405.",
	Rules:    []string{"HT-60", "HT-48"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ModernMintsSession},
}, func(c *run.C) {
	if c.ServerEras(check.HTTP).Legacy {
		c.NotApplicable("the server also serves the legacy era, whose sessions use GET, DELETE, Mcp-Session-Id and Last-Event-ID; HT-48 and HT-60 bind a server of 2026-07-28 alone")
	}
	extra := map[string]string{"Last-Event-ID": foreignEventID, mcp.HeaderSessionID: foreignSession}
	h, m := postModern(c, mcp.MethodDiscover, nil, func(h *httpConn) { h.extra = extra })
	c.Require(h.lastStatus == nethttp.StatusOK && m != nil && m.Kind() == jsonrpc.KindResult,
		fmt.Sprintf("server/discover with headers %v is served (200, a DiscoverResult)", extra), "status %d, %s", h.lastStatus, describe(m))
	c.Require(h.lastHeader.Get(mcp.HeaderSessionID) == "", "no Mcp-Session-Id on the answer", "Mcp-Session-Id %q", h.lastHeader.Get(mcp.HeaderSessionID))
	for _, method := range []string{nethttp.MethodGet, nethttp.MethodDelete} {
		req, err := nethttp.NewRequestWithContext(c.Ctx, method, c.Options().ServerURL, nil)
		c.Require(err == nil, "a request to the server's URL", "%v", err)
		req.Header.Set(mcp.HeaderSessionID, foreignSession)
		resp, err := h.client.Do(req)
		c.Require(err == nil, method+" is answered", "%v", transcript.RedactError(err))
		resp.Body.Close()
		c.Require(resp.StatusCode == nethttp.StatusMethodNotAllowed, method+" gets 405 Method Not Allowed", "status %d", resp.StatusCode)
	}
})
