package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// Tool is one tool a server offers (tools/list). Title and OutputSchema
// are from 2025-06-18 on (TL-02).
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
}

// ToolAnnotations are the hints a server gives about a tool (TL-02, from
// 2025-03-26 on); an absent hint is nil. A client trusts them only as far
// as it trusts the server (TL-05).
type ToolAnnotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// CallToolResult is the result of tools/call. A tool that failed reports
// IsError in a result; that is not a protocol error.
type CallToolResult struct {
	Content           []json.RawMessage `json:"content"`
	IsError           bool              `json:"isError,omitempty"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
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

// LogLevels returns the RFC 5424 severities of notifications/message,
// least severe first (LG-02).
func LogLevels() []string { return slices.Clone(logLevels) }

// logLevels are the RFC 5424 severities of notifications/message (LG-02).
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
