package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// JSON-RPC behaviour: JR-05, JR-07, JR-14, JR-20 … JR-23.

var _ = serverCheck(check.Descriptor{
	ID:          "server.jsonrpc.parse-error",
	Title:       "a damaged message gets -32700 with a null id",
	Requirement: "Unparseable JSON is answered with error -32700 (Parse error) and a null or absent id.",
	Rules:       []string{"JR-20", "JR-10"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.ParseErrorWithID},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		p.raw([]byte(`{"jsonrpc":"2.0","id":5,"method":"ping"`))
		m := p.wait(func(m *jsonrpc.Message) bool { return m.Kind() == jsonrpc.KindError }, p.within(c.Options().Prompt))
		if m == nil && p.refusedOverHTTP() {
			return // HT-16: an HTTP error status; the JSON-RPC body is optional
		}
		c.Require(m != nil && m.Error.Code == jsonrpc.CodeParseError && m.ID.IsZero(), "error -32700 with a null id ("+p.transport+")",
			"%s", describe(m))
		p.stillAnswers()
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.jsonrpc.invalid-request",
	Title:       "a well-formed object that is not a valid request gets -32600",
	Requirement: "Well-formed JSON that is not a valid request object (here: a method that is not a string) is answered with -32600 (Invalid Request).",
	Rules:       []string{"JR-21"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.InvalidRequestAsMethodMissing},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		p.raw([]byte(`{"jsonrpc":"2.0","id":6,"method":42}`))
		m := p.wait(func(m *jsonrpc.Message) bool { return m.Kind() == jsonrpc.KindError }, p.within(c.Options().Prompt))
		if m == nil && p.refusedOverHTTP() {
			return // HT-16: an HTTP error status; the JSON-RPC body is optional
		}
		c.Require(m != nil && m.Error.Code == jsonrpc.CodeInvalidRequest, "error -32600 ("+p.transport+")", "%s", describe(m))
		p.stillAnswers()
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.jsonrpc.method-not-found",
	Title:       "an unknown method gets -32601",
	Requirement: "A request for an unknown method is answered with -32601 (Method not found).",
	Rules:       []string{"JR-22"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.UnknownMethodWrongCode},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		m := p.request("mcpconform/no-such-method", map[string]any{})
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeMethodNotFound, "error -32601 ("+p.transport+")", "%s", describe(m))
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.jsonrpc.notification-unanswered",
	Title:       "a notification is never answered, not even an unknown one with an error",
	Requirement: "The receiver of a notification never answers it, not even with an error.",
	Rules:       []string{"JR-14", "JR-13"},
	KilledBy:    []mutant.Name{mutant.AnswersNotifications},
	Waits:       []check.Wait{{What: "responses to the notifications, after the ping that follows them", Setting: check.QuietWindow}},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		p.message(jsonrpc.ID{}, "notifications/mcpconform-unknown", map[string]any{})
		p.message(jsonrpc.ID{}, "notifications/roots/list_changed", nil)
		ping := p.request("ping", nil) // a marker: anything answering the notifications comes before it or soon after
		got := p.quiet(c.QuietWindow())
		for _, m := range append(p.unread, got...) {
			c.Require(m.Kind() != jsonrpc.KindResult && m.Kind() != jsonrpc.KindError, "no response to a notification ("+p.transport+")",
				"a %s with id %s arrived (the ping was %s)", m.Kind(), m.ID, ping.ID)
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.jsonrpc.id-types-echoed",
	Title:       "ids of every JSON type are echoed exactly and never confused",
	Requirement: "A response echoes the id of its request with its JSON type: 7 and \"7\" are different ids.",
	Rules:       []string{"JR-07", "JR-03", "NG-12"},
	KilledBy:    []mutant.Name{mutant.IDTypeChanged},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		for _, id := range []jsonrpc.ID{jsonrpc.IntID(7), jsonrpc.StringID("7"), jsonrpc.StringID("mcpconform-id"), jsonrpc.IntID(-3), jsonrpc.IntID(0)} {
			p.message(id, "ping", nil)
			// The ping is the one request in flight, so the first
			// response is its answer: judged at once, its id's type too.
			m := p.wait(anyResponse, p.patience())
			c.Require(m != nil && m.ID.Key() == id.Key(), fmt.Sprintf("a response with id %s (%s)", id, p.transport), "%s", describe(m))
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.cancel.unknown-id-ignored",
	Title:       "a cancellation for an unknown request is ignored and the server stays healthy",
	Requirement: "Cancellations for unknown or finished requests are silently ignored: no reply, and the server goes on answering.",
	Rules:       []string{"CN-05", "CN-08", "CN-07", "JR-14"},
	Level:       check.MUST,
	KilledBy:    []mutant.Name{mutant.UnknownCancelAnswered},
	Waits:       []check.Wait{{What: "replies to the cancellations, after the last ping", Setting: check.QuietWindow}},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": 424242, "reason": "mcpconform probe"})
		done := p.request("ping", nil)
		p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": done.ID, "reason": "already finished"})
		m := p.request("ping", nil)
		c.Require(m.Error == nil, "the server still answers ping ("+p.transport+")", "%s", describe(m))
		for _, u := range p.quiet(c.QuietWindow()) {
			c.Require(u.Kind() != jsonrpc.KindError && u.Kind() != jsonrpc.KindResult, "no reply to the cancellations", "%s", describe(u))
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.jsonrpc.reused-id-answered",
	Title:       "a request that reuses the id of an answered request is answered again, each method with its own answer",
	Requirement: "A client should never reuse a request id, but a server that meets one after its response went out answers it like any request: a response echoing the id, carrying the new request's own answer.",
	Rules:       []string{"JR-07"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.ReusedIDDropped},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initialize(v1125, nil)
		for _, id := range []jsonrpc.ID{p.id(), jsonrpc.StringID("mcpconform-reused")} {
			first := p.requestWithID(id, "ping", nil)
			c.Require(first.Error == nil, fmt.Sprintf("ping with the fresh id %s succeeds (%s)", id, p.transport), "%s", describe(first))
			again := p.reused(id, "ping", nil)
			c.Require(again.Error == nil && isEmptyObject(again.Result), fmt.Sprintf("the reused ping %s answered {} (%s)", id, p.transport),
				"%s", answered(again))
			// An HTTP server may refuse an unknown method with an HTTP error
			// and no JSON-RPC body (server.jsonrpc.method-not-found judges
			// that); the reuse is judged by the other requests.
			p.message(id, "mcpconform/no-such-method", map[string]any{})
			unknown := p.wait(responseTo(id), p.patience()) // none at all once an HTTP refusal's body has arrived
			if unknown == nil && p.refusedOverHTTP() {
				unknown = &jsonrpc.Message{ID: id, Error: &jsonrpc.Error{}}
			}
			c.Require(unknown != nil, fmt.Sprintf("a response to mcpconform/no-such-method under the reused id %s within %s (%s)", id, c.Options().Patience, p.transport),
				"none: the server dropped the request")
			c.Require(unknown.Error != nil, fmt.Sprintf("an unknown method under the reused id %s gets its own answer, an error (%s)", id, p.transport),
				"a result %s, as if it were the earlier ping", clip(string(unknown.Result)))
			if r.Capabilities["tools"] != nil {
				list := p.reused(id, "tools/list", nil)
				var tl struct {
					Tools []json.RawMessage `json:"tools"`
				}
				_ = json.Unmarshal(list.Result, &tl)
				c.Require(list.Error == nil && tl.Tools != nil, fmt.Sprintf("tools/list under the reused id %s gets a list of tools (%s)", id, p.transport),
					"%s", answered(list))
			}
		}
		p.stillAnswers()
	})
})

// reused sends a request under an id used before and returns its response,
// failing the check when none echoes the id within the run's patience.
func (p *peer) reused(id jsonrpc.ID, method string, params any) *jsonrpc.Message {
	p.message(id, method, params)
	m := p.wait(responseTo(id), p.patience())
	p.c.Require(m != nil, fmt.Sprintf("a response to %s under the reused id %s within %s (%s)", method, id, p.c.Options().Patience, p.transport),
		"%s: the server dropped the request", p.silence(p.patience()))
	return m
}

// refusedOverHTTP reports whether the latest POST got an HTTP 4xx.
func (p *peer) refusedOverHTTP() bool {
	h, ok := p.conn.(*httpConn)
	return ok && h.lastStatus >= 400 && h.lastStatus < 500
}

// stillAnswers fails the check unless the server still answers a ping: a
// server that dies on bad input is the clearest failure of all.
func (p *peer) stillAnswers() {
	m := p.request("ping", nil)
	p.c.Require(m.Error == nil, "the server still answers after the bad message ("+p.transport+")", "%s", describe(m))
}

// answered says what a response answered: its error or its result.
func answered(m *jsonrpc.Message) string {
	switch {
	case m == nil:
		return "no response"
	case m.Error != nil:
		return fmt.Sprintf("error %d %q", m.Error.Code, m.Error.Message)
	}
	return fmt.Sprintf("result %s", clip(string(m.Result)))
}

func describe(m *jsonrpc.Message) string {
	if m == nil {
		return "nothing"
	}
	switch m.Kind() {
	case jsonrpc.KindError:
		return fmt.Sprintf("error %d %q with id %s", m.Error.Code, m.Error.Message, m.ID)
	case jsonrpc.KindNotification:
		return fmt.Sprintf("a notification %s %s", m.Method, clip(string(m.Params)))
	case jsonrpc.KindRequest:
		return fmt.Sprintf("a request %s with id %s", m.Method, m.ID)
	}
	return fmt.Sprintf("a %s with id %s", m.Kind(), m.ID)
}
