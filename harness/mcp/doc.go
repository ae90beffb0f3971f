// Package mcp is the protocol both sides share: the versions of each era
// and the 2026-07-28 request metadata, the types both a client and a server
// read (Tool, CallToolResult), and the constants of the wire (header
// names, the endpoint path, content types). JSON-RPC's own error codes,
// and MCP's, are in package jsonrpc. The reference client session is
// package mcpclient; the reference server, package mcpserver.
package mcp
