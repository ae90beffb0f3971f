package client

import (
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The ids of a 2026-07-28 client's requests in flight together: unique
// among them (JR-06), though an id may come back once its request is
// answered.

// heldCalls is how many tools the fakes of client.ids.in-flight-unique
// offer, each called at once by a client told to call concurrently.
const heldCalls = 4

// callHold is how long its HTTP fake holds each call before answering it,
// and its stdio fake the first call while the others come.
const callHold = 300 * time.Millisecond

var _ = clientCheck(check.Descriptor{
	ID:    "client.ids.in-flight-unique",
	Title: "a 2026-07-28 client never gives a request the id of one of its requests still unanswered",
	Requirement: "With its tool calls issued concurrently against a server that holds them unanswered together, the client gives no request the id of one of " +
		"its own requests still in flight (JR-06; an id may come back once its request is answered).",
	Rules:    []string{"JR-06"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.InFlightIDReused},
}, func(c *run.C) {
	c.Unordered()
	eachTransport(c, func(t check.Transport) {
		var held [][]*jsonrpc.Message
		var calls []target.Call
		if t == check.Stdio {
			r := c.RunStdioClient(stdiofake.Options{Case: "reverse-order", Tools: heldCalls, Delay: callHold}, target.Invocation{Parallel: true})
			held, calls = heldOverStdio(r.Record), r.Calls
		} else {
			r := c.RunHTTPClient(httpfake.Options{Case: "slow-calls", Tools: heldCalls, Delay: callHold}, target.Invocation{Parallel: true})
			held, calls = heldOverHTTP(r.Requests, callHold), r.Calls
		}
		if len(held) == 0 {
			c.Unimplemented(fmt.Sprintf("over %s no two tool calls were in flight together (calls: %s): %s", t, run.DescribeCalls(calls), run.ParallelAsked))
		}
		for _, together := range held {
			seen := map[string]string{}
			for _, m := range together {
				earlier, reused := seen[m.ID.Key()]
				c.RequireRule("JR-06", !reused, "no request with the id of one of the client's requests still unanswered",
					"over %s the client sent %s with id %s while its %s with that id was unanswered", t, m.Method, m.ID, earlier)
				seen[m.ID.Key()] = m.Method
			}
		}
	})
})

// heldOverStdio is the set of tools/call requests the reverse-order fake
// held together: those it received before it answered any, when they are
// all heldCalls of them (it answers none until they are, or its window
// passed, which leaves fewer); none otherwise.
func heldOverStdio(rec *stdiofake.Record) [][]*jsonrpc.Message {
	var calls []*jsonrpc.Message
	for _, e := range rec.Events {
		m, err := jsonrpc.Decode([]byte(e.Line))
		if err != nil {
			continue
		}
		if e.Type == stdiofake.EventRecv && m.Kind() == jsonrpc.KindRequest && m.Method == "tools/call" {
			calls = append(calls, m)
		}
		if e.Type == stdiofake.EventSend && m.Method == "" && len(calls) > 0 {
			break
		}
	}
	if len(calls) < heldCalls {
		return nil
	}
	return [][]*jsonrpc.Message{calls}
}

// heldOverHTTP is, for each tools/call POST of the slow-calls fake, which
// holds each call hold from its arrival, the calls that arrived while it
// was held (itself first), when there are any.
func heldOverHTTP(reqs []httpfake.Request, hold time.Duration) [][]*jsonrpc.Message {
	var posts []httpfake.Request
	for _, q := range reqs {
		if len(q.Messages) == 1 && q.Messages[0].Kind() == jsonrpc.KindRequest && q.Messages[0].Method == "tools/call" {
			posts = append(posts, q)
		}
	}
	var held [][]*jsonrpc.Message
	for _, a := range posts {
		together := []*jsonrpc.Message{a.Messages[0]}
		for _, b := range posts {
			if b.Start.After(a.Start) && b.Start.Before(a.Start.Add(hold)) {
				together = append(together, b.Messages[0])
			}
		}
		if len(together) > 1 {
			held = append(held, together)
		}
	}
	return held
}
