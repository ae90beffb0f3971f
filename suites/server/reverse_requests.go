package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The shape of the requests a server sends a client (sampling/createMessage,
// elicitation/create): in the legacy era as requests on the connection, in
// 2026-07-28 as the inputRequests of an InputRequiredResult. The check
// calls every tool that asks the client for input, once declaring form
// elicitation, sampling (without tools or context) and roots, once declaring
// URL elicitation only, answers what it is asked as a client would, and
// judges each request by the rules of its version.

// formOnly and urlOnly are the two declarations the check calls under:
// neither declares sampling.tools nor sampling.context (SM-07, SM-08), each
// one elicitation mode (EL-02).
var (
	formOnly = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}}, "roots": map[string]any{}}
	urlOnly  = map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}
)

// asking is one declaration: the capabilities, what they allow, and how
// messages name them.
type asking struct {
	caps      map[string]any
	form, url bool
	name      string
}

var declarations = []asking{
	{formOnly, true, false, "sampling (no tools, no context), roots and form elicitation"},
	{urlOnly, false, true, "URL elicitation only"},
}

// shapeRoles are the fixture roles whose tools send the requests judged.
var shapeRoles = append(slices.Clone(inputRoles), "elicitation-url")

// sentRequest is one request the server sent (or asked for in
// inputRequests), with where it came from for messages.
type sentRequest struct {
	inputRequest
	where string
}

var _ = serverCheck(check.Descriptor{
	ID:    "server.reverse.requests-well-formed",
	Title: "every sampling and elicitation request a server sends is well-formed and asks only for what the client declared",
	Requirement: "An elicitation has a message; form mode a requestedSchema that is a flat object of primitive properties; URL mode a valid url (and an elicitationId in 2025-11-25); " +
		"a mode the client did not declare is never requested. A sampling request sends tools or toolChoice only to a client that declared sampling.tools, includeContext thisServer or allServers only to one that declared sampling.context, " +
		"and its tool_result messages hold nothing else and answer every tool_use of the message before.",
	Rules:    []string{"EL-03", "EL-05", "EL-02", "SM-07", "SM-09", "SM-08"},
	Eras:     check.BothEras,
	Serial:   true, // what the client declared is session state
	KilledBy: []mutant.Name{mutant.ElicitSchemaNested, mutant.ElicitURLWithoutID, mutant.ElicitModeUndeclared, mutant.SamplingToolsUndeclared, mutant.SamplingToolResultMixed, mutant.SamplingContextUndeclared},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		t := check.Transport(p.transport)
		eras := c.ServerEras(t)
		var judged []run.Judgement
		if eras.Legacy || !eras.Modern {
			q := p
			judged = append(judged, c.JudgeInEra(check.Legacy, func() { judgeLegacyRequests(c, q) }))
			p = nil
		}
		if eras.Modern {
			if p == nil {
				p = openPeer(c, t)
			}
			judged = append(judged, c.JudgeInEra(check.Modern, func() { judgeModernRequests(c, p) }))
		}
		c.Conclude(judged)
	})
})

// shapeTools are the tools that ask the client for input, as the tool
// policy lets checks call them; none makes the check UNIMPLEMENTED.
func shapeTools(c *run.C, p *peer) []run.Fixture {
	var out []run.Fixture
	for _, role := range shapeRoles {
		found, _, _ := offeredFixtures(c, p, role)
		for _, f := range found {
			if !slices.ContainsFunc(out, func(g run.Fixture) bool { return g.Tool == f.Tool }) {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		c.Unimplemented("no tool that asks the client for input may be called: map one in a --fixtures file (elicitation, elicitation-url, sampling or input-required: {tool: NAME, arguments: {}})")
	}
	return out
}

// judgeLegacyRequests calls every asking tool in a session per
// declaration, answering the requests the server sends meanwhile.
func judgeLegacyRequests(c *run.C, p *peer) {
	seen := 0
	for i, d := range declarations {
		if i > 0 {
			p = openPeer(c, check.Transport(p.transport))
		}
		version := p.initialize(v1125, d.caps).ProtocolVersion
		if d.url && version < v1125 {
			continue // no URL mode before 2025-11-25
		}
		for _, f := range shapeTools(c, p) {
			_, sent := p.callReplying(f, answerAsClient, c.Options().Patience)
			for _, m := range sent {
				if _, ok := mcp.InputCapability[m.Method]; ok {
					seen++
					judgeRequest(c, version, d, sentRequest{inputRequest{m.Method, m.Params}, fmt.Sprintf("%s's %s, declaring %s (%s, %s)", f.Tool, m.Method, d.name, version, p.transport)})
				}
			}
		}
	}
	if seen == 0 {
		c.Unimplemented("none of the tools that ask the client for input sent sampling/createMessage, elicitation/create or roots/list to a client that declared them")
	}
}

// judgeModernRequests calls every asking tool declaring each declaration
// in turn, retrying with every input answered while it asks.
func judgeModernRequests(c *run.C, p *peer) {
	p.modern = mcp.ModernVersion
	seen := 0
	for _, d := range declarations {
		for _, f := range shapeTools(c, p) {
			a := p.callDeclaring(f, d.caps, nil)
			for round := 0; a.inputRequired() && round < maxInputRounds; round++ {
				for _, key := range a.keys() {
					seen++
					judgeRequest(c, mcp.ModernVersion, d, sentRequest{a.requests[key], fmt.Sprintf("%s's inputRequests[%q], declaring %s (%s)", f.Tool, key, d.name, p.transport)})
				}
				a = p.callDeclaring(f, d.caps, retryWith(a, answers(a)))
			}
		}
	}
	if seen == 0 {
		c.Unimplemented("none of the tools that ask the client for input answered an InputRequiredResult with inputRequests")
	}
}

// answerAsClient answers a request of the server as a client that declared
// what it is asked for: an elicitation accepted, a message of the model,
// one root; others as otherReply does.
func answerAsClient(m *jsonrpc.Message) *jsonrpc.Message {
	if mcp.InputCapability[m.Method] == "" {
		return otherReply(m)
	}
	reply, _ := jsonrpc.NewResult(m.ID, answerTo(inputRequest{m.Method, m.Params}))
	return reply
}

// judgeRequest judges one request by the rules of version, for a client
// that declared d.
func judgeRequest(c *run.C, version string, d asking, r sentRequest) {
	switch r.Method {
	case "elicitation/create":
		rule, problem := elicitationProblem(version, d, r.Params)
		c.RequireRule(rule, problem == "", "a well-formed elicitation/create for the modes declared: "+r.where, "%s in %s", problem, clip(string(r.Params)))
	case "sampling/createMessage":
		rule, problem := samplingProblem(r.Params)
		c.RequireRule(rule, problem == "", "a well-formed sampling/createMessage for the capabilities declared: "+r.where, "%s in %s", problem, clip(string(r.Params)))
	}
}

// elicitationProblem says which rule an elicitation's params break and
// how, "" when none.
func elicitationProblem(version string, d asking, params json.RawMessage) (rule, problem string) {
	var e struct {
		Message         *string         `json:"message"`
		Mode            string          `json:"mode"`
		URL             string          `json:"url"`
		ElicitationID   *string         `json:"elicitationId"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &e) != nil {
		return "EL-03", "params is not an object of the fields an elicitation has"
	}
	modes := version >= v1125
	isURL := modes && e.Mode == "url"
	switch {
	case modes && isURL && !d.url:
		return "EL-02", "a URL-mode elicitation to a client that declared form mode only"
	case modes && !isURL && !d.form:
		return "EL-02", fmt.Sprintf("a form elicitation (mode %q) to a client that declared URL mode only", e.Mode)
	case e.Message == nil:
		return "EL-03", "no message"
	case isURL && !validURL(e.URL):
		return "EL-03", fmt.Sprintf("a URL-mode elicitation whose url %q is not a valid absolute URL", e.URL)
	case isURL && version == v1125 && (e.ElicitationID == nil || *e.ElicitationID == ""):
		return "EL-03", "a URL-mode elicitation without an elicitationId (2025-11-25)"
	case !isURL && e.RequestedSchema == nil:
		return "EL-03", "a form elicitation without requestedSchema"
	case !isURL:
		return "EL-05", formProblem(version, e.RequestedSchema)
	}
	return "", ""
}

// validURL reports whether s is an absolute URL.
func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
}

// primitiveTypes are the types a form's property may have (EL-05); array
// only from 2025-11-25, for multiple choice.
var primitiveTypes = []string{"string", "number", "integer", "boolean"}

// stringFormats are the formats a form's string property may name.
var stringFormats = []string{"email", "uri", "date", "date-time"}

// formProblem says how a requestedSchema is not a flat object of primitive
// properties (EL-05), "" when it is one.
func formProblem(version string, schema json.RawMessage) string {
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || s.Type != "object" || s.Properties == nil {
		return "requestedSchema is not {type: object, properties: {…}}"
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		var f struct {
			Type   string `json:"type"`
			Format string `json:"format"`
			Items  *struct {
				Type  string            `json:"type"`
				Enum  []json.RawMessage `json:"enum"`
				AnyOf []json.RawMessage `json:"anyOf"`
			} `json:"items"`
		}
		if json.Unmarshal(s.Properties[name], &f) != nil {
			return fmt.Sprintf("property %q is not a schema object", name)
		}
		switch {
		case f.Type == "array" && version >= v1125:
			if f.Items == nil || (f.Items.Enum == nil && f.Items.AnyOf == nil) || (f.Items.Type != "" && f.Items.Type != "string") {
				return fmt.Sprintf("property %q is an array whose items are not an enum or anyOf of string choices (multiple choice is the only array a form may hold)", name)
			}
		case !slices.Contains(primitiveTypes, f.Type):
			return fmt.Sprintf("property %q has type %q, not one of %v (no nested objects or arrays)", name, f.Type, primitiveTypes)
		case f.Format != "" && !slices.Contains(stringFormats, f.Format):
			return fmt.Sprintf("property %q has format %q, not one of %v", name, f.Format, stringFormats)
		}
	}
	return ""
}

// samplingProblem says which rule a sampling request's params break for a
// client that declared neither sampling.tools nor sampling.context, and
// how; "" when none.
func samplingProblem(params json.RawMessage) (rule, problem string) {
	var s struct {
		Tools          json.RawMessage   `json:"tools"`
		ToolChoice     json.RawMessage   `json:"toolChoice"`
		IncludeContext string            `json:"includeContext"`
		Messages       []json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(params, &s)
	switch {
	case s.Tools != nil || s.ToolChoice != nil:
		return "SM-07", "tools or toolChoice to a client that did not declare sampling.tools"
	case s.IncludeContext == "thisServer" || s.IncludeContext == "allServers":
		return "SM-08", fmt.Sprintf("includeContext %q to a client that did not declare sampling.context", s.IncludeContext)
	}
	return "SM-09", toolLoopProblem(s.Messages)
}

// samplingBlock is the part of a content block the tool loop rules read.
type samplingBlock struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	ToolUseID string `json:"toolUseId"`
}

// blocksOf reads a sampling message's role and content, one block or a
// list of them.
func blocksOf(raw json.RawMessage) (role string, blocks []samplingBlock) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(raw, &m)
	var one samplingBlock
	if json.Unmarshal(m.Content, &blocks) != nil && json.Unmarshal(m.Content, &one) == nil {
		blocks = []samplingBlock{one}
	}
	return m.Role, blocks
}

// toolLoopProblem says how messages break SM-09: a user message holding
// tool_result blocks holds nothing else, and every assistant tool_use
// message is followed at once by a user message answering each of its ids.
func toolLoopProblem(messages []json.RawMessage) string {
	for i, raw := range messages {
		role, blocks := blocksOf(raw)
		results := 0
		var uses []string
		for _, b := range blocks {
			switch b.Type {
			case "tool_result":
				results++
			case "tool_use":
				uses = append(uses, b.ID)
			}
		}
		if role == "user" && results > 0 && results < len(blocks) {
			return fmt.Sprintf("messages[%d] holds tool_result blocks beside %d block(s) of other types", i, len(blocks)-results)
		}
		if role != "assistant" || len(uses) == 0 {
			continue
		}
		if i+1 == len(messages) {
			return fmt.Sprintf("messages[%d] uses tools %v and no user message answers it", i, uses)
		}
		nextRole, next := blocksOf(messages[i+1])
		for _, id := range uses {
			if nextRole != "user" || !slices.ContainsFunc(next, func(b samplingBlock) bool { return b.Type == "tool_result" && b.ToolUseID == id }) {
				return fmt.Sprintf("messages[%d] uses tool %q and messages[%d] is no user message with its tool_result", i, id, i+1)
			}
		}
	}
	return ""
}
