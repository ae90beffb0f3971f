package mcpclient

import (
	"encoding/json"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
)

// Sampling params of 2025-11-25's tool-enabled sampling: with tools, with
// a tool_result beside text, with a tool_use left without its result, and
// a well-formed tool loop.
var (
	toolsParams       = json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":16,"tools":[{"name":"w","inputSchema":{"type":"object"}}]}`)
	mixedParams       = json.RawMessage(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","toolUseId":"a","content":[]},{"type":"text","text":"and?"}]}],"maxTokens":16,"tools":[]}`)
	unansweredParams  = json.RawMessage(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"w","input":{}}]},{"role":"user","content":{"type":"text","text":"go on"}}],"maxTokens":16,"tools":[]}`)
	toolLoopParams    = json.RawMessage(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"w","input":{}}]},{"role":"user","content":{"type":"tool_result","toolUseId":"a","content":[]}}],"maxTokens":16,"tools":[]}`)
	modelessFormParam = json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"x"}}}}`)
)

// TestLateAnswers observes, for the reference and each mutant of its
// answers to 2025-11-25's requests, the rule the mutant breaks: tools
// refused without sampling.tools (SM-07), missing or mixed tool results
// refused with it (SM-10), a form without mode answered as a form (EL-04),
// a completion of an unknown elicitation ignored (EL-13).
func TestLateAnswers(t *testing.T) {
	refused := func(s *Session, params json.RawMessage) bool {
		_, rpcErr, _ := s.fixedAnswer("sampling/createMessage", params)
		return rpcErr != nil && rpcErr.Code == jsonrpc.CodeInvalidParams
	}
	sample := `{"role":"assistant","content":{"type":"text","text":"t"},"model":"m"}`
	for _, m := range []mutant.Name{"", mutant.SamplingToolsUndeclaredAnswered, mutant.SamplingToolResultsUnchecked, mutant.ElicitationModeRequired, mutant.ElicitationCompleteUnknownFatal} {
		plain := &Session{opts: Options{Answers: target.Answers{Sampling: sample}, Mutant: m}}
		if refused(plain, toolsParams) == (m == mutant.SamplingToolsUndeclaredAnswered) {
			t.Errorf("mutant %q: tools without sampling.tools refused: %v (SM-07)", m, refused(plain, toolsParams))
		}
		tools := &Session{opts: Options{Answers: target.Answers{Sampling: sample, SamplingTools: true}, Mutant: m}}
		if caps := tools.declared(map[string]any{}); caps["sampling"].(map[string]any)["tools"] == nil {
			t.Errorf("told SamplingTools, declared %v; want sampling.tools", caps)
		}
		if refused(tools, toolsParams) || refused(tools, toolLoopParams) {
			t.Errorf("mutant %q: a well-formed tool-enabled sample refused by a client with sampling.tools", m)
		}
		for _, p := range []json.RawMessage{mixedParams, unansweredParams} {
			if refused(tools, p) == (m == mutant.SamplingToolResultsUnchecked) {
				t.Errorf("mutant %q: %s refused: %v (SM-10)", m, p, refused(tools, p))
			}
		}
		form := &Session{t: newFakeTransport(), version: "2025-11-25", opts: Options{Answers: target.Answers{Elicitation: target.ElicitAccept}, Mutant: m}}
		if _, rpcErr, _ := form.fixedAnswer("elicitation/create", modelessFormParam); (rpcErr != nil) != (m == mutant.ElicitationModeRequired) {
			t.Errorf("mutant %q: a form without mode answered with error %v (EL-04)", m, rpcErr)
		}
		if acted := form.completionFatal("notifications/elicitation/complete"); acted != (m == mutant.ElicitationCompleteUnknownFatal) {
			t.Errorf("mutant %q: a completion of an unknown elicitation ended the session: %v (EL-13)", m, acted)
		}
	}
}
