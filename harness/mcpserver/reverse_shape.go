package mcpserver

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// What the mutants of the requests' shape (harness/mutant/server_reverse2.go)
// change in the reference's sampling and elicitation requests; the
// reference itself sends them as its tools build them.

// samplingAsSent is p as the server's mutant sends it.
func (rc *RequestContext) samplingAsSent(p CreateMessageParams) any {
	fields := map[string]any{"messages": p.Messages, "maxTokens": p.MaxTokens}
	switch rc.srv.opts.Mutant {
	case mutant.SamplingToolsUndeclared:
		fields["tools"] = []any{map[string]any{"name": "lookup", "inputSchema": map[string]any{"type": "object"}}}
		fields["toolChoice"] = map[string]any{"mode": "auto"}
	case mutant.SamplingContextUndeclared:
		fields["includeContext"] = "thisServer"
	case mutant.SamplingToolResultMixed:
		fields["messages"] = append(append([]SamplingMessage{}, p.Messages...),
			SamplingMessage{"assistant", json.RawMessage(`[{"type":"tool_use","id":"lookup-1","name":"lookup","input":{}}]`)},
			SamplingMessage{"user", json.RawMessage(`[{"type":"tool_result","toolUseId":"lookup-1","content":[{"type":"text","text":"found"}]},{"type":"text","text":"and go on"}]`)})
	default:
		return p
	}
	return fields
}

// elicitationAsSent is p as the server's mutant sends it.
func (rc *RequestContext) elicitationAsSent(p ElicitParams) ElicitParams {
	switch rc.srv.opts.Mutant {
	case mutant.ElicitSchemaNested:
		if len(p.RequestedSchema) > 0 {
			var form map[string]any
			if json.Unmarshal(p.RequestedSchema, &form) == nil {
				props, _ := form["properties"].(map[string]any)
				if props != nil {
					props["address"] = map[string]any{"type": "object", "properties": map[string]any{"street": map[string]any{"type": "string"}}}
				}
				p.RequestedSchema, _ = json.Marshal(form)
			}
		}
	case mutant.ElicitURLWithoutID:
		p.ElicitationID = ""
	}
	return p
}
