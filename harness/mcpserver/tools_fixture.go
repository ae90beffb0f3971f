package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The tools named after the official conformance suite's fixtures.

func simpleText(*RequestContext, json.RawMessage) (mcp.CallToolResult, error) {
	return TextResult("This is a simple text response for testing."), nil
}

func imageOnly(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	if rc.srv.opts.Mutant == mutant.ToolImageNotBase64 {
		return mcp.CallToolResult{Content: []json.RawMessage{content(map[string]string{"type": "image", "data": "not base64!", "mimeType": "image/png"})}}, nil
	}
	if rc.srv.opts.Mutant == mutant.PlantedImageWithoutMimeType {
		return mcp.CallToolResult{Content: []json.RawMessage{plantedImageWithoutMimeType()}}, nil
	}
	return mcp.CallToolResult{Content: []json.RawMessage{imageContent()}}, nil
}

func audioOnly(*RequestContext, json.RawMessage) (mcp.CallToolResult, error) {
	return mcp.CallToolResult{Content: []json.RawMessage{audioContent()}}, nil
}

func embeddedResource(*RequestContext, json.RawMessage) (mcp.CallToolResult, error) {
	return mcp.CallToolResult{Content: []json.RawMessage{
		resourceContent("test://embedded-resource", "text/plain", "This is an embedded resource content."),
	}}, nil
}

func multipleContentTypes(*RequestContext, json.RawMessage) (mcp.CallToolResult, error) {
	return mcp.CallToolResult{Content: []json.RawMessage{
		textContent("Multiple content types test:"),
		imageContent(),
		resourceContent("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
	}}, nil
}

// toolWithLogging logs three info messages (CX-02).
func toolWithLogging(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	for _, msg := range []string{"mcp.Tool execution started", "mcp.Tool processing data", "mcp.Tool execution completed"} {
		if err := rc.Log("info", serverLogger, msg); err != nil {
			return mcp.CallToolResult{}, err
		}
	}
	return TextResult("mcp.Tool with logging executed successfully."), nil
}

// toolWithProgress reports 0, 50 and 100 of 100 (CX-03).
func toolWithProgress(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	for _, p := range []float64{0, 50, 100} {
		if err := rc.Progress(p, 100, fmt.Sprintf("Completed %v of 100", p)); err != nil {
			return mcp.CallToolResult{}, err
		}
	}
	return TextResult("mcp.Tool with progress executed successfully."), nil
}

func errorHandling(*RequestContext, json.RawMessage) (mcp.CallToolResult, error) {
	return mcp.CallToolResult{}, errors.New("this tool intentionally returns an error for testing")
}

// sampling asks the client's model (CX-05); a failure is the tool's failure.
func sampling(rc *RequestContext, args json.RawMessage) (mcp.CallToolResult, error) {
	var a struct {
		Prompt *string `json:"prompt"`
	}
	if err := decodeArgs(args, &a); err != nil || a.Prompt == nil {
		return mcp.CallToolResult{}, fmt.Errorf(`%w: test_sampling needs a string argument "prompt"`, errArgumentsMisfit)
	}
	res, err := rc.Sample(CreateMessageParams{
		Messages:  []SamplingMessage{{Role: "user", Content: textContent(*a.Prompt)}},
		MaxTokens: 100,
	})
	if err != nil {
		return mcp.CallToolResult{}, err
	}
	return TextResult("LLM response: " + sampledText(res)), nil
}

// sampledText is the text of a sampling result's text block, else its
// content as JSON.
func sampledText(res *CreateMessageResult) string {
	var block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(res.Content, &block) == nil && block.Type == "text" {
		return block.Text
	}
	return string(res.Content)
}

// elicitationForm is the form test_elicitation asks for: a flat object of
// strings (EL-05).
var elicitationForm = json.RawMessage(`{"type":"object","properties":{` +
	`"username":{"type":"string","description":"User's response"},` +
	`"email":{"type":"string","description":"User's email address"}},` +
	`"required":["username","email"]}`)

// elicitation asks the user through a form (CX-06). A decline or cancel is
// the user's answer, reported as such; other failures are the tool's.
func elicitation(rc *RequestContext, args json.RawMessage) (mcp.CallToolResult, error) {
	var a struct {
		Message *string `json:"message"`
	}
	if err := decodeArgs(args, &a); err != nil || a.Message == nil {
		return mcp.CallToolResult{}, fmt.Errorf(`%w: test_elicitation needs a string argument "message"`, errArgumentsMisfit)
	}
	return elicitForm(rc, *a.Message, elicitationForm)
}

// elicitForm asks the user to fill form (CX-06) and answers what the user
// did: accept with the form's content, decline or cancel. Other failures,
// such as a client without the elicitation capability, are the tool's.
func elicitForm(rc *RequestContext, message string, form json.RawMessage) (mcp.CallToolResult, error) {
	res, err := rc.Elicit(ElicitParams{Message: message, RequestedSchema: form})
	if err != nil && !errors.Is(err, ErrDeclined) && !errors.Is(err, ErrDismissed) {
		return mcp.CallToolResult{}, err
	}
	content := "{}"
	if len(res.Content) > 0 {
		content = string(res.Content)
	}
	return TextResult(fmt.Sprintf("User response: action=%s, content=%s", res.Action, content)), nil
}

// defaultsForm is the form test_elicitation_sep1034_defaults asks for: a
// default for a field of each primitive type, an enum among them (SEP-1034).
var defaultsForm = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","description":"User name","default":"John Doe"},` +
	`"age":{"type":"integer","description":"User age","default":30},` +
	`"score":{"type":"number","description":"User score","default":95.5},` +
	`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
	`"verified":{"type":"boolean","description":"Verified user","default":true}}}`)

// elicitationDefaults asks for defaultsForm.
func elicitationDefaults(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	return elicitForm(rc, "Please review and update the form fields with defaults", defaultsForm)
}

// enumsForm is the form test_elicitation_sep1330_enums asks for: the five
// enum shapes of SEP-1330. Single choice: untitled (enum), titled (oneOf
// const/title) and legacy titled (enum with enumNames); multiple choice:
// untitled (array items enum) and titled (array items anyOf const/title).
var enumsForm = json.RawMessage(`{"type":"object","properties":{` +
	`"untitledSingle":{"type":"string","description":"Pick one option","enum":["option1","option2","option3"]},` +
	`"titledSingle":{"type":"string","description":"Pick one option","oneOf":[` +
	`{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
	`"legacyEnum":{"type":"string","description":"Pick one option (legacy)","enum":["opt1","opt2","opt3"],` +
	`"enumNames":["Option One","Option Two","Option Three"]},` +
	`"untitledMulti":{"type":"array","description":"Pick options","items":{"type":"string","enum":["option1","option2","option3"]}},` +
	`"titledMulti":{"type":"array","description":"Pick options","items":{"anyOf":[` +
	`{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`)

// flatEnumsForm is enumsForm with only the shapes versions before
// 2025-11-25 define (EnumSchema: enum, optional enumNames).
var flatEnumsForm = json.RawMessage(`{"type":"object","properties":{` +
	`"untitledSingle":{"type":"string","description":"Pick one option","enum":["option1","option2","option3"]},` +
	`"legacyEnum":{"type":"string","description":"Pick one option (legacy)","enum":["opt1","opt2","opt3"],` +
	`"enumNames":["Option One","Option Two","Option Three"]}}}`)

// elicitationEnums asks for enumsForm, or flatEnumsForm in a session
// whose version predates SEP-1330 (EL-05).
func elicitationEnums(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	form := enumsForm
	if rc.sess.protocolVersion() < elicitationModesSince {
		form = flatEnumsForm
	}
	return elicitForm(rc, "Please pick from the enum fields", form)
}

// jsonSchema2020 is the inputSchema of json_schema_2020_12_tool: a JSON
// Schema 2020-12 document that names its dialect, keeps a definition under
// $defs (with an $anchor) that a $ref points to, forbids other properties,
// and uses the composition (allOf, anyOf) and conditional (if, then, else)
// keywords a tool schema may hold (SEP-1613, SEP-2106): the official
// suite's fixture.
var jsonSchema2020 = schema(`{` +
	`"$schema":"https://json-schema.org/draft/2020-12/schema",` +
	`"type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{` +
	`"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},` +
	`"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
	`"then":{"required":["phone"]},"else":{"required":["email"]},` +
	`"additionalProperties":false}`)

// echoArguments answers the arguments it was called with, as compact JSON
// text ({} without any).
func echoArguments(_ *RequestContext, args json.RawMessage) (mcp.CallToolResult, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, args); err != nil || b.String() == "null" {
		b.Reset()
		b.WriteString("{}")
	}
	return TextResult("Arguments: " + b.String()), nil
}

// reconnection closes the connection of its stream mid-call, then answers
// (HT-29a): the client gets the answer once it resumes the stream. Where the
// transport cannot close the connection, it answers at once.
func reconnection(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	err := rc.Disconnect()
	switch {
	case err == nil:
		return TextResult("Reconnection test completed: answered after the server closed the stream's connection."), nil
	case errors.Is(err, ErrCannotDisconnect):
		return TextResult("Reconnection test completed: answered on the open connection, which this transport cannot close for the client to resume."), nil
	}
	return mcp.CallToolResult{}, err
}
