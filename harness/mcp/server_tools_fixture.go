package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The tools named after the official conformance suite's fixtures.

func simpleText(*RequestContext, json.RawMessage) (CallToolResult, error) {
	return toolText("This is a simple text response for testing."), nil
}

func imageOnly(*RequestContext, json.RawMessage) (CallToolResult, error) {
	return CallToolResult{Content: []json.RawMessage{imageContent()}}, nil
}

func audioOnly(*RequestContext, json.RawMessage) (CallToolResult, error) {
	return CallToolResult{Content: []json.RawMessage{audioContent()}}, nil
}

func embeddedResource(*RequestContext, json.RawMessage) (CallToolResult, error) {
	return CallToolResult{Content: []json.RawMessage{
		resourceContent("test://embedded-resource", "text/plain", "This is an embedded resource content."),
	}}, nil
}

func multipleContentTypes(*RequestContext, json.RawMessage) (CallToolResult, error) {
	return CallToolResult{Content: []json.RawMessage{
		textContent("Multiple content types test:"),
		imageContent(),
		resourceContent("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
	}}, nil
}

// toolWithLogging logs three info messages (CX-02).
func toolWithLogging(rc *RequestContext, _ json.RawMessage) (CallToolResult, error) {
	for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if err := rc.Log("info", serverLogger, msg); err != nil {
			return CallToolResult{}, err
		}
	}
	return toolText("Tool with logging executed successfully."), nil
}

// toolWithProgress reports 0, 50 and 100 of 100 (CX-03).
func toolWithProgress(rc *RequestContext, _ json.RawMessage) (CallToolResult, error) {
	for _, p := range []float64{0, 50, 100} {
		if err := rc.Progress(p, 100, fmt.Sprintf("Completed %v of 100", p)); err != nil {
			return CallToolResult{}, err
		}
	}
	return toolText("Tool with progress executed successfully."), nil
}

func errorHandling(*RequestContext, json.RawMessage) (CallToolResult, error) {
	return CallToolResult{}, errors.New("this tool intentionally returns an error for testing")
}

// sampling asks the client's model (CX-05); a failure is the tool's failure.
func sampling(rc *RequestContext, args json.RawMessage) (CallToolResult, error) {
	var a struct {
		Prompt *string `json:"prompt"`
	}
	if err := decodeArgs(args, &a); err != nil || a.Prompt == nil {
		return CallToolResult{}, errors.New(`test_sampling needs a string argument "prompt"`)
	}
	res, err := rc.Sample(CreateMessageParams{
		Messages:  []SamplingMessage{{Role: "user", Content: textContent(*a.Prompt)}},
		MaxTokens: 100,
	})
	if err != nil {
		return CallToolResult{}, err
	}
	var block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	answer := string(res.Content)
	if json.Unmarshal(res.Content, &block) == nil && block.Type == "text" {
		answer = block.Text
	}
	return toolText("LLM response: " + answer), nil
}

// elicitationForm is the form test_elicitation asks for: a flat object of
// strings (EL-05).
var elicitationForm = json.RawMessage(`{"type":"object","properties":{` +
	`"username":{"type":"string","description":"User's response"},` +
	`"email":{"type":"string","description":"User's email address"}},` +
	`"required":["username","email"]}`)

// elicitation asks the user through a form (CX-06). A decline or cancel is
// the user's answer, reported as such; other failures are the tool's.
func elicitation(rc *RequestContext, args json.RawMessage) (CallToolResult, error) {
	var a struct {
		Message *string `json:"message"`
	}
	if err := decodeArgs(args, &a); err != nil || a.Message == nil {
		return CallToolResult{}, errors.New(`test_elicitation needs a string argument "message"`)
	}
	res, err := rc.Elicit(ElicitParams{Message: *a.Message, RequestedSchema: elicitationForm})
	if err != nil && !errors.Is(err, ErrDeclined) && !errors.Is(err, ErrDismissed) {
		return CallToolResult{}, err
	}
	content := "{}"
	if len(res.Content) > 0 {
		content = string(res.Content)
	}
	return toolText(fmt.Sprintf("User response: action=%s, content=%s", res.Action, content)), nil
}
