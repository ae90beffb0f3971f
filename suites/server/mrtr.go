package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// What the checks of multi round-trip requests (2026-07-28, MR-01 …
// MR-08) share: finding the tools that ask the client for input, calling
// them declaring some capabilities, and answering what they ask as a
// client would.

// inputRoles are the fixture roles whose tools ask the client for input.
var inputRoles = []string{"input-required", "elicitation", "sampling", "roots"}

// everyInput declares every capability an input request may need (MR-04).
var everyInput = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}, "roots": map[string]any{}}

// declaringOnly is caps without the capability dropped.
func declaringOnly(caps map[string]any, dropped string) map[string]any {
	out := maps.Clone(caps)
	delete(out, dropped)
	return out
}

// inputRequest is one entry of an InputRequiredResult's inputRequests.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// inputAnswer is what a server answered a request that may ask for input.
type inputAnswer struct {
	m *jsonrpc.Message
	// resultType is the result's, "" without one (or for an error).
	resultType string
	// rawRequests is the result's inputRequests as sent; requests the same
	// decoded, when it is an object of requests.
	rawRequests json.RawMessage
	requests    map[string]inputRequest
	// state is the result's requestState as sent (a JSON value), nil
	// without one.
	state json.RawMessage
	// sent are the requests the server sent on the connection meanwhile.
	sent []string
}

// inputRequired reports whether the answer is an InputRequiredResult.
func (a inputAnswer) inputRequired() bool {
	return a.m.Error == nil && a.resultType == mcp.ResultTypeInputRequired
}

// say is the answer for a message.
func (a inputAnswer) say() string {
	if a.m.Error != nil {
		return answered(a.m)
	}
	return fmt.Sprintf("resultType %q: %s", a.resultType, clip(string(a.m.Result)))
}

// keys are the inputRequests keys, sorted.
func (a inputAnswer) keys() []string { return slices.Sorted(maps.Keys(a.requests)) }

// callDeclaring calls f's tool in the 2026-07-28 era declaring caps, with
// the fields of retry (inputResponses, requestState) added, and reads the
// answer.
func (p *peer) callDeclaring(f run.Fixture, caps map[string]any, retry map[string]any) inputAnswer {
	params := modernParams(mcp.ModernVersion, p.callParams(f, nil))
	params["_meta"].(map[string]any)[mcp.MetaClientCapabilities] = caps
	for k, v := range retry {
		params[k] = v
	}
	p.unread = nil
	a := inputAnswer{m: p.modernRequest("tools/call", mcp.ModernVersion, params)}
	for _, m := range p.unread {
		if m.Kind() == jsonrpc.KindRequest {
			a.sent = append(a.sent, m.Method)
		}
	}
	if a.m.Error != nil {
		return a
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(a.m.Result, &fields)
	_ = json.Unmarshal(fields["resultType"], &a.resultType)
	a.rawRequests, a.state = fields["inputRequests"], fields["requestState"]
	if json.Unmarshal(a.rawRequests, &a.requests) != nil {
		a.requests = nil
	}
	return a
}

// tried is a tool that asks for input, and its answer to a call declaring
// every capability.
type tried struct {
	f run.Fixture
	a inputAnswer
}

// tryInputTools calls, declaring every capability, each tool of the roles
// that ask the client for input: the fixtures file's, else those of the
// official fixture names the server offers, as the tool policy lets checks
// call them. With none to call, the check is UNIMPLEMENTED saying why.
func tryInputTools(c *run.C, p *peer) []tried {
	p.modern = mcp.ModernVersion
	var out []tried
	var left []toolpolicy.LeftAlone
	for _, role := range inputRoles {
		found, _, refused := offeredFixtures(c, p, role)
		left = append(left, refused...)
		for _, f := range found {
			if !slices.ContainsFunc(out, func(t tried) bool { return t.f.Tool == f.Tool }) {
				out = append(out, tried{f, p.callDeclaring(f, everyInput, nil)})
			}
		}
	}
	if len(out) == 0 && len(left) > 0 {
		c.Unimplemented("no tool that asks the client for input may be called: " + toolpolicy.Explain(left))
	}
	if len(out) == 0 {
		c.Unimplemented("no tool asks the client for input: map one in a --fixtures file (input-required, elicitation, sampling or roots: {tool: NAME, arguments: {}}), or offer the official suite's test_input_required_result_* fixtures")
	}
	return out
}

// askingTools are the tools of tryInputTools that answered an
// InputRequiredResult; none makes the check UNIMPLEMENTED.
func askingTools(c *run.C, p *peer) []tried {
	var asking, quiet []string
	var out []tried
	for _, t := range tryInputTools(c, p) {
		if t.a.inputRequired() {
			out = append(out, t)
		} else {
			quiet = append(quiet, fmt.Sprintf("%s: %s", t.f.Tool, t.a.say()))
		}
		asking = append(asking, t.f.Tool)
	}
	if len(out) == 0 {
		c.Unimplemented(fmt.Sprintf("none of the tools that ask the client for input (%s) answered an InputRequiredResult when called declaring every capability (%s)",
			strings.Join(asking, ", "), strings.Join(quiet, "; ")))
	}
	return out
}

// retryWith are the fields of a retry answering responses, with the
// requestState echoed byte for byte when there was one (MR-06).
func retryWith(a inputAnswer, responses map[string]any) map[string]any {
	retry := map[string]any{"inputResponses": responses}
	if a.state != nil {
		retry["requestState"] = a.state
	}
	return retry
}

// answers answers every input request of a as a client would.
func answers(a inputAnswer) map[string]any {
	out := map[string]any{}
	for key, req := range a.requests {
		out[key] = answerTo(req)
	}
	return out
}

// answerTo is a client's result for an input request: an elicitation
// accepted with a value for every field of its form, a message of the
// model, one root.
func answerTo(req inputRequest) any {
	switch req.Method {
	case "sampling/createMessage":
		return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "mcpconform"}, "model": "mcpconform", "stopReason": "endTurn"}
	case "roots/list":
		return map[string]any{"roots": []any{map[string]any{"uri": "file:///mcpconform", "name": "mcpconform"}}}
	}
	var p struct {
		Mode            string `json:"mode"`
		RequestedSchema struct {
			Properties map[string]fieldSchema `json:"properties"`
		} `json:"requestedSchema"`
	}
	_ = json.Unmarshal(req.Params, &p)
	if p.Mode == "url" {
		return map[string]any{"action": "accept"}
	}
	content := map[string]any{}
	for name, field := range p.RequestedSchema.Properties {
		content[name] = field.value()
	}
	return map[string]any{"action": "accept", "content": content}
}

// fieldSchema is one field of an elicitation form (EL-05).
type fieldSchema struct {
	Type    string            `json:"type"`
	Format  string            `json:"format"`
	Default json.RawMessage   `json:"default"`
	Enum    []json.RawMessage `json:"enum"`
	OneOf   []struct {
		Const json.RawMessage `json:"const"`
	} `json:"oneOf"`
	Minimum *float64 `json:"minimum"`
	Items   struct {
		Enum  []json.RawMessage `json:"enum"`
		AnyOf []struct {
			Const json.RawMessage `json:"const"`
		} `json:"anyOf"`
	} `json:"items"`
}

// value is a value the field accepts: its default, its first choice, else
// one of its type.
func (f fieldSchema) value() any {
	switch {
	case f.Default != nil:
		return f.Default
	case len(f.Enum) > 0:
		return f.Enum[0]
	case len(f.OneOf) > 0:
		return f.OneOf[0].Const
	case f.Type == "array" && len(f.Items.Enum) > 0:
		return []any{f.Items.Enum[0]}
	case f.Type == "array" && len(f.Items.AnyOf) > 0:
		return []any{f.Items.AnyOf[0].Const}
	case f.Type == "array":
		return []any{}
	case f.Type == "boolean":
		return true
	case (f.Type == "number" || f.Type == "integer") && f.Minimum != nil:
		return *f.Minimum
	case f.Type == "number" || f.Type == "integer":
		return 1
	}
	switch f.Format {
	case "email":
		return "mcpconform@example.com"
	case "uri":
		return "https://example.com/"
	case "date":
		return "2026-07-28"
	case "date-time":
		return "2026-07-28T00:00:00Z"
	}
	return "mcpconform"
}

// objectKeys lists the member names of a JSON object in order, duplicates
// kept; ok is false when raw is not an object.
func objectKeys(raw json.RawMessage) (keys []string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil, false
		}
	}
	return keys, true
}
