package server

import (
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Which era a server serves, told as a dual-era client tells it (LC-45):
// server/discover answered with a result or a 2026-07-28 error means the
// modern era. Only an initialize refused with an error means the server does
// not serve the legacy one: a server whose handshake answer cannot be read
// is judged legacy, so that the legacy checks report what is broken. Each
// probe has a fresh connection, so neither can spoil the other.

func init() { run.SetEraProber(probeEras) }

func probeEras(cfg run.Config, t check.Transport) run.ServerEras {
	var e run.ServerEras
	discover, waited := probeOnce(cfg, t, mcp.MethodDiscover, modernParams(mcp.ModernVersion, nil), mcp.ModernVersion, cfg.Prompt)
	switch {
	case discover == nil:
		e.Evidence = fmt.Sprintf("did not answer server/discover within %s", waited)
	case discover.Error == nil:
		e.Modern, e.Evidence = true, "answered server/discover with a result"
	case isModernError(discover.Error.Code):
		e.Modern, e.Evidence = true, fmt.Sprintf("answered server/discover with 2026-07-28 error %d", discover.Error.Code)
	default:
		e.Evidence = fmt.Sprintf("answered server/discover with error %d (%s)", discover.Error.Code, discover.Error.Message)
	}
	init, waited := probeOnce(cfg, t, "initialize", initializeParams(v1125, nil), "", cfg.Patience)
	switch {
	case init == nil:
		e.Legacy = true
		e.Evidence += fmt.Sprintf(" and did not answer initialize within %s", waited)
	case init.Error == nil:
		e.Legacy = true
		e.Evidence += " and initialize with a result"
	default:
		e.Evidence += fmt.Sprintf(" and refused initialize with error %d", init.Error.Code)
	}
	return e
}

// isModernError reports whether code is one only a 2026-07-28 server sends
// (JR-29).
func isModernError(code int64) bool {
	return code == jsonrpc.CodeHeaderMismatch || code == jsonrpc.CodeMissingClientCapability || code == jsonrpc.CodeUnsupportedProtocolVersion
}

// probeOnce sends one request on a fresh connection (over HTTP with
// MCP-Protocol-Version set to version, unless empty) and returns its
// response, nil when none came within wait.
func probeOnce(cfg run.Config, t check.Transport, method string, params any, version string, wait time.Duration) (*jsonrpc.Message, time.Duration) {
	cn, err := dial(cfg, t)
	if err != nil {
		return nil, 0
	}
	defer cn.close()
	if h, ok := cn.(*httpConn); ok {
		h.version, h.modern = version, method == mcp.MethodDiscover
	}
	id := jsonrpc.IntID(1)
	req, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		return nil, 0
	}
	raw, err := jsonrpc.Encode(req)
	if err != nil || cn.send(raw) != nil {
		return nil, 0
	}
	p := &peer{conn: cn, transport: string(t)}
	return p.wait(responseTo(id), wait), wait
}

// modernParams are params of a 2026-07-28 request naming version, with
// the fields of extra.
func modernParams(version string, extra map[string]any) map[string]any {
	params := map[string]any{}
	for k, v := range extra {
		params[k] = v
	}
	params["_meta"] = map[string]any{
		mcp.MetaProtocolVersion:    version,
		mcp.MetaClientCapabilities: map[string]any{},
		mcp.MetaClientInfo:         clientInfo,
	}
	return params
}

// clientInfo is how the checks name themselves.
var clientInfo = map[string]any{"name": "mcpconform", "version": "1"}

// initializeParams are initialize's params proposing version with the
// client capabilities caps.
func initializeParams(version string, caps map[string]any) map[string]any {
	if caps == nil {
		caps = map[string]any{}
	}
	return map[string]any{"protocolVersion": version, "capabilities": caps, "clientInfo": clientInfo}
}
