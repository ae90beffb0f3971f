package server

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Which era a server serves, told as a dual-era client tells it (LC-45):
// server/discover answered with a result or a 2026-07-28 error means the
// modern era, unless the versions it names are all legacy ones. Only an initialize refused as a modern-only server refuses it
// (-32022, or an error whose data.supported names no legacy version, LC-48)
// means the server does not serve the legacy one: a server whose handshake
// fails otherwise, or cannot be read, is judged legacy, so that the legacy
// checks report what is broken. Each probe has a fresh connection, so
// neither can spoil the other.

func init() { run.SetEraProber(probeEras) }

func probeEras(cfg run.Config, t check.Transport) run.ServerEras {
	var e run.ServerEras
	discover, err := probeOnce(cfg, t, mcp.MethodDiscover, modernParams(mcp.ModernVersion, nil), mcp.ModernVersion)
	switch {
	case err != nil:
		e.Evidence = fmt.Sprintf("was not asked server/discover (%v)", err)
	case discover == nil:
		e.Evidence = fmt.Sprintf("did not answer server/discover within %s", cfg.Patience)
	case discover.Error == nil:
		versions, named := supportedVersions(discover.Result, "supportedVersions")
		if e.Modern = !named || servesModern(versions); e.Modern {
			e.Evidence = "answered server/discover with a result"
		} else {
			e.Evidence = fmt.Sprintf("answered server/discover naming only legacy versions %v", versions)
		}
	case isModernError(discover.Error.Code):
		versions, named := supportedVersions(discover.Error.Data, "supported")
		if e.Modern = !named || servesModern(versions); e.Modern {
			e.Evidence = fmt.Sprintf("answered server/discover with 2026-07-28 error %d", discover.Error.Code)
		} else {
			e.Evidence = fmt.Sprintf("answered server/discover with error %d naming only legacy versions %v", discover.Error.Code, versions)
		}
	default:
		e.Evidence = fmt.Sprintf("answered server/discover with error %d (%s)", discover.Error.Code, clip(discover.Error.Message))
	}
	init, err := probeOnce(cfg, t, "initialize", initializeParams(v1125, nil), "")
	switch {
	case err != nil:
		e.Legacy = true
		e.Evidence += fmt.Sprintf(" and was not asked initialize (%v)", err)
	case init == nil:
		e.Legacy = true
		e.Evidence += fmt.Sprintf(" and did not answer initialize within %s", cfg.Patience)
	case init.Error == nil:
		e.Legacy = true
		e.Evidence += " and initialize with a result"
	case refusesLegacy(init.Error):
		e.Evidence += fmt.Sprintf(" and refused initialize with error %d, naming no legacy version", init.Error.Code)
	default:
		e.Legacy = true
		e.Evidence += fmt.Sprintf(" and failed initialize with error %d (%s)", init.Error.Code, clip(init.Error.Message))
	}
	return e
}

// supportedVersions reads the list of versions under field of a result or
// error data; named is false when there is none to read, which leaves the
// judging to the checks.
func supportedVersions(raw json.RawMessage, field string) (versions []string, named bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || json.Unmarshal(fields[field], &versions) != nil || len(versions) == 0 {
		return nil, false
	}
	return versions, true
}

// servesModern reports whether versions name one newer than the legacy
// era's: a server that answers server/discover naming only legacy versions
// does so for dual-era clients' probes, and serves no 2026-07-28 request.
func servesModern(versions []string) bool {
	return slices.ContainsFunc(versions, func(v string) bool { return v > legacyVersions[len(legacyVersions)-1] })
}

// isModernError reports whether code is one only a 2026-07-28 server sends
// (JR-29).
func isModernError(code int64) bool {
	return code == jsonrpc.CodeHeaderMismatch || code == jsonrpc.CodeMissingClientCapability || code == jsonrpc.CodeUnsupportedProtocolVersion
}

// refusesLegacy reports whether an error answering initialize says the
// server serves no legacy version: -32022, or data.supported without one.
func refusesLegacy(e *jsonrpc.Error) bool {
	var data struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(e.Data, &data) == nil && len(data.Supported) > 0 {
		return !slices.ContainsFunc(data.Supported, func(v string) bool { return slices.Contains(legacyVersions, v) })
	}
	return e.Code == jsonrpc.CodeUnsupportedProtocolVersion
}

// clip shortens what a server wrote for a message that repeats it.
func clip(s string) string {
	const max = 120
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

// probeOnce sends one request on a fresh connection (over HTTP with
// MCP-Protocol-Version set to version, unless empty) and returns its
// response, nil when none came within the run's patience; an error when
// the connection could not be made or the request not sent.
func probeOnce(cfg run.Config, t check.Transport, method string, params any, version string) (*jsonrpc.Message, error) {
	cn, err := dial(cfg, t)
	if err != nil {
		return nil, err
	}
	defer cn.close()
	if h, ok := cn.(*httpConn); ok {
		h.version, h.modern = version, method == mcp.MethodDiscover
	}
	id := jsonrpc.IntID(1)
	raw, err := jsonrpc.EncodeCall(id, method, params)
	if err != nil {
		return nil, err
	}
	if err := cn.send(raw); err != nil {
		return nil, err
	}
	p := &peer{conn: cn, transport: string(t)}
	return p.wait(responseTo(id), cfg.Patience), nil
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
