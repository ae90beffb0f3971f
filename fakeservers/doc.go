// Package fakeservers is what the fake MCP servers share: the protocol of a
// well-behaved server in each era it serves (Era: legacy, modern or dual;
// the initialize and server/discover results, tool lists, a tools/call
// parsed into a ToolCall, text results), from which each fake builds its
// answers. The fakes themselves are in its two packages:
// stdiofake, the stdio servers a client adapter launches as `mcpconform
// fakeserver`, and httpfake, the streamable HTTP servers that run in the
// harness's process.
package fakeservers
