// Package server holds the checks of a server's protocol behaviour, whatever
// the transport: each check runs over every transport the run names (a stdio
// command, a streamable HTTP URL, or both for the built-in reference), on a
// fresh connection, and reaches behaviours through discovery, never fixed
// tool names.
package server

import (
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A check file registers each check with one of these, then its body:
//
//	var _ = serverCheck(check.Descriptor{ID: "server.…", Title: …, Requirement: …,
//		Rules: []string{"LC-…"}, KilledBy: []mutant.Name{mutant.…}}, func(c *run.C) { … })
//
// serverCheck's body runs once per transport of the run (eachTransport);
// httpServerCheck and stdioServerCheck register a check of one transport.
// A check whose verdict hangs on what the server keeps per session (the
// capabilities a client declared, the log level it set) says Serial: a
// server that keeps no sessions shares that state between every client.
var (
	serverCheck      = run.For(check.Server, check.Any)
	httpServerCheck  = run.For(check.Server, check.HTTP)
	stdioServerCheck = run.For(check.Server, check.Stdio)
)
