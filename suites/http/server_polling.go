package http

import (
	"fmt"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// SSE streams that a client can resume: the priming event (HT-28), and the
// retry field before the server drops a connection (HT-29a, HT-29b).

// pollingVersion is the first version with priming events and dropped
// connections (HT-28, HT-29a, HT-29b).
const pollingVersion = "2025-11-25"

// pollingSession opens a 2025-11-25 session; one that negotiates an older
// version makes the check N/A.
func pollingSession(c *run.C, p *probe) session {
	s := p.initialize(latestLegacy)
	if s.Version < pollingVersion {
		c.NotApplicable("the session negotiated " + s.Version + "; priming events and dropped connections are rules of " + pollingVersion)
	}
	return s
}

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.sse.priming-event",
	Title:       "every SSE answer opens with a priming event: an id and empty data",
	Requirement: "On opening an SSE stream, the server immediately sends a priming event that has an event id and empty data.",
	Rules:       []string{"HT-28"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.NoPrimingEvent},
	TakesCensus: true,
	Waits:       []check.Wait{everyToolBudget},
}, func(c *run.C) {
	p := newProbe(c)
	s := pollingSession(c, p)
	list, _ := p.call(s, "tools/list", nil, 0)
	streams := 0
	for _, r := range append(callEveryTool(c, p, s), list) {
		if r.ContentType() != mcp.ContentTypeSSE || len(r.Events) == 0 {
			continue
		}
		streams++
		first := r.Events[0]
		c.Require(first.ID != "" && first.Data == "", "a first event with an id and empty data",
			"the first event of an SSE answer has event id %q and %d bytes of data", first.ID, len(first.Data))
	}
	if streams == 0 {
		c.Unimplemented("the server answers every request with application/json: there is no SSE stream to prime")
	}
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.sse.retry-before-close",
	Title:       "a server that closes a POST stream before its response sends retry first, and the response follows on resumption",
	Requirement: "A server may drop the connection of a stream (not the stream) after an event with an id; before it does, it sends a retry field, and the stream goes on when the client resumes.",
	Rules:       []string{"HT-29b", "HT-29a"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.NoRetryField},
	TakesCensus: true,
	Waits:       []check.Wait{everyToolBudget},
}, func(c *run.C) {
	p := newProbe(c)
	s := pollingSession(c, p)
	dropped, resumed := 0, 0
	replies := callEveryTool(c, p, s)
	for _, r := range replies {
		if !r.Dropped {
			continue
		}
		dropped++
		c.Require(r.RetryBeforeDrop, "a retry field before the connection closed", "none on the events before it")
		if r.Cancelled {
			continue // its resumption was cut by the tool budget: not judged
		}
		resumed++
		c.Require(hasResponse(r), "the response on the resumed stream", "%s", r.describe())
	}
	switch {
	case dropped == 0:
		c.Unimplemented("no tool call's stream was closed before its response: the server does not drop connections, so it needs no retry field" + cancelledCalls(replies))
	case resumed == 0:
		c.Unimplemented(fmt.Sprintf("%d tool call(s) had their connection dropped after a retry field, but none was resumed to its response within the tool budget of %s; raise --tool-budget to see the stream go on", dropped, c.ToolBudget()))
	}
})

// hasResponse reports whether a reply carries a response.
func hasResponse(r *reply) bool {
	for _, m := range r.Messages {
		if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
			return true
		}
	}
	return false
}

// cancelledCalls qualifies a verdict drawn from calls some of which were
// cancelled before their response: their streams were not seen to the end.
func cancelledCalls(replies []*reply) string {
	n := 0
	for _, r := range replies {
		if r.Cancelled {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (of %d tool calls, %d were cancelled before their response: whether the server would have dropped their connections was not observed)", len(replies), n)
}
