package server

import (
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// How a server copes with the client's answers to its own requests
// (sampling, elicitation, roots) when they are failures: CX-05 … CX-07,
// EL-07, RT-05, RT-07. The client declares the capability, so the request
// is allowed (LC-11); the check answers it with an error or a refusal, and
// the tool call must still end, with a response of either kind, and the
// server must go on answering.

// reverseAnswer is one way the check answers the server's request.
type reverseAnswer struct {
	what  string // for messages: "error -1", "action decline"
	reply func(id jsonrpc.ID) *jsonrpc.Message
}

// errorAnswer answers with a JSON-RPC error.
func errorAnswer(code int64, message string) reverseAnswer {
	return reverseAnswer{fmt.Sprintf("error %d", code), func(id jsonrpc.ID) *jsonrpc.Message {
		return jsonrpc.NewError(id, code, message)
	}}
}

// actionAnswer answers an elicitation with a result holding only action.
func actionAnswer(action string) reverseAnswer {
	return reverseAnswer{"action " + action, func(id jsonrpc.ID) *jsonrpc.Message {
		m, _ := jsonrpc.NewResult(id, map[string]string{"action": action})
		return m
	}}
}

// reverseCase is one reverse-request check: the client capabilities that
// allow the request, the fixture role that makes it, and the answers tried
// one after the other, each on a fresh tool call.
type reverseCase struct {
	role    string
	caps    map[string]any
	method  string
	answers []reverseAnswer
}

// callAnswering calls f and answers every request of method the server sends
// meanwhile with a; other server requests get -32601, ping gets {}. It
// returns the tool call's response (nil when none came within patience) and
// how many requests of method were answered.
func (p *peer) callAnswering(f run.Fixture, method string, a reverseAnswer, patience time.Duration) (resp *jsonrpc.Message, asked int) {
	resp, sent := p.callReplying(f, func(m *jsonrpc.Message) *jsonrpc.Message {
		if m.Method == method {
			return a.reply(m.ID)
		}
		return otherReply(m)
	}, patience)
	for _, m := range sent {
		if m.Method == method {
			asked++
		}
	}
	return resp, asked
}

// otherReply answers a server request a check does not judge: ping with
// {}, anything else with -32601.
func otherReply(m *jsonrpc.Message) *jsonrpc.Message {
	if m.Method == "ping" {
		reply, _ := jsonrpc.NewResult(m.ID, struct{}{})
		return reply
	}
	return jsonrpc.NewError(m.ID, jsonrpc.CodeMethodNotFound, "mcpconform does not answer "+m.Method+" in this check")
}

// callReplying calls f and answers every request the server sends
// meanwhile with reply. It returns the tool call's response (nil when none
// came within patience) and the requests the server sent.
func (p *peer) callReplying(f run.Fixture, reply func(*jsonrpc.Message) *jsonrpc.Message, patience time.Duration) (resp *jsonrpc.Message, sent []*jsonrpc.Message) {
	id := p.id()
	p.message(id, "tools/call", p.callParams(f, nil))
	isResponse := responseTo(id)
	deadline := time.Now().Add(patience)
	for {
		m := p.wait(func(m *jsonrpc.Message) bool { return isResponse(m) || m.Kind() == jsonrpc.KindRequest }, time.Until(deadline))
		if m == nil || isResponse(m) {
			return m, sent
		}
		sent = append(sent, m)
		b, err := jsonrpc.Encode(reply(m))
		p.c.Require(err == nil, "the check can encode its reply to "+m.Method, "%v", err)
		p.raw(b)
	}
}

// reverseFailureCheck registers a check that answers the server's requests
// of rc.method with each of rc.answers in turn.
func reverseFailureCheck(d check.Descriptor, rc reverseCase) bool {
	d.Serial = true // what the client declared is session state
	return serverCheck(d, func(c *run.C) {
		eachTransport(c, func(p *peer) {
			p.initialize(v1125, rc.caps)
			f := fixture(c, p, rc.role)
			patience := c.Options().Patience
			for _, a := range rc.answers {
				resp, asked := p.callAnswering(f, rc.method, a, patience)
				if asked == 0 && resp != nil {
					// The tool never asked: there is no failure for it to handle.
					c.Unimplemented(fmt.Sprintf("the %s tool %q answered without sending %s to a client that declared it (%s): %s; map a tool that asks the client in the fixtures file",
						rc.role, f.Tool, rc.method, p.transport, describe(resp)))
				}
				c.Require(resp != nil, fmt.Sprintf("the tool call ends with a response (a JSON-RPC error, or a result with or without isError) within %s after %s was answered with %s (%s)",
					patience, rc.method, a.what, p.transport),
					"no response: the server dropped the call or is still waiting (%d %s request(s) answered)", asked, rc.method)
			}
			ping := p.request("ping", nil)
			c.Require(ping.Error == nil, "the server still answers ping ("+p.transport+")", "%s", describe(ping))
		})
	})
}

// bothElicitationModes declares form and URL elicitation, so a fixture of
// either mode may ask.
var bothElicitationModes = map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}

var _ = reverseFailureCheck(check.Descriptor{
	ID:          "server.reverse.sampling-error-handled",
	Title:       "a sampling request answered with an error (the user's refusal, -1) still ends the tool call, and the server stays healthy",
	Requirement: "A failed sampling request (an error reply, a refusal) reaches the handler as an error it handles: the tool call still gets a response.",
	Rules:       []string{"CX-05", "CX-01", "JR-27"},
	KilledBy:    []mutant.Name{mutant.ReverseErrorDropsCall},
}, reverseCase{role: "sampling", caps: map[string]any{"sampling": map[string]any{}}, method: "sampling/createMessage",
	answers: []reverseAnswer{errorAnswer(-1, "the user rejected the sampling request")}})

var _ = reverseFailureCheck(check.Descriptor{
	ID:          "server.reverse.elicitation-error-handled",
	Title:       "an elicitation request answered with an error still ends the tool call, and the server stays healthy",
	Requirement: "A failed elicitation request (an error reply) reaches the handler as an error it handles: the tool call still gets a response.",
	Rules:       []string{"CX-06", "CX-05", "CX-01"},
	KilledBy:    []mutant.Name{mutant.ReverseErrorDropsCall},
}, reverseCase{role: "elicitation", caps: bothElicitationModes, method: "elicitation/create",
	answers: []reverseAnswer{errorAnswer(jsonrpc.CodeInternalError, "the client could not show the form")}})

var _ = reverseFailureCheck(check.Descriptor{
	ID:          "server.reverse.roots-error-handled",
	Title:       "a roots/list request answered with an error still ends the tool call, and the server stays healthy",
	Requirement: "A server copes with a client whose roots are unavailable: an error reply to roots/list reaches the handler as an error, and the tool call still gets a response.",
	Rules:       []string{"RT-07", "RT-05", "CX-07", "CX-05"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.ReverseErrorDropsCall},
}, reverseCase{role: "roots", caps: map[string]any{"roots": map[string]any{}}, method: "roots/list",
	answers: []reverseAnswer{errorAnswer(jsonrpc.CodeInternalError, "the client could not read its roots")}})

var _ = reverseFailureCheck(check.Descriptor{
	ID:          "server.reverse.elicitation-decline-handled",
	Title:       "an elicitation the user declines, or cancels, still ends the tool call, and the server stays healthy",
	Requirement: "An elicitation result has the action accept, decline or cancel; a decline or cancel is an answer the handler handles, and the tool call still gets a response.",
	Rules:       []string{"CX-06", "EL-07"},
	KilledBy:    []mutant.Name{mutant.ElicitDeclineDropsCall},
}, reverseCase{role: "elicitation", caps: bothElicitationModes, method: "elicitation/create",
	answers: []reverseAnswer{actionAnswer("decline"), actionAnswer("cancel")}})
