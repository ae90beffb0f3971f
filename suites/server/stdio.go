package server

import (
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/stdiotarget"
	"github.com/mcpconform/mcpconform/suites/run"
)

// stdio servers: ST-02, ST-03, ST-06, LC-20, LC-21. These start the
// server themselves: they need the process, not only its messages.

// open starts the conversation as the server's era wants: the initialize
// handshake, or for a modern-only server server/discover.
func (p *peer) open() {
	if e := p.c.ServerEras(check.Transport(p.transport)); e.Legacy || !e.Modern {
		p.initialize(v1125, nil)
		return
	}
	m := p.modernRequest(mcp.MethodDiscover, mcp.ModernVersion, modernParams(mcp.ModernVersion, nil))
	p.c.Require(m.Error == nil, "server/discover succeeds ("+p.transport+")", "%s", describe(m))
}

// stdioServer starts a fresh stdio server for the check.
func stdioServer(c *run.C) (*stdiotarget.Server, *peer) {
	argv := c.Options().ServerCommand
	if len(argv) == 0 {
		c.Skip(run.NoServerCommand)
	}
	s, err := stdiotarget.Start(argv, stdiotarget.Options{Log: c.Log()})
	if err != nil {
		c.Errorf("the server could not be started: %v", err)
	}
	c.Cleanup(s.Kill)
	return s, newPeer(c, stdioConn{s}, check.Stdio)
}

var _ = stdioServerCheck(check.Descriptor{
	ID:    "server.stdio.stdout-only-jsonrpc",
	Title: "nothing but JSON-RPC messages on stdout, from start to exit, including before the initialize reply",
	Requirement: "A stdio server writes nothing but valid MCP messages to stdout: no banners, log lines or blank lines; " +
		"in the versions without batches (2025-06-18 on) each line holds exactly one message, not an array of them.",
	Rules:    []string{"ST-03", "ST-02", "ST-10"},
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.StdoutBanner, mutant.StdoutBatchLine},
}, func(c *run.C) {
	s, p := stdioServer(c)
	p.open()
	p.request("tools/list", modernParams(mcp.ModernVersion, nil)) // _meta is ignored by a legacy server
	_ = s.CloseStdin()
	s.WaitExit(c.Options().Prompt)
	bad := s.NonMessages()
	c.Require(len(bad) == 0, "only JSON-RPC messages on stdout", "stdout carried %v", bad)
	// open speaks 2025-11-25 or 2026-07-28, neither of which has batches.
	c.RequireRule("ST-10", s.BatchLines() == 0, "each stdout line holds exactly one message",
		"%d line(s) held a JSON-RPC batch array, which this protocol version does not have", s.BatchLines())
})

var _ = stdioServerCheck(check.Descriptor{
	ID:          "server.stdio.exits-on-stdin-eof",
	Title:       "the server exits promptly when its stdin closes",
	Requirement: "A stdio server exits promptly when stdin closes: the only portable graceful signal.",
	Rules:       []string{"LC-21", "LC-20"},
	Level:       check.SHOULD,
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.IgnoresStdinEOF},
}, func(c *run.C) {
	s, p := stdioServer(c)
	p.open()
	_ = s.CloseStdin()
	c.Require(s.WaitExit(c.Options().Prompt), "exit within "+c.Options().Prompt.String()+" of stdin EOF", "the server was still running")
})

var _ = stdioServerCheck(check.Descriptor{
	ID:          "server.stdio.sigterm-ends",
	Title:       "SIGTERM ends the server, and no process of its group survives teardown",
	Requirement: "After stdin close and SIGTERM the server exits; nothing of its process group outlives the teardown.",
	Rules:       []string{"LC-20", "NG-08"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.IgnoresSIGTERM},
}, func(c *run.C) {
	s, p := stdioServer(c)
	p.open()
	_ = s.Signal(15)
	c.Require(s.WaitExit(c.Options().Prompt), "exit within "+c.Options().Prompt.String()+" of SIGTERM", "the server was still running")
	left := s.WaitGroupGone(c.Options().Prompt)
	c.Require(len(left) == 0, "no process of the server's group survives", "%d process(es) of its group still alive: %v", len(left), left)
})
