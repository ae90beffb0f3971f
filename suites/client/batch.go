package client

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// JSON-RPC batches, which 2025-03-26 alone has: a client that goes on in
// that version when the server answers initialize with it accepts the
// batches the server sends and answers each request in them, never batches
// initialize, and over HTTP posts only batches of one kind.

// batchPatience is how long the fake of client.batch.answered waits for the
// answers to the pings of its batch before it sends the call's result.
const batchPatience = time.Second

var _ = clientCheck(check.Descriptor{
	ID:    "client.batch.answered",
	Title: "a client in 2025-03-26 answers each request of a batch the server sends, never batches initialize, and posts batches of one kind only",
	Requirement: "Against a server that answers initialize with 2025-03-26 (a server may answer with an older version it supports; a client that does not speak it disconnects) " +
		"and, during a tool call, sends one batch of a notification and two pings: the client accepts the batch and answers each ping (JR-35); it never puts " +
		"initialize in a batch (JR-36); over HTTP every POST body is one message, or a batch of requests and notifications only, or of responses only (HT-12).",
	Rules:    []string{"JR-35", "JR-36", "HT-12"},
	KilledBy: []mutant.Name{mutant.BatchDropped, mutant.InitializeBatched, mutant.ReplyBatchMixed},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		x := runOver(c, t, fake{Case: "batch", Delay: batchPatience}, target.Invocation{})
		wantReached(c, t, x)
		for _, w := range x.Wire {
			c.RequireRule("JR-36", !isBatch(w.Raw) || !slices.ContainsFunc(w.Messages, isInitialize), "initialize never inside a batch",
				"over %s the client sent %s", t, clip(w.Raw))
			if t == check.HTTP {
				problem := batchBodyProblem(w.Raw)
				c.RequireRule("HT-12", problem == "", "every POST body one message, or a batch of requests and notifications only, or of responses only",
					"a POST body %s: %s", problem, clip(w.Raw))
			}
		}
		if x.count(fakeservers.MethodToolsCall) == 0 {
			c.Unimplemented(fmt.Sprintf("over %s the client did not go on after the server answered initialize with %s (it called no tool): it does not speak %s, "+
				"the one version with batches; a client that speaks it goes on and calls the tools", t, fakeservers.BatchVersion, fakeservers.BatchVersion))
		}
		answered := map[string]string{}
		for _, m := range x.Sent {
			if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
				answered[m.ID.Key()] = describeAnswer(m)
			}
		}
		for _, id := range fakeservers.BatchPingIDs {
			a, ok := answered[id.Key()]
			c.RequireRule("JR-35", ok && strings.HasPrefix(a, "result"),
				fmt.Sprintf("each request of the batch the server sent answered: the ping %s with a result", id),
				"over %s the client answered it with %s; its tool calls: %s", t, cmp.Or(a, "nothing"), run.DescribeCalls(x.Calls))
		}
	})
})

// isBatch reports whether line or body raw is a JSON array.
func isBatch(raw string) bool { return strings.HasPrefix(strings.TrimSpace(raw), "[") }

// isInitialize reports whether m is an initialize request.
func isInitialize(m *jsonrpc.Message) bool {
	return m.Kind() == jsonrpc.KindRequest && m.Method == fakeservers.MethodInitialize
}

// batchBodyProblem says how POST body raw, when it is a batch, breaks the
// shapes 2025-03-26 allows (HT-12): empty, an element that is no object, or
// requests and notifications mixed with responses; "" when it does not.
func batchBodyProblem(raw string) string {
	if !isBatch(raw) {
		return ""
	}
	var elems []json.RawMessage
	if json.Unmarshal([]byte(raw), &elems) != nil || len(elems) == 0 {
		return "is an empty or unreadable array"
	}
	calls := 0
	for i, e := range elems {
		var o map[string]json.RawMessage
		if json.Unmarshal(e, &o) != nil || o == nil {
			return fmt.Sprintf("holds element %d that is not an object", i+1)
		}
		if _, ok := o["method"]; ok {
			calls++
		}
	}
	if calls > 0 && calls < len(elems) {
		return fmt.Sprintf("mixes %d requests or notifications with %d responses", calls, len(elems)-calls)
	}
	return ""
}
