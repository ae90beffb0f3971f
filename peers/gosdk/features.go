package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The peer's resources, prompt and completions: one resource, one template
// with a variable, one prompt with a required argument, and completions
// for both, so that mcpconform's resource, prompt and completion checks
// judge the SDK's handling of each.
const (
	aboutURI         = "mcpconform://gosdk/about"
	greetingTemplate = "mcpconform://gosdk/greeting/{name}"
	greetingPrefix   = "mcpconform://gosdk/greeting/"
)

// names are the values the completions offer for a name.
var names = []string{"ada", "alan", "barbara", "grace", "linus"}

// serverOptions are the peer's server options: completions for the
// prompt's argument and the template's variable.
func serverOptions() *mcp.ServerOptions {
	return &mcp.ServerOptions{CompletionHandler: complete}
}

// addFeatures adds the resource, the template, the prompt and a tool whose
// result has a declared output schema.
func addFeatures(server *mcp.Server) {
	server.AddResource(&mcp.Resource{URI: aboutURI, Name: "about", Description: "Names the SDK this peer is built with.", MIMEType: "text/plain"}, aboutResource)
	server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: greetingTemplate, Name: "greeting", Description: "A greeting for the name in the URI.", MIMEType: "text/plain"}, greetingResource)
	server.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Asks the model to greet someone by name.",
		Arguments: []*mcp.PromptArgument{{Name: "name", Description: "who to greet", Required: true}}}, greet)
	mcp.AddTool(server, &mcp.Tool{Name: "count", Description: "Counts the words of its text argument; the result is structured.", Annotations: readOnly()}, count)
}

func aboutResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: aboutText()}}}, nil
}

func greetingResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	name, ok := strings.CutPrefix(req.Params.URI, greetingPrefix)
	if !ok || name == "" {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Hello, " + name + "."}}}, nil
}

func greet(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Arguments["name"]
	if name == "" {
		return nil, fmt.Errorf("argument %q is required", "name")
	}
	return &mcp.GetPromptResult{Description: "A greeting", Messages: []*mcp.PromptMessage{
		{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + name + "."}},
	}}, nil
}

// complete offers the names that start with the value typed, for the
// prompt's argument and the template's variable alike; a reference to
// another prompt or template is invalid params, as the SDK lets a handler
// say with a *jsonrpc.Error.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	if ref := req.Params.Ref; ref == nil || !(ref.Type == "ref/prompt" && ref.Name == "greet" || ref.Type == "ref/resource" && ref.URI == greetingTemplate) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such prompt or resource template to complete"}
	}
	var values []string
	if req.Params.Argument.Name == "name" {
		for _, n := range names {
			if strings.HasPrefix(n, req.Params.Argument.Value) {
				values = append(values, n)
			}
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: nonNil(values), Total: len(values)}}, nil
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// countArgs and countResult are the count tool's input and its structured
// output, from which the SDK makes the tool's inputSchema and outputSchema.
type countArgs struct {
	Text string `json:"text,omitempty" jsonschema:"the text whose words to count"`
}

type countResult struct {
	Words int `json:"words" jsonschema:"how many words the text has"`
}

func count(_ context.Context, _ *mcp.CallToolRequest, in countArgs) (*mcp.CallToolResult, countResult, error) {
	return nil, countResult{Words: len(strings.Fields(in.Text))}, nil
}
