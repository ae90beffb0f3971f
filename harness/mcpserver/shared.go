package mcpserver

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/harness/mcp"
)

// SessionInfo is what a server-side handler knows of the session a message
// belongs to; *httpserver.Session is one. The server transports import
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
	Name    = "mcpconform-reference"
	Version = "dev"
)

// TextResult is a tool result of one text item.
func TextResult(text string) mcp.CallToolResult {
	return mcp.CallToolResult{Content: []json.RawMessage{textContent(text)}}
}

// ErrorResult is a tool's own failure: one text item with isError (TL-08).
func ErrorResult(text string) mcp.CallToolResult {
	return mcp.CallToolResult{Content: []json.RawMessage{textContent(text)}, IsError: true}
}

func textContent(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return b
}
