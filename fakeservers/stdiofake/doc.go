// Package stdiofake holds scripted MCP stdio servers that misbehave on
// purpose, for the stdio client checks: banners on stdout, damaged and
// non-object lines, stderr floods and secrets, calls never answered, EOF and
// SIGTERM ignored, grandchildren left behind, ids of the wrong JSON type,
// answers out of order.
//
// A client adapter launches one as `mcpconform fakeserver --case ID --record
// FILE …` (see Options.Args). The fake serves the era --era names
// (fakeservers.Era: legacy by default, where server/discover gets -32601;
// modern, 2026-07-28 only; or dual), every case in every era, records what
// it sees to FILE, one Event per line, and the harness judges the client
// from that record (ReadRecord).
// Serve runs a case in-process for Go tests; Main is the subcommand.
package stdiofake
