package server

import (
	"encoding/json"
	"fmt"
	nethttp "net/http"
	"regexp"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The 2026-07-28 era: server/discover, versions named per request,
// required _meta: LC-41, LC-42, JR-15, JR-47, HT-74. These checks are N/A on
// a server that does not answer server/discover; the legacy checks are N/A
// on one that serves the modern era only.

// modernRequest sends a 2026-07-28 request with params (their _meta
// included) and returns its response; over HTTP its MCP-Protocol-Version
// header names version and no session is used (HT-60).
func (p *peer) modernRequest(method, version string, params map[string]any) *jsonrpc.Message {
	if h, ok := p.conn.(*httpConn); ok {
		h.version, h.modern = version, true
	}
	p.modern = version
	return p.request(method, params)
}

// status is the HTTP status of the latest POST, 0 over stdio.
func (p *peer) status() int {
	if h, ok := p.conn.(*httpConn); ok {
		return h.lastStatus
	}
	return 0
}

// isVersion matches a protocol version string (YYYY-MM-DD).
var isVersion = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

var _ = serverCheck(check.Descriptor{
	ID:          "server.discover.result",
	Title:       "server/discover answers with supportedVersions, capabilities, resultType and cache hints",
	Requirement: "Servers implement server/discover, answering with supportedVersions, capabilities, optional instructions and cache hints (ttlMs, cacheScope); every result carries resultType.",
	Rules:       []string{"LC-41", "JR-15", "TL-19", "LC-40"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.DiscoverNoSupportedVersions, mutant.ResultTypeMissing},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		m := p.modernRequest(mcp.MethodDiscover, mcp.ModernVersion, modernParams(mcp.ModernVersion, nil))
		c.Require(m.Error == nil, "a DiscoverResult ("+p.transport+")", "%s", describe(m))
		var r struct {
			SupportedVersions []string                   `json:"supportedVersions"`
			Capabilities      map[string]json.RawMessage `json:"capabilities"`
			ResultType        string                     `json:"resultType"`
			TTLMs             *float64                   `json:"ttlMs"`
			CacheScope        string                     `json:"cacheScope"`
		}
		err := json.Unmarshal(m.Result, &r)
		c.Require(err == nil && len(r.SupportedVersions) > 0, "supportedVersions: a non-empty list of version strings ("+p.transport+")", "%s", clip(string(m.Result)))
		for _, v := range r.SupportedVersions {
			c.Require(isVersion.MatchString(v), "versions of the form YYYY-MM-DD", "%q", v)
		}
		c.Require(r.Capabilities != nil, "capabilities: an object ("+p.transport+")", "%s", clip(string(m.Result)))
		c.Require(r.ResultType == "complete", `resultType "complete" (`+p.transport+")", "resultType %q", r.ResultType)
		c.Require(r.TTLMs != nil && *r.TTLMs >= 0 && *r.TTLMs == float64(int64(*r.TTLMs)), "ttlMs: an integer ≥ 0 ("+p.transport+")", "%s", clip(string(m.Result)))
		c.Require(r.CacheScope == "public" || r.CacheScope == "private", `cacheScope "public" or "private" (`+p.transport+")", "cacheScope %q", r.CacheScope)
	})
})

// unservedVersion is a version no server serves.
const unservedVersion = "2099-01-01"

var _ = serverCheck(check.Descriptor{
	ID:          "server.version.unsupported",
	Title:       "a request naming a version the server does not serve gets -32022 with supported and requested (HTTP 400)",
	Requirement: "A request naming a protocol version the server does not serve gets -32022 UnsupportedProtocolVersion with data.supported (list) and data.requested; over HTTP with status 400.",
	Rules:       []string{"LC-42", "HT-74"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.UnsupportedVersionInvalidParams, mutant.UnsupportedVersionStatus200},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		m := p.modernRequest(mcp.MethodDiscover, unservedVersion, modernParams(unservedVersion, nil))
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeUnsupportedProtocolVersion, "error -32022 ("+p.transport+")", "%s", describe(m))
		var data struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		err := json.Unmarshal(m.Error.Data, &data)
		c.Require(err == nil && len(data.Supported) > 0 && data.Requested == unservedVersion,
			fmt.Sprintf("data {supported: [versions…], requested: %q} (%s)", unservedVersion, p.transport), "data %s", clip(string(m.Error.Data)))
		if p.transport == "http" {
			c.Require(p.status() == nethttp.StatusBadRequest, "HTTP status 400", "status %d", p.status())
		}
		c.Require(!slices.Contains(data.Supported, unservedVersion), "supported lists versions served", "it lists %s", unservedVersion)
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.meta.missing-capabilities",
	Title:       "a 2026-07-28 request without _meta clientCapabilities gets -32602 (HTTP 400)",
	Requirement: "A request missing a required _meta key (protocolVersion, clientCapabilities) is rejected with -32602; over HTTP with status 400.",
	Rules:       []string{"JR-47", "JR-46"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.MissingMetaAccepted},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		params := map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: mcp.ModernVersion, mcp.MetaClientInfo: clientInfo}}
		m := p.modernRequest(mcp.MethodDiscover, mcp.ModernVersion, params)
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams, "error -32602 ("+p.transport+")", "%s", describe(m))
		if p.transport == "http" {
			c.Require(p.status() == nethttp.StatusBadRequest, "HTTP status 400", "status %d", p.status())
		}
	})
})

// postLying POSTs a well-formed 2026-07-28 request of method with params
// whose headers lie: MCP-Protocol-Version names version, override replaces
// the mirrored headers ("" leaves one out). It returns the HTTP status and
// the answer (nil if none came).
func postLying(c *run.C, method string, params map[string]any, version string, override map[string]string) (int, *jsonrpc.Message) {
	h, m := postModern(c, method, params, func(h *httpConn) { h.version, h.override = version, override })
	return h.lastStatus, m
}

// postModern POSTs one 2026-07-28 request of method with params (their
// _meta added) on a fresh connection that setup may change first, and
// returns the connection, whose lastStatus and lastHeader describe the
// answer, and the answer (nil if none came).
func postModern(c *run.C, method string, params map[string]any, setup func(h *httpConn)) (*httpConn, *jsonrpc.Message) {
	cfg := c.Options()
	if cfg.ServerURL == "" {
		c.Skip(run.NoServerURL)
	}
	h := newHTTPConn(cfg.ServerURL, cfg.CheckDeadline, c.Log())
	c.Cleanup(h.close)
	h.version, h.modern = mcp.ModernVersion, true
	if setup != nil {
		setup(h)
	}
	p := newPeer(c, h, check.HTTP)
	p.message(p.id(), method, modernParams(mcp.ModernVersion, params))
	m := p.wait(func(m *jsonrpc.Message) bool { return m.Kind() == jsonrpc.KindError || m.Kind() == jsonrpc.KindResult }, p.within(cfg.Prompt))
	return h, m
}

var _ = httpServerCheck(check.Descriptor{
	ID:          "http.server.modern.header-mismatch",
	Title:       "a POST whose MCP-Protocol-Version header differs from its _meta version gets 400 with -32020",
	Requirement: "Every POST carries MCP-Protocol-Version equal to the body's _meta protocolVersion; a mismatch gets HTTP 400 with -32020 HeaderMismatch.",
	Rules:       []string{"HT-74", "HT-73"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.HeaderMismatchAccepted},
}, func(c *run.C) {
	status, m := postLying(c, mcp.MethodDiscover, nil, v1125, nil)
	c.Require(status == nethttp.StatusBadRequest && m != nil && m.Error != nil && m.Error.Code == jsonrpc.CodeHeaderMismatch,
		"HTTP 400 with error -32020", "status %d, %s", status, describe(m))
})

var _ = httpServerCheck(check.Descriptor{
	ID:          "http.server.modern.mirror-headers",
	Title:       "a POST whose Mcp-Method or Mcp-Name header is missing or differs from the body gets 400 with -32020",
	Requirement: "A server checks the headers that mirror the body (Mcp-Method, Mcp-Name) and rejects missing or mismatched ones with HTTP 400 and -32020.",
	Rules:       []string{"HT-81", "HT-77"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.MirrorHeadersUnchecked},
}, func(c *run.C) {
	call := map[string]any{"name": "mcpconform-probe", "arguments": map[string]any{}}
	for _, tc := range []struct {
		method   string
		params   map[string]any
		override map[string]string
	}{
		{mcp.MethodDiscover, nil, map[string]string{mcp.HeaderMethod: ""}},
		{mcp.MethodDiscover, nil, map[string]string{mcp.HeaderMethod: "tools/list"}},
		{"tools/call", call, map[string]string{mcp.HeaderName: ""}},
		{"tools/call", call, map[string]string{mcp.HeaderName: "mcpconform-other"}},
	} {
		status, m := postLying(c, tc.method, tc.params, mcp.ModernVersion, tc.override)
		c.Require(status == nethttp.StatusBadRequest && m != nil && m.Error != nil && m.Error.Code == jsonrpc.CodeHeaderMismatch,
			fmt.Sprintf("HTTP 400 with error -32020 for %s with headers %v", tc.method, tc.override), "status %d, %s", status, describe(m))
	}
})

// asksClient are the fixture roles whose tools ask the client for
// something, with the capability each needs.
var asksClient = []struct{ role, capability string }{{"sampling", "sampling"}, {"elicitation", "elicitation"}, {"roots", "roots"}}

var _ = serverCheck(check.Descriptor{
	ID:          "server.modern.capability-required",
	Title:       "a 2026-07-28 tool call that needs a client capability the request does not declare gets -32021 (HTTP 400)",
	Requirement: "If handling a request needs a client capability not declared in that request's _meta, the server answers -32021 with data.requiredCapabilities; over HTTP with status 400.",
	Rules:       []string{"JR-49", "JR-51"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.CapabilityNeededAsResult},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.modern = mcp.ModernVersion
		var tried []string
		var left []toolpolicy.LeftAlone
		for _, a := range asksClient {
			found, _, refused := offeredFixtures(c, p, a.role)
			left = append(left, refused...)
			for _, f := range found {
				tried = append(tried, f.Tool)
				m := p.modernRequest("tools/call", mcp.ModernVersion, modernParams(mcp.ModernVersion, p.callParams(f, nil)))
				var data struct {
					Required map[string]json.RawMessage `json:"requiredCapabilities"`
				}
				if m.Error != nil {
					_ = json.Unmarshal(m.Error.Data, &data)
				}
				c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeMissingClientCapability && data.Required[a.capability] != nil,
					fmt.Sprintf("%s (which needs %s) gets -32021 with data.requiredCapabilities.%s (%s)", f.Tool, a.capability, a.capability, p.transport),
					"%s", describe(m))
				if p.transport == "http" {
					c.Require(p.status() == nethttp.StatusBadRequest, "HTTP status 400", "status %d", p.status())
				}
			}
		}
		if len(tried) == 0 && len(left) > 0 {
			c.Unimplemented("no tool that asks the client for something may be called: " + toolpolicy.Explain(left))
		}
		if len(tried) == 0 {
			c.Unimplemented("no tool asks the client for anything: map sampling, elicitation or roots in a --fixtures file")
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.modern.no-log-without-level",
	Serial:      true, // the log level is session state
	Title:       "a 2026-07-28 request whose _meta names no logLevel gets no log notifications",
	Requirement: "No notifications/message for a request that lacks _meta io.modelcontextprotocol/logLevel.",
	Rules:       []string{"LG-12"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.LogsWithoutLevel},
	Waits:       []check.Wait{{What: "log messages, after the response", Setting: check.QuietWindow}},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.modern = mcp.ModernVersion
		for _, f := range fixtures(c, p, "logging") {
			p.unread = nil
			m := p.modernRequest("tools/call", mcp.ModernVersion, modernParams(mcp.ModernVersion, p.callParams(f, nil)))
			c.Require(m.Error == nil, f.Tool+" answers ("+p.transport+")", "%s", describe(m))
			logs := logMessages(append(p.unread, p.quiet(c.QuietWindow())...))
			c.Require(len(logs) == 0, "no notifications/message ("+p.transport+")", "%d arrived", len(logs))
		}
	})
})
