package http

import (
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// streamKeptVersion is the latest version whose servers keep a POST's SSE
// stream open until its response (HT-23); from 2025-11-25 on a server may
// close the connection once it sent an event id (HT-29a).
const streamKeptVersion = "2025-06-18"

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.sse.open-until-response",
	Title:       "in a 2025-06-18 or 2025-03-26 session, a POST's SSE stream stays open until its response",
	Requirement: "In 2025-03-26 and 2025-06-18 the server does not close a request's SSE stream before it sent the response, unless the session expired.",
	Rules:       []string{"HT-23"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.StreamClosedEarly},
	TakesCensus: true,
	Waits:       []check.Wait{everyToolBudget},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(streamKeptVersion)
	if !slices.Contains([]string{"2025-03-26", streamKeptVersion}, s.Version) {
		c.NotApplicable("the server answered the proposal of " + streamKeptVersion + " with " + s.Version + ", where it may close a stream before the response (HT-29a)")
	}
	for _, r := range callEveryTool(c, p, s) {
		if r.ContentType() != mcp.ContentTypeSSE {
			continue
		}
		answered := slices.ContainsFunc(r.Messages, func(m *jsonrpc.Message) bool {
			return m.Kind() == jsonrpc.KindResult || m.Kind() == jsonrpc.KindError
		})
		c.Require(!r.Dropped && (answered || !r.Ended), "the tool call's SSE stream stays open until its response ("+s.Version+")",
			"the server closed it before the response (what followed came by resumption, if any): %s", r.describe())
	}
})
