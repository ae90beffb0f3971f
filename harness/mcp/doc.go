// Package mcp holds mcpconform's reference MCP sessions.
//
// The client side is the minimal client session (ClientSession: the
// initialize handshake, requests routed by id, timeouts and cancellation,
// tools, ping) over any Transport, such as the reference stdio client of
// package stdio. It keeps LC-03 … LC-13, JR-05, JR-07, CN-01, CN-02, PG-02 of
// the requirements digest and NG-07, NG-09, NG-12 of SEMANTICS.md.
//
// The server side is the reference server (Server), which the streamable HTTP
// and stdio server transports serve through its Handle method: version
// negotiation, ping, tools, resources and their subscriptions, prompts,
// completion and pagination, and a RequestContext for every request handler
// with logging, progress, cancellation and requests back to the client
// (CX-01 … CX-08).
package mcp
