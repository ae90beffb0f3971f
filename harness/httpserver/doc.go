// Package httpserver is mcpconform's reference streamable HTTP server
// transport (Server, configured by Config): one MCP endpoint on loopback
// (Listen), sessions minted and expired, POST answers as JSON or SSE
// streams with priming events and resumable event ids, the GET stream,
// Origin and Host validation, the protocol-version header, batches, and the
// 2026-07-28 stateless requests. It serves any Handler, such as the
// reference server of package mcpserver. The client side is package
// httpclient; the SSE wire both share is package sse.
package httpserver
