package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// PromptArgument is one argument of a prompt (PM-02).
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Prompt is one prompt of prompts/list (PM-02).
type Prompt struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// serverPrompts are the reference server's prompts, named after the official
// conformance suite's fixtures.
var serverPrompts = []Prompt{
	{Name: "test_simple_prompt", Description: "A prompt without arguments"},
	{Name: "test_prompt_with_arguments", Description: "A prompt with required arguments", Arguments: []PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}},
	{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource", Arguments: []PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}},
	{Name: "test_prompt_with_image", Description: "A prompt with an image"},
}

// listPrompts answers prompts/list a page at a time (PA-01).
func (s *Server) listPrompts(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	if s.opts.Mutant == mutant.PromptsCursorIgnored {
		params = nil
	}
	items, next, rpcErr := page(s, "prompts", promptsOffered(rc), params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	return pageResult("prompts", items, next), nil
}

func findPrompt(name string) *Prompt {
	for i := range serverPrompts {
		if serverPrompts[i].Name == name {
			return &serverPrompts[i]
		}
	}
	return nil
}

// promptMessage is one message of a prompts/get result (PM-02).
func promptMessage(block json.RawMessage) map[string]any {
	return map[string]any{"role": "user", "content": block}
}

// getPrompt answers prompts/get (PM-02): an unknown prompt, arguments that
// are not strings, or a missing required argument get -32602 (PM-04).
func getPrompt(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := mcp.DecodeParams(params, &p); err != nil || p.Name == "" {
		return nil, mcp.InvalidParams("prompts/get needs params with a prompt name and string arguments")
	}
	if p.Name == inputPrompt.Name && rc.sess.modern {
		return contextPrompt(rc)
	}
	prompt := findPrompt(p.Name)
	if prompt == nil {
		return nil, mcp.InvalidParams(fmt.Sprintf("unknown prompt %q; prompts/list names the prompts", p.Name))
	}
	for _, a := range prompt.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok && rc.srv.opts.Mutant != mutant.PromptMissingArgumentServed {
			return nil, mcp.InvalidParams(fmt.Sprintf("prompt %q needs the argument %q", p.Name, a.Name))
		}
	}
	var messages []map[string]any
	switch p.Name {
	case "test_simple_prompt":
		messages = append(messages, promptMessage(textContent("This is a simple prompt for testing.")))
	case "test_prompt_with_arguments":
		messages = append(messages, promptMessage(textContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", p.Arguments["arg1"], p.Arguments["arg2"]))))
	case "test_prompt_with_embedded_resource":
		messages = append(messages,
			promptMessage(resourceContent(p.Arguments["resourceUri"], "text/plain", "Embedded resource content for testing.")),
			promptMessage(textContent("Please process the embedded resource above.")))
	case "test_prompt_with_image":
		messages = append(messages,
			promptMessage(promptImage(rc)),
			promptMessage(textContent("Please analyze the image above.")))
	}
	return map[string]any{"description": prompt.Description, "messages": messages}, nil
}

// promptImage is the image of test_prompt_with_image (TL-14).
func promptImage(rc *RequestContext) json.RawMessage {
	if rc.srv.opts.Mutant == mutant.PromptImageNotBase64 {
		return content(map[string]string{"type": "image", "data": "not base64!", "mimeType": "image/png"})
	}
	return imageContent()
}
