package fakeservers

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The requests the client-requests case asks last, of a client of
// 2025-11-25 (the one legacy version that has tool-enabled sampling,
// elicitation modes and notifications/elicitation/complete), each where
// the client declared what it asks for.

// Keys of the late requests of the client-requests case.
const (
	// KeySampleTools is a sampling/createMessage with tools and toolChoice
	// to a client that declared sampling without sampling.tools, which it
	// answers with an error (SM-07).
	KeySampleTools = "sample-tools"
	// KeySampleMixed is a tool-enabled sampling/createMessage whose user
	// message holds a tool_result beside text, which a client that
	// declared sampling.tools refuses with -32602 (SM-10).
	KeySampleMixed = "sample-mixed"
	// KeySampleUnanswered is a tool-enabled sampling/createMessage whose
	// assistant tool_use is followed by no tool_result, which a client
	// that declared sampling.tools refuses with -32602 (SM-10).
	KeySampleUnanswered = "sample-unanswered"
	// KeyFormModeless is a form elicitation without mode, which the client
	// answers as the form it is (EL-04).
	KeyFormModeless = "form-modeless"
	// KeyPingComplete is the ping sent after a notifications/elicitation/complete
	// for an id the fake never used (to a client that declared URL mode),
	// which the client ignores and goes on (EL-13).
	KeyPingComplete = "ping-complete"
)

// ToolsVersion is the legacy version of tool-enabled sampling, elicitation
// modes and notifications/elicitation/complete.
const ToolsVersion = "2025-11-25"

// UnknownElicitationID is the elicitationId of the fake's
// notifications/elicitation/complete: one it never used.
const UnknownElicitationID = "mcpconform-never-asked"

// unknownCompletion is the notifications/elicitation/complete sent after
// the form without mode: for UnknownElicitationID, which the client ignores
// (EL-13).
func unknownCompletion() *jsonrpc.Message {
	m, err := jsonrpc.NewNotification("notifications/elicitation/complete", map[string]any{"elicitationId": UnknownElicitationID})
	if err != nil {
		panic("fakeservers: build notifications/elicitation/complete: " + err.Error()) // a string always encodes
	}
	return m
}

// sampleTool is the tool a tool-enabled sampling request offers the model.
var sampleTool = map[string]any{"name": "mcpconform_weather", "description": "mcpconform fake: the weather in a city",
	"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}

// toolSampling is a tool-enabled sampling request's params with messages.
func toolSampling(messages ...any) map[string]any {
	return map[string]any{"messages": messages, "maxTokens": 16, "tools": []any{sampleTool}, "toolChoice": map[string]any{"mode": "auto"}}
}

// Messages of the tool-enabled sampling requests.
var (
	askWeather = map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "mcpconform fake: the weather in Paris?"}}
	useWeather = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "call-1", "name": "mcpconform_weather", "input": map[string]any{"city": "Paris"}}}}
	weather    = map[string]any{"type": "tool_result", "toolUseId": "call-1", "content": []any{map[string]any{"type": "text", "text": "18°C"}}}
)

// lateRequests are the requests asked after the others of a client of
// ToolsVersion that declares caps: a tool-enabled sample where it declared
// sampling without sampling.tools, or two malformed ones where it declared
// sampling.tools; a form without mode where it declared elicitation,
// followed where it declared elicitation.url by unknownCompletion and a
// ping. None in any other version.
func lateRequests(caps map[string]json.RawMessage, version string) []ClientRequest {
	if version != ToolsVersion {
		return nil
	}
	var out []ClientRequest
	switch {
	case declared(caps, "sampling", "tools"):
		out = append(out,
			ClientRequest{Key: KeySampleMixed, Method: "sampling/createMessage", Params: toolSampling(askWeather, useWeather,
				map[string]any{"role": "user", "content": []any{weather, map[string]any{"type": "text", "text": "mcpconform fake: and tomorrow?"}}})},
			ClientRequest{Key: KeySampleUnanswered, Method: "sampling/createMessage", Params: toolSampling(askWeather, useWeather,
				map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "mcpconform fake: go on"}})})
	case declared(caps, "sampling", ""):
		out = append(out, ClientRequest{Key: KeySampleTools, Method: "sampling/createMessage", Params: toolSampling(askWeather)})
	}
	if !declared(caps, "elicitation", "") {
		return out
	}
	form := ClientRequest{Key: KeyFormModeless, Method: "elicitation/create",
		Params: map[string]any{"message": "mcpconform fake: fill in the form (no mode: a form)", "requestedSchema": FormSchema}}
	if !declared(caps, "elicitation", "url") {
		return append(out, form)
	}
	form.After = []*jsonrpc.Message{unknownCompletion()}
	return append(out, form, ClientRequest{Key: KeyPingComplete, Method: "ping"})
}
