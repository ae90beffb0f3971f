package jsonrpc

// Standard JSON-RPC 2.0 error codes (JR-20 … JR-24) and the MCP-specific ones
// the harness needs to recognise.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeResourceNotFound is MCP's legacy resource-not-found code (JR-25).
	CodeResourceNotFound = -32002

	// The 2026-07-28 codes (JR-29): the MCP-Protocol-Version header or an
	// Mcp-* header disagrees with the body, a client capability the request
	// needs is not declared in its _meta, the request names a protocol
	// version the server does not serve.
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022

	// CodeURLElicitationRequired is 2025-11-25's URLElicitationRequiredError:
	// the request proceeds only after the URL-mode elicitations its
	// data.elicitations lists (JR-26); 2026-07-28 removed it (JR-30).
	CodeURLElicitationRequired = -32042
)
