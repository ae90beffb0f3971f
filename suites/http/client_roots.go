package http

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.roots.undeclared-method-not-found",
	Title:       "a client without roots answers roots/list with -32601",
	Requirement: "A client that does not support roots (it declared no roots capability) answers a roots/list request with error -32601 (method not found).",
	Rules:       []string{"RT-05"},
	KilledBy:    []mutant.Name{mutant.RootsUndeclaredAnswered},
}, func(c *run.C) {
	// server-request asks for roots/list on the stream of the first call,
	// whatever the client declared.
	r := c.RunHTTPClient(httpfake.Options{Case: "server-request", Tools: 1}, target.Invocation{})
	wantReached(c, r)
	var caps map[string]json.RawMessage
	var reply *jsonrpc.Message
	for _, m := range sentMessages(r) {
		switch {
		case m.Kind() == jsonrpc.KindRequest && m.Method == fakeservers.MethodInitialize:
			caps, _ = fakeservers.Handshake(m)
		case (m.Kind() == jsonrpc.KindError || m.Kind() == jsonrpc.KindResult) && m.ID.Key() == jsonrpc.StringID("srv-1").Key():
			reply = m
		}
	}
	if _, ok := caps["roots"]; ok {
		c.NotApplicable("the client declared roots (" + string(caps["roots"]) + "): the rule is about one that does not support them (client.roots.file-uris judges its answer)")
	}
	c.Require(reply != nil, "a reply to the server's roots/list srv-1", "none was POSTed (calls: %s)", describeCalls(r.Calls))
	answered := "result " + string(reply.Result)
	if reply.Error != nil {
		answered = fmt.Sprintf("error %d %q", reply.Error.Code, reply.Error.Message)
	}
	c.RequireRule("RT-05", reply.Error != nil && reply.Error.Code == jsonrpc.CodeMethodNotFound, "roots/list answered with error -32601 by a client that declared no roots",
		"the client answered %s", answered)
})
