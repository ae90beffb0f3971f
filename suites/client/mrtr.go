package client

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The input-required round trip of 2026-07-28 (MRTR): the client answers an
// InputRequiredResult by satisfying its input requests and retrying with a
// new id and the requestState exactly as sent, none when none was sent,
// never on another request (MR-06), and never answers an input request for
// a capability it did not declare (EL-02).

var _ = clientCheck(check.Descriptor{
	ID:    "client.mrtr.retry",
	Title: "an InputRequiredResult is retried with a new id, every input answered and the requestState sent back exactly",
	Requirement: "A client satisfies every input request of an InputRequiredResult before it retries, retries with a new JSON-RPC id, " +
		"and echoes requestState byte for byte, sending none when none was given.",
	Rules:    []string{"MR-06", "TL-20"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.MRTRSameID, mutant.MRTRStateAltered},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		x := runCase(c, t, "input-required")
		for _, tool := range []string{fakeservers.ToolAsk, fakeservers.ToolAskStateless} {
			state := fakeservers.RequestState
			if tool == fakeservers.ToolAskStateless {
				state = ""
			}
			r := wantRound(c, t, x, tool)
			c.Require(r.retry.ID.Key() != r.first.ID.Key(), "the retry has a new JSON-RPC id",
				"the retry of %s reused id %s", tool, r.first.ID)
			problem := fakeservers.ReadRetry(r.retry).Problem(r.requests, state)
			c.Require(problem == "", "every input request answered, the requestState echoed exactly (none when none was sent)",
				"the retry of %s: %s", tool, problem)
		}
	})
})

var _ = clientCheck(check.Descriptor{
	ID:          "client.mrtr.state-not-reused",
	Title:       "the answers and requestState of one input round go on no other request",
	Requirement: "A client never carries the inputResponses or requestState of a request's input round onto another request.",
	Rules:       []string{"MR-06"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.MRTRStateReused},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		x := runCase(c, t, "input-required")
		wantRound(c, t, x, fakeservers.ToolAsk)
		// After ask's round come ask-stateless's first call and echo's:
		// neither answers a round, so neither carries a round's members.
		seen := map[string]bool{}
		for _, m := range x.Sent {
			name := toolName(m)
			if name == "" {
				continue
			}
			first := !seen[name]
			seen[name] = true
			if (first || name == fakeservers.ToolEcho) && fakeservers.ReadRetry(m).IsRetry() {
				c.Failf("no inputResponses or requestState on a request that answers no input round",
					"the %s tools/call of %s (id %s) carries them: %s", ordinal(first), name, m.ID, m.Params)
			}
		}
		c.Require(seen[fakeservers.ToolEcho], fmt.Sprintf("a tools/call of %s after the round", fakeservers.ToolEcho),
			"the client never called %s", fakeservers.ToolEcho)
	})
})

var _ = clientCheck(check.Descriptor{
	ID:    "client.mrtr.undeclared-input",
	Title: "an input request for a capability the client did not declare is never answered",
	Requirement: "A client answers only the input requests of capabilities and modes it declared on the request; it never retries with an " +
		"answer to one it did not declare (the server broke MR-04 asking it).",
	Rules:    []string{"MR-06", "EL-02"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.MRTRUndeclaredInput},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		x := runCase(c, t, "input-undeclared")
		first := wantFirstCall(c, t, x, fakeservers.ToolAsk)
		_, what, ok := fakeservers.UndeclaredRequest(fakeservers.Capabilities(first))
		if !ok {
			c.NotApplicable(fmt.Sprintf("over %s the client declares every capability and mode the fake could ask for beyond them (sampling with tools, URL-mode elicitation, roots)", t))
		}
		for _, m := range x.Sent {
			if toolName(m) != fakeservers.ToolAsk {
				continue
			}
			_, answered := fakeservers.ReadRetry(m).InputResponses[fakeservers.UndeclaredKey]
			c.Require(!answered, fmt.Sprintf("no answer to the input request for %s, which the client did not declare", what),
				"the retry (id %s) answers it: %s", m.ID, m.Params)
		}
	})
})

// round is one input round of a tool: its first call, the requests the
// fake asked of it, and the client's retry.
type round struct {
	first, retry *jsonrpc.Message
	requests     map[string]any
}

// wantRound finds tool's input round in what the client sent over t; a
// client that declared nothing to be asked, or did not retry, leaves the
// check nothing to judge.
func wantRound(c *run.C, t check.Transport, x *exchange, tool string) round {
	r := round{first: wantFirstCall(c, t, x, tool)}
	r.requests = fakeservers.InputRequests(fakeservers.Capabilities(r.first))
	if len(r.requests) == 0 {
		c.Unimplemented(fmt.Sprintf("over %s the client declared no elicitation, sampling or roots in its tools/call _meta, so no input was asked of it", t))
	}
	for _, m := range x.Sent {
		if m != r.first && toolName(m) == tool && fakeservers.ReadRetry(m).IsRetry() {
			r.retry = m
			return r
		}
	}
	c.Unimplemented(fmt.Sprintf("over %s the client did not retry %s after its InputRequiredResult; a client of 2026-07-28 satisfies the input requests and retries", t, tool))
	return r
}

// wantFirstCall is the client's first tools/call of tool; a client that
// never called it leaves nothing to judge.
func wantFirstCall(c *run.C, t check.Transport, x *exchange, tool string) *jsonrpc.Message {
	for _, m := range x.Sent {
		if toolName(m) == tool {
			return m
		}
	}
	c.Unimplemented(fmt.Sprintf("over %s the client never called %s; it must call every listed tool", t, tool))
	return nil
}

// toolName is the tool a tools/call request names, "" for any other message.
func toolName(m *jsonrpc.Message) string {
	if m.Kind() != jsonrpc.KindRequest || m.Method != fakeservers.MethodToolsCall {
		return ""
	}
	c, err := fakeservers.ParseCall(m, 0)
	if err != nil {
		return ""
	}
	return c.Name
}

// ordinal names a call "first" or "later".
func ordinal(first bool) string {
	if first {
		return "first"
	}
	return "later"
}
