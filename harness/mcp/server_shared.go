package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// SessionInfo is what a server-side handler knows of the session a message
// belongs to; *streamable.ServerSession is one. The server transports import
// this package, so it names no transport type.
type SessionInfo interface {
	// ID is the transport's session id; empty without one.
	ID() string
	// ProtocolVersion is the version initialize negotiated.
	ProtocolVersion() string
}

// connectionless reports whether info's transport serves each message
// apart, with no connection or session that outlives it (a stateless
// streamable HTTP server): its SessionInfo has Stateless() true.
func connectionless(info SessionInfo) bool {
	s, ok := info.(interface{ Stateless() bool })
	return ok && s.Stateless()
}

// The serverInfo of the reference server.
const (
	ServerName    = "mcpconform-reference"
	ServerVersion = "dev"
)

// LogLevels returns the RFC 5424 severities of notifications/message,
// least severe first (LG-02).
func LogLevels() []string { return slices.Clone(logLevels) }

// logLevels are the RFC 5424 severities of notifications/message (LG-02).
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// TextResult is a tool result of one text item.
func TextResult(text string) CallToolResult {
	return CallToolResult{Content: []json.RawMessage{textContent(text)}}
}

// ErrorResult is a tool's own failure: one text item with isError (TL-08).
func ErrorResult(text string) CallToolResult {
	return CallToolResult{Content: []json.RawMessage{textContent(text)}, IsError: true}
}

func textContent(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return b
}

// DecodeParams decodes params that must be an object; absent params decode as
// an empty object.
func DecodeParams(params json.RawMessage, v any) error {
	params = bytes.TrimSpace(params)
	if len(params) == 0 {
		return nil
	}
	if params[0] != '{' {
		return errors.New("params must be an object")
	}
	return json.Unmarshal(params, v)
}

// InvalidParams is the -32602 error with message (JR-23).
func InvalidParams(message string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: message}
}
