package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// The tools, prompt and resource of multi round-trip requests (MR-01):
// offered in the 2026-07-28 era only, where they ask the client for input
// through an InputRequiredResult. The tools and the prompt are named after
// the official conformance suite's fixtures (SEP-2322), with the
// inputRequests keys it expects.

// inputTools are the tools that ask the client for input.
var inputTools = []serverTool{
	{tool("test_input_required_result_elicitation", "Asks the user's name (elicitation, key user_name), then greets them.", noArguments), greetByName},
	{tool("test_input_required_result_sampling", "Asks the client's model the capital of France (sampling, key capital_question), then says what it answered.", noArguments), askCapital},
	{tool("test_input_required_result_list_roots", "Asks for the client's roots (roots/list, key client_roots), then lists them.", noArguments), listClientRoots},
	{tool("test_input_required_result_request_state", "Asks the user to confirm (elicitation, key confirm); answers state-ok once its requestState came back verified.", noArguments), confirmWithState},
	{tool("test_input_required_result_multiple_inputs", "Asks at once for the user's name, a greeting from the client's model and the client's roots.", noArguments), multipleInputs},
	{tool("test_input_required_result_multi_round", "Asks the user's name (step1), then in a second round their favourite colour (step2).", noArguments), multiRound},
	{tool("test_input_required_result_tampered_state", "Asks the user to confirm (elicitation, key confirm) with an integrity-protected requestState; an altered one gets -32602.", noArguments), confirmWithState},
	{tool("test_input_required_result_capabilities", "Asks the client's model and the user for input, each only if the request declares its capability.", noArguments), declaredInputs},
}

// The forms and the question the input tools ask.
var (
	nameForm    = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	confirmForm = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	colourForm  = json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)
	contextForm = json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)
)

// question asks the client's model text, in one user message.
func question(text string, maxTokens int) CreateMessageParams {
	return CreateMessageParams{Messages: []SamplingMessage{{Role: "user", Content: textContent(text)}}, MaxTokens: maxTokens}
}

// askForm asks the user to fill form under key and decodes an accepted
// answer's content into v. A form the user declined or cancelled is no
// error: its action says so.
func askForm(rc *RequestContext, key, message string, form json.RawMessage, v any) (action string, err error) {
	res, err := rc.elicitAs(key, ElicitParams{Message: message, RequestedSchema: form})
	switch {
	case errors.Is(err, ErrDeclined) || errors.Is(err, ErrDismissed):
		return res.Action, nil
	case err != nil:
		return "", err
	case len(res.Content) > 0:
		if err := json.Unmarshal(res.Content, v); err != nil {
			return "", fmt.Errorf("%s: the form's content does not fit its schema: %w", key, err)
		}
	}
	return res.Action, nil
}

// askName asks the user's name under key.
func askName(rc *RequestContext, key string) (string, error) {
	var who struct {
		Name string `json:"name"`
	}
	action, err := askForm(rc, key, "What is your name?", nameForm, &who)
	if err == nil && action != "accept" {
		who.Name = "stranger (the user chose " + action + ")"
	}
	return who.Name, err
}

func greetByName(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	name, err := askName(rc, "user_name")
	if err != nil {
		return mcp.CallToolResult{}, err
	}
	return TextResult("Hello, " + name + "!"), nil
}

func askCapital(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	res, err := rc.sampleAs("capital_question", question("What is the capital of France?", 100))
	if err != nil {
		return mcp.CallToolResult{}, err
	}
	return TextResult("The model answered: " + sampledText(res)), nil
}

// rootList names roots for a result.
func rootList(roots []Root) string {
	uris := make([]string, len(roots))
	for i, r := range roots {
		uris[i] = r.URI
	}
	return fmt.Sprintf("%d roots: %s", len(roots), strings.Join(uris, ", "))
}

func listClientRoots(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	roots, err := rc.rootsAs("client_roots")
	if err != nil {
		return mcp.CallToolResult{}, err
	}
	return TextResult("The client shares " + rootList(roots)), nil
}

// confirmWithState says state-ok only when the request's requestState came
// back and verified (MR-05).
func confirmWithState(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	var answer struct {
		OK bool `json:"ok"`
	}
	action, err := askForm(rc, "confirm", "Please confirm", confirmForm, &answer)
	if err != nil {
		return mcp.CallToolResult{}, err
	}
	state := "no requestState came back"
	if r := roundOf(rc); r != nil && r.verified {
		state = "state-ok: the requestState came back verified"
	}
	return TextResult(fmt.Sprintf("%s; the user chose %s, ok=%v", state, action, answer.OK)), nil
}

// multipleInputs asks for all three kinds of input in one round.
func multipleInputs(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	name, errName := askName(rc, "user_name")
	greeting, errGreeting := rc.sampleAs("greeting", question("Generate a greeting", 50))
	roots, errRoots := rc.rootsAs("client_roots")
	if err := errors.Join(errName, errGreeting, errRoots); err != nil {
		return mcp.CallToolResult{}, err
	}
	return TextResult(fmt.Sprintf("%s, %s; the client shares %s", sampledText(greeting), name, rootList(roots))), nil
}

// multiRound asks for a second input only once the first is answered: the
// requestState carries the first answer into the third round.
func multiRound(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	var who struct {
		Name string `json:"name"`
	}
	if _, err := askForm(rc, "step1", "Step 1: What is your name?", nameForm, &who); err != nil {
		return mcp.CallToolResult{}, err
	}
	var colour struct {
		Color string `json:"color"`
	}
	if _, err := askForm(rc, "step2", "Step 2: What is your favorite color?", colourForm, &colour); err != nil {
		return mcp.CallToolResult{}, err
	}
	return TextResult(fmt.Sprintf("%s likes %s.", who.Name, colour.Color)), nil
}

// declaredInputs asks for sampling and elicitation only where the request
// declares them (MR-04); declaring neither, it needs sampling (JR-49).
func declaredInputs(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	caps := rc.sess.capabilities()
	var said []string
	var errs []error
	if caps.sampling || !caps.elicitForm {
		res, err := rc.sampleAs("capital_question", question("What is the capital of France?", 100))
		if err == nil {
			said = append(said, "the model answered "+sampledText(res))
		}
		errs = append(errs, err)
	}
	if caps.elicitForm {
		name, err := askName(rc, "user_name")
		said = append(said, "the user is "+name)
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return mcp.CallToolResult{}, err
	}
	return TextResult(strings.Join(said, "; ")), nil
}

// inputPrompt is the prompt that asks the user for its context.
var inputPrompt = Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks the user for its context (elicitation, key user_context)"}

// promptsOffered are the prompts of rc's era.
func promptsOffered(rc *RequestContext) []Prompt {
	if rc.sess.modern {
		return append(slices.Clip(serverPrompts), inputPrompt)
	}
	return serverPrompts
}

// contextPrompt answers prompts/get of inputPrompt (PM-06).
func contextPrompt(rc *RequestContext) (any, *jsonrpc.Error) {
	var answer struct {
		Context string `json:"context"`
	}
	action, err := askForm(rc, "user_context", "What context should the prompt use?", contextForm, &answer)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	text := "Answer in this context: " + answer.Context
	if action != "accept" {
		text = "Answer without a context: the user chose " + action
	}
	return map[string]any{"description": inputPrompt.Description, "messages": []any{promptMessage(textContent(text))}}, nil
}

// rootsResource is the resource whose contents are the client's roots
// (RS-10: resources/read may answer an InputRequiredResult).
var rootsResource = Resource{"test://client-roots", "Client Roots", "The roots the client shares, asked for when read (roots/list, key client_roots)", "text/plain"}

// resourcesOffered are the resources of rc's era.
func resourcesOffered(rc *RequestContext) []Resource {
	if rc.sess.modern {
		return append(slices.Clip(serverResources), rootsResource)
	}
	return serverResources
}

// readClientRoots answers resources/read of rootsResource.
func readClientRoots(rc *RequestContext) (any, *jsonrpc.Error) {
	roots, err := rc.rootsAs("client_roots")
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return map[string]any{"contents": []any{textResource(rootsResource.URI, rootsResource.MIMEType, "The client shares "+rootList(roots))}}, nil
}
