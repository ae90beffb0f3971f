// Package httpfake holds scripted streamable HTTP MCP servers that misbehave
// on purpose, for the HTTP client checks. Each runs on 127.0.0.1 in the
// harness's own process (Start, CaseIDs): sessions that expire (alone, in
// flight, again), SSE events of exact raw sizes and far past a limit, CRLF
// split across writes, slow and early-SSE replies that let the fake count
// concurrent POSTs, requests to the client that need the control queue,
// redirects to another origin, stateless replies and resumable streams.
// Each fake records every HTTP request (Fake.Requests) for the checks.
//
// The fakes serve the era Options.Era names (legacy by default; modern,
// 2026-07-28 only, without sessions or a GET stream; or dual) on
// mcp.EndpointPath; what they answer is built from package fakeservers, as
// the stdio fakes' is.
package httpfake
