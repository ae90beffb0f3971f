package fuzz

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// The schema oracles: every message of the server against the negotiated
// version's JSON Schema (SchemaValid), and structured tool output against
// the outputSchema the session's own tools/list declared (OutputSchema).
// Both judge only what the run can pin down: a version the server
// negotiated in this run and that has a published schema, a response whose
// request's method is known (an id sent twice with two methods is judged
// by the generic response), a tool whose schema this session listed.

// structuredSince is the first version with outputSchema and
// structuredContent (TL-12).
const structuredSince = "2025-06-18"

// checkSchema validates m against the schema of the negotiated version;
// answers is the method of the request a response answers ("" unknown).
// true means a MUST break ended the run.
func (r *run) checkSchema(m *jsonrpc.Message, answers string) bool {
	if r.version == "" {
		return false
	}
	s, err := wireschema.For(r.version)
	if err != nil {
		return false // a version without a schema: the checks judge it
	}
	raw, err := jsonrpc.Encode(m)
	if err != nil {
		return false
	}
	v := s.Validate(raw, answers)
	if v == nil {
		return false
	}
	r.fail(SchemaValid, v.Definition, v.Error())
	return true
}

// learnTools keeps the outputSchemas a tools/list result declares.
func (r *run) learnTools(result json.RawMessage) {
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &list) != nil {
		return
	}
	for _, t := range list.Tools {
		r.learnOutput(t.Name, t.OutputSchema)
	}
}

// learnOutputs keeps the outputSchemas of outputs, by tool name.
func (r *run) learnOutputs(outputs map[string]json.RawMessage) {
	for name, raw := range outputs {
		r.learnOutput(name, raw)
	}
}

func (r *run) learnOutput(tool string, raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	if s := compileOutput(raw); s != nil {
		if r.outputs == nil {
			r.outputs = map[string]*outputSchema{}
		}
		r.outputs[tool] = s
	}
}

// outputSchema is a tool's outputSchema, compiled, with its text.
type outputSchema struct {
	s    *wireschema.ToolSchema
	text string
}

// compiled caches outputSchemas by their text: a session lists the same
// tools again and again.
var compiled sync.Map // string → *outputSchema (nil for one that does not compile)

// compileOutput compiles raw once; nil when it does not compile (the
// checks judge that, TL-03): such a tool's output is not judged.
func compileOutput(raw json.RawMessage) *outputSchema {
	if s, ok := compiled.Load(string(raw)); ok {
		return s.(*outputSchema)
	}
	var out *outputSchema
	if s, err := wireschema.CompileToolSchema(raw); err == nil {
		out = &outputSchema{s: s, text: string(raw)}
	}
	compiled.Store(string(raw), out)
	return out
}

// checkOutput judges a tools/call result of tool against the outputSchema
// the session listed for it; true means a MUST break ended the run.
func (r *run) checkOutput(tool string, result json.RawMessage) bool {
	s := r.outputs[tool]
	if s == nil || r.version < structuredSince {
		return false
	}
	var res struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(result, &res) != nil || res.IsError {
		return false // a failed call owes no structuredContent
	}
	if len(res.StructuredContent) == 0 {
		r.fail(OutputSchema, "missing", fmt.Sprintf("tool %s declares an outputSchema but its successful result (%s) has no structuredContent", tool, r.version))
		return true
	}
	if why := s.s.Validate(res.StructuredContent); why != "" {
		r.fail(OutputSchema, "invalid", fmt.Sprintf("the structuredContent of tool %s does not conform to its outputSchema (%s): %s; structuredContent %s, outputSchema %s",
			tool, r.version, why, clip(string(res.StructuredContent), 200), clip(s.text, 200)))
		return true
	}
	return false
}

// toolOf is the tool name a tools/call request names, "" for none.
func toolOf(m *jsonrpc.Message) string {
	if m.Method != "tools/call" {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Name
}

// outputsOf adds the outputSchemas of tools to those given (which win: a
// caller's own list).
func outputsOf(tools []Tool, given map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, t := range tools {
		if len(t.Output) > 0 && string(t.Output) != "null" {
			out[t.Name] = t.Output
		}
	}
	for name, raw := range given {
		out[name] = raw
	}
	return out
}

// calledOutputs are the outputSchemas of the tools frames call: what a
// case needs to be judged again.
func calledOutputs(frames []Frame, outputs map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, f := range frames {
		m, err := jsonrpc.Decode(f.Body)
		if err != nil {
			continue
		}
		if raw, ok := outputs[toolOf(m)]; ok {
			out[toolOf(m)] = raw
		}
	}
	return out
}
