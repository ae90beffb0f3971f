package mcp

import (
	"bytes"
	"encoding/json"
	"errors"

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

// The serverInfo of the reference server.
const (
	ServerName    = "mcpconform-reference"
	ServerVersion = "dev"
)

// logLevels are the RFC 5424 severities of notifications/message (LG-02).
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func toolText(text string) CallToolResult {
	return CallToolResult{Content: []json.RawMessage{textContent(text)}}
}

func toolError(text string) CallToolResult {
	return CallToolResult{Content: []json.RawMessage{textContent(text)}, IsError: true}
}

func textContent(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return b
}

// decodeParams decodes params that must be an object; absent params decode as
// an empty object.
func decodeParams(params json.RawMessage, v any) error {
	params = bytes.TrimSpace(params)
	if len(params) == 0 {
		return nil
	}
	if params[0] != '{' {
		return errors.New("params must be an object")
	}
	return json.Unmarshal(params, v)
}

func invalidParams(message string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: message}
}
