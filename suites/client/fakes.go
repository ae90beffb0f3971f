package client

import (
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// eachTransport judges body over stdio and over HTTP apart and ends the
// check with the worse verdict; when both pass it returns.
func eachTransport(c *run.C, body func(t check.Transport)) {
	c.Conclude([]run.Judgement{
		c.JudgeOn(check.Stdio, func() { body(check.Stdio) }),
		c.JudgeOn(check.HTTP, func() { body(check.HTTP) }),
	})
}

// fake is what a check asks of the fake of either transport: a case both
// fakes have, in an era.
type fake struct {
	Case       string
	Era        fakeservers.Era
	StrictInit bool
	Delay      time.Duration // the case's delay (slow-start: of its initialize reply)
	RefURL     string        // output-schema: the base URL of its remote $ref
}

// exchange is one adapter run against a fake: what the adapter reported,
// and what the client sent the fake.
type exchange struct {
	*target.Run
	// Sent are the JSON-RPC messages the client sent, in order.
	Sent []*jsonrpc.Message
	// Reached: the fake received something (a line, an HTTP request).
	Reached bool
	// Wire is what carried Sent: each line (stdio) or POST body (HTTP)
	// the client sent, in order.
	Wire []wire
	// Answered is when the fake's response to each of the client's
	// requests, by id key, went out: its line (stdio), the end of the
	// POST that carried the request (HTTP).
	Answered map[string]time.Time
}

// wire is one line or POST body the client sent the fake.
type wire struct {
	At       time.Time          // when the fake received it
	End      time.Time          // when the fake finished answering it (HTTP); At over stdio
	UTF8     bool               // it is UTF-8 (JR-02)
	Messages []*jsonrpc.Message // what it decodes to: one message, a batch's, or none
	Raw      string             // the line or body as sent
}

// runOver runs the client's adapter over transport t against the fake f.
func runOver(c *run.C, t check.Transport, f fake, inv target.Invocation) *exchange {
	if t == check.Stdio {
		r := c.RunStdioClient(stdiofake.Options{Case: f.Case, Era: f.Era, StrictInit: f.StrictInit, Delay: f.Delay, RefURL: f.RefURL}, inv)
		x := &exchange{Run: r.Run, Sent: r.Record.Messages(), Reached: len(r.Record.Lines()) > 0, Answered: map[string]time.Time{}}
		for _, e := range r.Record.Events {
			at := time.Unix(0, e.T)
			switch e.Type {
			case stdiofake.EventRecv:
				x.Wire = append(x.Wire, wire{At: at, End: at, UTF8: e.Detail != stdiofake.DetailNotUTF8, Messages: decoded(e.Line), Raw: e.Line})
			case stdiofake.EventSend:
				for _, m := range decoded(e.Line) {
					if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
						x.Answered[m.ID.Key()] = at
					}
				}
			}
		}
		return x
	}
	r := c.RunHTTPClient(httpfake.Options{Case: f.Case, Era: f.Era, StrictInit: f.StrictInit, Delay: f.Delay, RefURL: f.RefURL}, inv)
	x := &exchange{Run: r.Run, Reached: len(r.Requests) > 0, Answered: map[string]time.Time{}}
	for _, q := range r.Requests {
		x.Sent = append(x.Sent, q.Messages...)
		if q.Method == http.MethodPost {
			x.Wire = append(x.Wire, wire{At: q.Start, End: q.End, UTF8: utf8.ValidString(q.Body), Messages: q.Messages, Raw: q.Body})
		}
		for _, m := range q.Messages {
			if m.Kind() == jsonrpc.KindRequest {
				x.Answered[m.ID.Key()] = q.End
			}
		}
	}
	return x
}

// decoded is the JSON-RPC message a line holds, a batch's messages, or
// none.
func decoded(line string) []*jsonrpc.Message { return fakeservers.DecodeFrame([]byte(line)) }

// runCase runs the client's adapter over t against fake case name of the
// era the check judges, and ends the check as the adapter's harness error
// when the fake received nothing.
func runCase(c *run.C, t check.Transport, name string) *exchange {
	x := runOver(c, t, fake{Case: name}, target.Invocation{})
	wantReached(c, t, x)
	return x
}

// count is how many requests for method the client sent.
func (x *exchange) count(method string) int {
	n := 0
	for _, m := range x.Sent {
		if m.Kind() == jsonrpc.KindRequest && m.Method == method {
			n++
		}
	}
	return n
}
