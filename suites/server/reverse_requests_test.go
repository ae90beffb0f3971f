package server

import (
	"encoding/json"
	"testing"
)

// TestRequestShapes pins the reading of the requests a server sends: each
// case one request, the rule it breaks ("" for none).
func TestRequestShapes(t *testing.T) {
	form := asking{form: true}
	url := asking{url: true}
	multi := `{"message":"m","requestedSchema":{"type":"object","properties":{"p":{"type":"array","items":{"type":"string","enum":["a"]}}}}}`
	for _, tc := range []struct {
		name, version, method, params, rule string
		d                                  asking
	}{
		{"flat form", v1125, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{"e":{"type":"string","format":"email"},"n":{"type":"integer"}}}}`, "", form},
		{"nested object", v1125, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{"o":{"type":"object"}}}}`, "EL-05", form},
		{"unknown format", v1125, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{"s":{"type":"string","format":"ipv4"}}}}`, "EL-05", form},
		{"multiple choice in 2025-11-25", v1125, "elicitation/create", multi, "", form},
		{"an array in 2025-06-18", v0618, "elicitation/create", multi, "EL-05", form},
		{"no message", v1125, "elicitation/create", `{"requestedSchema":{"type":"object","properties":{}}}`, "EL-03", form},
		{"url mode", v1125, "elicitation/create", `{"mode":"url","message":"m","url":"https://example.com/x","elicitationId":"1"}`, "", url},
		{"url mode without its id", v1125, "elicitation/create", `{"mode":"url","message":"m","url":"https://example.com/x"}`, "EL-03", url},
		{"url mode, relative url", v1125, "elicitation/create", `{"mode":"url","message":"m","url":"/x","elicitationId":"1"}`, "EL-03", url},
		{"url mode to a form client", v1125, "elicitation/create", `{"mode":"url","message":"m","url":"https://example.com/x","elicitationId":"1"}`, "EL-02", form},
		{"form to a url client", v1125, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{}}}`, "EL-02", url},
		{"plain sampling", v1125, "sampling/createMessage", `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":9}`, "", form},
		{"tools undeclared", v1125, "sampling/createMessage", `{"messages":[],"maxTokens":9,"tools":[]}`, "SM-07", form},
		{"context undeclared", v1125, "sampling/createMessage", `{"messages":[],"maxTokens":9,"includeContext":"allServers"}`, "SM-08", form},
		{"tool loop answered", v1125, "sampling/createMessage", `{"maxTokens":9,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"n","input":{}}]},{"role":"user","content":[{"type":"tool_result","toolUseId":"a","content":[]}]}]}`, "", form},
		{"tool use unanswered", v1125, "sampling/createMessage", `{"maxTokens":9,"messages":[{"role":"assistant","content":{"type":"tool_use","id":"a","name":"n","input":{}}},{"role":"user","content":{"type":"text","text":"x"}}]}`, "SM-09", form},
	} {
		var rule, problem string
		if tc.method == "elicitation/create" {
			rule, problem = elicitationProblem(tc.version, tc.d, json.RawMessage(tc.params))
		} else {
			rule, problem = samplingProblem(json.RawMessage(tc.params))
		}
		if problem == "" {
			rule = ""
		}
		if rule != tc.rule {
			t.Errorf("%s: broke %q (%s), want %q", tc.name, rule, problem, tc.rule)
		}
	}
}
