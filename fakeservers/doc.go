// Package fakeservers holds scripted MCP stdio servers that misbehave on
// purpose, for the client checks: banners on stdout, damaged and non-object
// lines, stderr floods and secrets, calls never answered, EOF and SIGTERM
// ignored, grandchildren left behind, ids of the wrong JSON type, answers out
// of order.
//
// A client adapter launches one as `mcpconform fakeserver --case ID --record
// FILE …` (see Options.Args). The fake speaks the legacy era (it answers
// server/discover with -32601), records what it sees to FILE, one Event per
// line, and the harness judges the client from that record (ReadRecord).
// Serve runs a case in-process for Go tests; Main is the subcommand.
//
// The HTTP fakes (StartHTTP, HTTPCaseIDs) are streamable HTTP servers on
// 127.0.0.1 that run in the harness's own process: sessions that expire
// (alone, in flight, again), SSE events of exact raw sizes and far past a
// limit, CRLF split across writes, slow and early-SSE replies that let the
// fake count concurrent POSTs, requests to the client that need the control
// queue, redirects to another origin, stateless replies and resumable
// streams. Each records every HTTP request (Requests) for the checks.
package fakeservers
