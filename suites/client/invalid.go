package client

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A JSON object from the server that is no valid request (JR-21, inherited
// from JSON-RPC 2.0): the client answers it with -32600 and goes on. Legacy
// era only: a 2026-07-28 client sends no responses at all (JR-17). Over
// stdio an object that parses is no damaged line (NG-01, NG-02 end the
// session only for lines that do not parse and JSON that is no object),
// so the hardened profile asks the same; over HTTP the objects come as
// events of the call's SSE stream and the answers as POSTs, like any reply
// to a server request.

var _ = clientCheck(check.Descriptor{
	ID:    "client.jsonrpc.invalid-request",
	Title: "a JSON object from the server that is no valid request is answered with -32600, and the client goes on",
	Requirement: "Legacy era, against a server that during a tool call sends JSON objects that are no valid request (jsonrpc \"1.0\"; neither method nor result " +
		"nor error; an id that is an object), over stdio each a line, over HTTP each an SSE event of the call's stream: the client answers each with error -32600 " +
		"(Invalid Request), carrying the object's id when it can read one, else null, and goes on, its tool call succeeding (JR-21, a SHOULD inherited from JSON-RPC 2.0).",
	Rules:    []string{"JR-21"},
	Level:    check.SHOULD,
	KilledBy: []mutant.Name{mutant.InvalidRequestUnanswered, mutant.InvalidRequestFatal},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		// The fake awaits the answers for a prompt, not a sleep: it sends
		// the call's result as soon as the last one came.
		x := runOver(c, t, fake{Case: "invalid-request", Delay: c.Options().Prompt}, target.Invocation{})
		wantReached(c, t, x)
		if x.count(fakeservers.MethodToolsCall) == 0 {
			c.Unimplemented(fmt.Sprintf("over %s the client called no tool, so the server had no call to send the invalid objects during; an adapter calls every listed tool", t))
		}
		answers := map[string]*jsonrpc.Message{}
		for _, m := range x.Sent {
			if k := m.Kind(); (k == jsonrpc.KindResult || k == jsonrpc.KindError) && answers[m.ID.Key()] == nil {
				answers[m.ID.Key()] = m
			}
		}
		for _, obj := range fakeservers.InvalidObjects {
			m, ok := answers[obj.ID.Key()]
			c.Require(ok && m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("the object %s (%s) answered with error -32600 and the id %s", obj.Line, obj.Flaw, obj.ID),
				"over %s the client answered it with %s; its tool calls: %s", t, answerOrNone(m, ok), run.DescribeCalls(x.Calls))
		}
		c.WantAllCallsOK(x.Output, 1)
	})
})
