package mcp

// The streamable HTTP transport's names (HT-01 … HT-40): its header
// fields, the endpoint path mcpconform serves and fakes on, and the two
// content types of a POST's answer.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderLastEventID     = "Last-Event-ID"
	// HeaderMethod and HeaderName repeat a 2026-07-28 request's method
	// and the name it targets (HT-77).
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"

	EndpointPath = "/mcp"

	ContentTypeJSON = "application/json"
	ContentTypeSSE  = "text/event-stream"
)
