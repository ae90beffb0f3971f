package main

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpconform/mcpconform/peers/peerhost"
)

// sdkModule is the module path of mcp-go, whose version the about tool, the
// about resource and the server's own version report.
const sdkModule = "github.com/mark3labs/mcp-go"

// Steps of the progress tool: how many notifications it sends unless the
// call names a number, and the most it sends.
const (
	defaultProgressSteps = 3
	maxProgressSteps     = 100
)

// aboutURI is the URI of the peer's one resource.
const aboutURI = "mcpconform://mcpgo/about"

// newServer returns the peer's MCP server with its tools, one resource, one
// template, one prompt and their completions, and the logging capability.
// Its version is the SDK's, which is what a report about this peer is about.
func newServer() *server.MCPServer {
	s := server.NewMCPServer("mcpconform-mcpgo-peer", sdkVersion(), append([]server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false),
		server.WithLogging(),
	}, featureOptions()...)...)
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Returns its text argument (empty when absent)."),
		mcp.WithString("text", mcp.Description("the text to echo back")),
		readOnly(), closedWorld(),
	), echo)
	s.AddTool(mcp.NewTool("about",
		mcp.WithDescription("Names the SDK this peer is built with; takes no arguments."),
		readOnly(), closedWorld(),
	), about)
	// "progress" is the name mcpconform (and the official conformance suite)
	// looks for when a check needs a tool that reports progress.
	s.AddTool(mcp.NewTool("progress",
		mcp.WithDescription("Logs a message and reports progress on the call's progress token, then returns."),
		mcp.WithNumber("steps", mcp.Description("how many progress notifications to send"),
			mcp.DefaultNumber(defaultProgressSteps), mcp.Min(1), mcp.Max(maxProgressSteps)),
		readOnly(), closedWorld(),
	), progress)
	s.AddResource(mcp.NewResource(aboutURI, "about",
		mcp.WithResourceDescription("Names the SDK this peer is built with."),
		mcp.WithMIMEType("text/plain"),
	), aboutResource)
	s.AddPrompt(mcp.NewPrompt("greet",
		mcp.WithPromptDescription("Asks the model to greet someone by name."),
		mcp.WithArgument("name", mcp.ArgumentDescription("who to greet"), mcp.RequiredArgument()),
	), greet)
	addFeatures(s)
	return s
}

// readOnly and closedWorld annotate every tool of the peer: none changes or
// reaches anything outside its session, which is what lets mcpconform call
// them by default (it calls only tools marked readOnlyHint: true and not
// openWorldHint: true; mcp.NewTool marks every tool open-world unless told).
func readOnly() mcp.ToolOption    { return mcp.WithReadOnlyHintAnnotation(true) }
func closedWorld() mcp.ToolOption { return mcp.WithOpenWorldHintAnnotation(false) }

func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(req.GetString("text", "")), nil
}

func about(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(aboutText()), nil
}

// progress sends a log message (delivered only at or above the level the
// client set) and, when the call carries a progress token, one progress
// notification per step.
func progress(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	steps := req.GetInt("steps", defaultProgressSteps)
	if steps < 1 || steps > maxProgressSteps {
		return mcp.NewToolResultError(fmt.Sprintf("steps %d: use 1 to %d", steps, maxProgressSteps)), nil
	}
	s := server.ServerFromContext(ctx)
	if err := s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "progress", "progress started")); err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		for step := 1; step <= steps; step++ {
			err := s.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
				"progressToken": req.Params.Meta.ProgressToken,
				"progress":      step,
				"total":         steps,
				"message":       fmt.Sprintf("step %d of %d", step, steps),
			})
			if err != nil {
				return nil, fmt.Errorf("progress step %d: %w", step, err)
			}
		}
	}
	return mcp.NewToolResultText(fmt.Sprintf("done in %d steps", steps)), nil
}

func aboutResource(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: aboutText()}}, nil
}

func greet(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Arguments["name"]
	if name == "" {
		return nil, fmt.Errorf("argument %q is required", "name")
	}
	return mcp.NewGetPromptResult("A greeting", []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Say hello to "+name+".")),
	}), nil
}

// aboutText names the SDK and its version.
func aboutText() string {
	return fmt.Sprintf("mcpconform peer built with %s %s", sdkModule, sdkVersion())
}

// sdkVersion is the SDK's version as recorded in the build, or "unknown".
func sdkVersion() string { return peerhost.ModuleVersion(sdkModule) }
