// Package wireschema checks one JSON-RPC message against the published MCP
// JSON Schema of a protocol version (2025-03-26 … 2026-07-28), embedded
// unchanged under schema/ with its provenance.
//
// The message decides which definition it must match: a request or a
// notification by its method (tools/call → CallToolRequest, an unknown
// method → the generic JSONRPCRequest), a result by the method of the
// request it answers, which the caller passes (tools/list → ListToolsResult;
// unknown → the generic result response), an error by the JSON-RPC error
// definition. A message that breaks its definition is reported as a
// Violation: the message, the JSON pointer into it, the schema keyword that
// failed and where, and a one-line reason.
//
// Validation uses github.com/santhosh-tekuri/jsonschema/v6 with the draft
// each schema declares in $schema (draft-07 before 2025-11-25, 2020-12
// from it on; JR-55). Every $ref resolves inside the embedded documents:
// nothing is ever fetched (JR-57). "format" is an annotation in every
// version, as 2020-12 makes it, so that one message is judged alike under
// each version's schema.
package wireschema
