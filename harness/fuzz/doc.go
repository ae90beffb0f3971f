// Package fuzz is mcpconform's server fuzzer: gopter's stateful commands
// model an MCP session (initialize, list, call, ping, cancel, set level,
// progress requests, subscriptions; over HTTP also DELETE and foreign
// sessions) and interleave it with damaged frames. An executor sends the
// frames to a live server, over stdio or streamable HTTP, and checks the
// invariants after every step; a failure is shrunk by gopter to a minimal
// sequence and becomes a Case, the human-readable corpus format that
// `mcpconform replay` runs again anywhere.
package fuzz
