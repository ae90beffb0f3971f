package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Multi round-trip requests (2026-07-28): a server asks the client for
// input only through an InputRequiredResult (MR-01 … MR-08). The checks
// find the tools that ask (tryInputTools) and play the client.

var _ = serverCheck(check.Descriptor{
	ID:          "server.mrtr.input-required",
	Title:       "a tool that needs the client's input asks for it in an InputRequiredResult with well-formed inputRequests, never by a request",
	Requirement: `Requests for client input (sampling, elicitation, roots) are made only by returning an InputRequiredResult (resultType "input_required") with inputRequests and/or requestState; inputRequests is an object whose unique keys name elicitation/create, sampling/createMessage or roots/list requests; servers never send requests.`,
	Rules:       []string{"MR-01", "MR-03", "JR-17"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.InputRequestsAsList},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		var asked []string
		for _, t := range tryInputTools(c, p) {
			where := fmt.Sprintf("%s, declaring every capability (%s)", t.f.Tool, p.transport)
			c.Require(len(t.a.sent) == 0, "input asked for in an InputRequiredResult, no request to the client: "+where, "it sent %s", strings.Join(t.a.sent, ", "))
			c.Require(t.a.inputRequired() || t.a.rawRequests == nil, `inputRequests only in a result of resultType "input_required": `+where, "%s", t.a.say())
			if !t.a.inputRequired() {
				continue
			}
			asked = append(asked, t.f.Tool)
			problem := malformed(t.a)
			c.Require(problem == "", "a well-formed InputRequiredResult: "+where, "%s in %s", problem, clip(string(t.a.m.Result)))
		}
		if len(asked) == 0 {
			c.Unimplemented("none of the tools that ask the client for input answered an InputRequiredResult when called declaring every capability: map one that does in a --fixtures file (input-required: {tool: NAME, arguments: {}})")
		}
	})
})

// malformed says what is wrong with an InputRequiredResult (MR-03), ""
// when nothing is.
func malformed(a inputAnswer) string {
	if a.rawRequests == nil && a.state == nil {
		return "neither inputRequests nor requestState"
	}
	var state string
	if a.state != nil && (json.Unmarshal(a.state, &state) != nil || state == "") {
		return "requestState is not a non-empty string"
	}
	if a.rawRequests == nil {
		return ""
	}
	keys, ok := objectKeys(a.rawRequests)
	if !ok || a.requests == nil {
		return "inputRequests is not an object of {method, params} requests by key"
	}
	for i, key := range keys {
		if key == "" || slices.Contains(keys[:i], key) {
			return fmt.Sprintf("inputRequests key %q is empty or not unique", key)
		}
	}
	for _, key := range a.keys() {
		if problem := requestProblem(a.requests[key]); problem != "" {
			return fmt.Sprintf("inputRequests[%q]: %s", key, problem)
		}
	}
	return ""
}

// requestProblem says what is wrong with one input request, "" when
// nothing is.
func requestProblem(req inputRequest) string {
	var p map[string]json.RawMessage
	if req.Params != nil && json.Unmarshal(req.Params, &p) != nil {
		return "params is not an object"
	}
	switch req.Method {
	case "elicitation/create":
		var e struct {
			Message         *string `json:"message"`
			Mode            string  `json:"mode"`
			URL             string  `json:"url"`
			RequestedSchema struct {
				Type       string          `json:"type"`
				Properties json.RawMessage `json:"properties"`
			} `json:"requestedSchema"`
		}
		_ = json.Unmarshal(req.Params, &e)
		switch {
		case e.Message == nil:
			return "an elicitation without params.message"
		case e.Mode == "url" && e.URL == "":
			return "a URL-mode elicitation without params.url"
		case e.Mode != "url" && (e.RequestedSchema.Type != "object" || len(e.RequestedSchema.Properties) == 0 || e.RequestedSchema.Properties[0] != '{'):
			return "a form elicitation whose params.requestedSchema is not {type: object, properties: {…}}"
		}
	case "sampling/createMessage":
		if p["messages"] == nil || p["maxTokens"] == nil {
			return "a sampling request without params.messages and params.maxTokens"
		}
	case "roots/list":
	default:
		return fmt.Sprintf("method %q is none of elicitation/create, sampling/createMessage, roots/list", req.Method)
	}
	return ""
}

// notInputMethods are requests of methods that may not be answered with an
// InputRequiredResult (MR-02), whose params need nothing but _meta.
var notInputMethods = []string{mcp.MethodDiscover, "tools/list", "prompts/list", "resources/list", "resources/templates/list"}

var _ = serverCheck(check.Descriptor{
	ID:          "server.mrtr.only-its-methods",
	Title:       "server/discover and the lists never answer an InputRequiredResult, even to a request declaring every capability",
	Requirement: "Only tools/call, resources/read and prompts/get may be answered with an InputRequiredResult; never any other method.",
	Rules:       []string{"MR-02"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.InputRequiredOnList},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		for _, method := range notInputMethods {
			params := modernParams(mcp.ModernVersion, nil)
			params["_meta"].(map[string]any)[mcp.MetaClientCapabilities] = everyInput
			m := p.modernRequest(method, mcp.ModernVersion, params)
			var r struct {
				ResultType string `json:"resultType"`
			}
			if m.Error == nil {
				_ = json.Unmarshal(m.Result, &r)
			}
			c.Require(r.ResultType != mcp.ResultTypeInputRequired, fmt.Sprintf("%s answered without an InputRequiredResult (%s)", method, p.transport), "%s", clip(string(m.Result)))
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.mrtr.declared-capabilities-only",
	Title:       "a tool asks only for the input whose capability the request declares",
	Requirement: "No input request for a capability the client did not declare on that request: called declaring all but one of the capabilities it asked for, or none, a tool asks for none it lacks.",
	Rules:       []string{"MR-04"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.InputRequestUndeclared},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		for _, t := range askingTools(c, p) {
			needs := map[string]bool{}
			for _, req := range t.a.requests {
				needs[mcp.InputCapability[req.Method]] = true
			}
			declarations := []map[string]any{{}}
			for capability := range needs {
				declarations = append(declarations, declaringOnly(everyInput, capability))
			}
			for _, caps := range declarations {
				a := p.callDeclaring(t.f, caps, nil)
				for _, key := range a.keys() {
					capability := mcp.InputCapability[a.requests[key].Method]
					c.Require(caps[capability] != nil, fmt.Sprintf("%s, declaring %s, asks for nothing that needs %s (%s)", t.f.Tool, declared(caps), capability, p.transport),
						"inputRequests[%q] asks for %s", key, a.requests[key].Method)
				}
			}
		}
	})
})

// declared names the capabilities caps declares.
func declared(caps map[string]any) string {
	if len(caps) == 0 {
		return "no capability"
	}
	names := make([]string, 0, len(caps))
	for name := range caps {
		names = append(names, name)
	}
	slices.Sort(names)
	return "only " + strings.Join(names, ", ")
}

// alterations are requestStates an attacker could send instead of state
// (a JSON string): one with a suffix, one with a character changed.
func alterations(state json.RawMessage) []string {
	var s string
	_ = json.Unmarshal(state, &s)
	b := []byte(s)
	mid := len(b) / 2
	if b[mid] == 'A' {
		b[mid] = 'B'
	} else {
		b[mid] = 'A'
	}
	return []string{s + "-TAMPERED", string(b)}
}

var _ = serverCheck(check.Descriptor{
	ID:          "server.mrtr.tampered-state-rejected",
	Title:       "a retry echoing an altered requestState gets a JSON-RPC error",
	Requirement: "requestState is attacker-controlled input: a server verifies it and rejects state that fails verification.",
	Rules:       []string{"MR-05"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.RequestStateUnverified},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		altered := 0
		for _, t := range askingTools(c, p) {
			var state string
			if json.Unmarshal(t.a.state, &state) != nil || state == "" {
				continue
			}
			for _, bad := range alterations(t.a.state) {
				altered++
				a := p.callDeclaring(t.f, everyInput, map[string]any{"inputResponses": answers(t.a), "requestState": bad})
				c.Require(a.m.Error != nil, fmt.Sprintf("%s answers a retry whose requestState was altered (%s) with a JSON-RPC error (%s)", t.f.Tool, clip(bad), p.transport), "%s", a.say())
			}
		}
		if altered == 0 {
			c.Unimplemented("none of the tools that asked for input gave a requestState to alter")
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.mrtr.state-bound",
	Title:       "a retry echoing the requestState another tool gave gets a JSON-RPC error",
	Requirement: "A server binds requestState to the request that it answered (and to a short expiry), and rejects one echoed on another request.",
	Rules:       []string{"MR-05"},
	Level:       check.SHOULD,
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.RequestStateUnbound},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		var stated []tried
		for _, t := range askingTools(c, p) {
			if t.a.state != nil {
				stated = append(stated, t)
			}
		}
		if len(stated) < 2 {
			c.Unimplemented(fmt.Sprintf("%d of the tools that asked for input gave a requestState; echoing one on another request needs two", len(stated)))
		}
		compared := 0
		for i, t := range stated {
			other := stated[(i+1)%len(stated)]
			foreign := p.callDeclaring(other.f, everyInput, nil).state // a requestState of its own: one may serve only once
			if own := p.callDeclaring(t.f, everyInput, retryWith(t.a, answers(t.a))); own.m.Error != nil || foreign == nil {
				continue // its own state refused, or none to borrow: what a foreign one changes cannot be told
			}
			compared++
			a := p.callDeclaring(t.f, everyInput, map[string]any{"inputResponses": answers(t.a), "requestState": foreign})
			c.Require(a.m.Error != nil, fmt.Sprintf("%s answers a retry echoing the requestState %s gave with a JSON-RPC error (%s)", t.f.Tool, other.f.Tool, p.transport), "%s", a.say())
		}
		if compared == 0 {
			c.Unimplemented("no tool that asked for input served a retry echoing its own requestState, so what a foreign one changes cannot be told")
		}
	})
})

// unasked is a key no server asked for, and an answer under it.
const unasked = "mcpconform-unasked"

var unaskedAnswer = map[string]any{"action": "accept", "content": map[string]any{"mcpconform": "unasked"}}

var _ = serverCheck(check.Descriptor{
	ID:          "server.mrtr.missing-input-asked-again",
	Title:       "a retry that lacks the input asked for gets a new InputRequiredResult, not an error",
	Requirement: "If needed input is missing from inputResponses, the server asks again with a new InputRequiredResult rather than failing.",
	Rules:       []string{"MR-07"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.MissingInputError},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		for _, t := range askingTools(c, p) {
			if len(t.a.requests) == 0 {
				continue
			}
			a := p.callDeclaring(t.f, everyInput, retryWith(t.a, map[string]any{unasked: unaskedAnswer}))
			c.Require(a.inputRequired(), fmt.Sprintf("%s, retried with an answer to none of %v, asks again in an InputRequiredResult (%s)", t.f.Tool, t.a.keys(), p.transport), "%s", a.say())
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.mrtr.unknown-responses-ignored",
	Title:       "a retry that answers every input request plus one never asked for is served as without it",
	Requirement: "A server ignores unknown extra entries of inputResponses.",
	Rules:       []string{"MR-07"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.ExtraInputResponseRejected},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		compared := 0
		for _, t := range askingTools(c, p) {
			plain := p.callDeclaring(t.f, everyInput, retryWith(t.a, answers(t.a)))
			if plain.m.Error != nil {
				continue // what the extra answer changes cannot be told
			}
			compared++
			fresh := p.callDeclaring(t.f, everyInput, nil) // a requestState of its own: one may serve only once
			extra := answers(fresh)
			extra[unasked] = unaskedAnswer
			a := p.callDeclaring(t.f, everyInput, retryWith(fresh, extra))
			c.Require(a.m.Error == nil && a.resultType == plain.resultType,
				fmt.Sprintf("%s answers a retry with an extra answer %q as without it: resultType %q (%s)", t.f.Tool, unasked, plain.resultType, p.transport), "%s", a.say())
		}
		if compared == 0 {
			c.Unimplemented("no tool that asked for input served a retry answering what it asked, so what an extra answer changes cannot be told")
		}
	})
})

// maxInputRounds is how many retries a request needing input gets to
// complete in: more rounds than any flow the checks know needs.
const maxInputRounds = 8

var _ = serverCheck(check.Descriptor{
	ID:          "server.mrtr.completes",
	Title:       "a request retried with every input request answered and the requestState echoed completes",
	Requirement: "A server takes valid inputResponses, with the requestState it issued echoed unchanged, and completes the request (a retry uses a new JSON-RPC id).",
	Rules:       []string{"MR-07", "TL-20"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.RequestStateRejected},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		for _, t := range askingTools(c, p) {
			a, rounds := t.a, 0
			for a.inputRequired() && rounds < maxInputRounds {
				rounds++
				a = p.callDeclaring(t.f, everyInput, retryWith(a, answers(a)))
				c.Require(a.m.Error == nil, fmt.Sprintf("%s serves retry %d, which answers every input request and echoes the requestState (%s)", t.f.Tool, rounds, p.transport), "%s", a.say())
			}
			c.Require(!a.inputRequired(), fmt.Sprintf("%s completes within %d retries (%s)", t.f.Tool, maxInputRounds, p.transport), "it still asks for %v", a.keys())
		}
	})
})
