package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The peer's resource template, completions and structured tool, beside
// the about resource and the greet prompt, so that mcpconform's template,
// completion and structured-output checks judge the SDK's handling of
// each.
const (
	greetingTemplate = "mcpconform://mcpgo/greeting/{name}"
	greetingPrefix   = "mcpconform://mcpgo/greeting/"
)

// names are the values the completions offer for a name.
var names = []string{"ada", "alan", "barbara", "grace", "linus"}

// featureOptions declare completions and name their providers: the
// prompt's argument and the template's variable complete alike.
func featureOptions() []server.ServerOption {
	return []server.ServerOption{server.WithCompletions(),
		server.WithPromptCompletionProvider(completer{}), server.WithResourceCompletionProvider(completer{})}
}

// addFeatures adds the template and the structured tool.
func addFeatures(s *server.MCPServer) {
	s.AddResourceTemplate(mcp.NewResourceTemplate(greetingTemplate, "greeting",
		mcp.WithTemplateDescription("A greeting for the name in the URI."), mcp.WithTemplateMIMEType("text/plain")), greetingResource)
	s.AddTool(mcp.NewTool("count",
		mcp.WithDescription("Counts the words of its text argument; the result is structured."),
		mcp.WithString("text", mcp.Description("the text whose words to count")),
		mcp.WithOutputSchema[countResult](),
		readOnly(), closedWorld(),
	), mcp.NewStructuredToolHandler(count))
}

func greetingResource(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	name, _ := strings.CutPrefix(req.Params.URI, greetingPrefix)
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "Hello, " + name + "."}}, nil
}

// completer offers the names that start with the value typed, and refuses
// to complete another prompt or template.
type completer struct{}

func (completer) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if prompt != "greet" {
		return nil, fmt.Errorf("no prompt %q to complete", prompt)
	}
	return completeName(arg), nil
}

func (completer) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if uri != greetingTemplate {
		return nil, fmt.Errorf("no resource template %q to complete", uri)
	}
	return completeName(arg), nil
}

func completeName(arg mcp.CompleteArgument) *mcp.Completion {
	values := []string{}
	if arg.Name == "name" {
		for _, n := range names {
			if strings.HasPrefix(n, arg.Value) {
				values = append(values, n)
			}
		}
	}
	return &mcp.Completion{Values: values, Total: len(values)}
}

// countArgs and countResult are the count tool's input and its structured
// output, whose schema the tool declares.
type countArgs struct {
	Text string `json:"text,omitempty"`
}

type countResult struct {
	Words int `json:"words"`
}

func count(_ context.Context, _ mcp.CallToolRequest, in countArgs) (countResult, error) {
	return countResult{Words: len(strings.Fields(in.Text))}, nil
}
