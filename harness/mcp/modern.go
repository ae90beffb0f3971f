package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The 2026-07-28 era carries its context in every request's params._meta
// (JR-46 … JR-48) instead of an initialize handshake.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// ModernVersion is the first protocol version of the modern era.
const ModernVersion = "2026-07-28"

// ModernProtocolVersions are the modern-era versions the reference serves.
var ModernProtocolVersions = []string{ModernVersion}

// MethodDiscover is the modern era's first request (LC-41).
const MethodDiscover = "server/discover"

// ModernMeta is what a modern request says of itself in params._meta.
type ModernMeta struct {
	// Version is the protocolVersion; HasVersion says it was a string.
	Version    string
	HasVersion bool
	// Capabilities are the clientCapabilities as sent; nil when absent.
	Capabilities json.RawMessage
	// LogLevel is the logLevel, "" when absent: then no log notifications
	// go out for the request (LG-12).
	LogLevel string
	// problem says what is wrong with the keys that are there.
	problem string
}

// ModernRequest reads a request's params._meta and reports whether the
// request belongs to the modern era: it names a protocolVersion there, or it
// is server/discover, which only the modern era has.
func ModernRequest(req *jsonrpc.Message) (ModernMeta, bool) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = DecodeParams(req.Params, &p)
	var mm ModernMeta
	raw, named := p.Meta[MetaProtocolVersion]
	if named {
		if json.Unmarshal(raw, &mm.Version) == nil && mm.Version != "" {
			mm.HasVersion = true
		} else {
			mm.problem = fmt.Sprintf("_meta %q must be a protocol version string, not %s", MetaProtocolVersion, raw)
		}
	}
	if c, ok := p.Meta[MetaClientCapabilities]; ok {
		if len(c) == 0 || c[0] != '{' {
			mm.problem = fmt.Sprintf("_meta %q must be an object, not %s", MetaClientCapabilities, c)
		}
		mm.Capabilities = c
	}
	if l, ok := p.Meta[MetaLogLevel]; ok && json.Unmarshal(l, &mm.LogLevel) != nil {
		mm.problem = fmt.Sprintf("_meta %q must be a log level string, not %s", MetaLogLevel, l)
	}
	return mm, named || req.Method == MethodDiscover
}

// Problem is the -32602 a modern request gets when a required _meta key is
// missing or malformed (JR-47); nil when the keys are in order. Over HTTP it
// goes out with status 400.
func (mm ModernMeta) Problem() *jsonrpc.Error {
	switch {
	case mm.problem != "":
		return InvalidParams(mm.problem)
	case !mm.HasVersion:
		return InvalidParams(fmt.Sprintf("the request has no _meta %q; every 2026-07-28 request names its protocol version there", MetaProtocolVersion))
	case mm.Capabilities == nil:
		return InvalidParams(fmt.Sprintf("the request has no _meta %q; every 2026-07-28 request declares the client's capabilities there ({} for none)", MetaClientCapabilities))
	}
	return nil
}

// UnsupportedVersion is the -32022 for a request naming a version the server
// does not serve, with the versions it does (LC-42, LC-48).
func UnsupportedVersion(requested string, supported []string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"supported": supported, "requested": requested})
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeUnsupportedProtocolVersion,
		Message: fmt.Sprintf("protocol version %q is not served here; use one of %v", requested, supported),
		Data:    data,
	}
}

// LegacyProtocolVersions are the versions of the initialize handshake that
// the reference client and server speak, newest first.
var LegacyProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}
