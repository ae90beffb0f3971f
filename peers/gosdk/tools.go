package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkModule is the module path of the official Go SDK, whose version the
// about tool reports.
const sdkModule = "github.com/modelcontextprotocol/go-sdk"

// workSteps is how many progress notifications the work tool sends.
const workSteps = 3

// newServer returns the peer's MCP server with its tools.
func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpconform-gosdk-peer", Version: sdkVersion()}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Returns its text argument (empty when absent)."}, echo)
	mcp.AddTool(server, &mcp.Tool{Name: "about", Description: "Names the SDK this peer is built with; takes no arguments."}, about)
	mcp.AddTool(server, &mcp.Tool{Name: "work", Description: "Logs a message and reports progress on the call's progress token, then returns."}, work)
	return server
}

// echoArgs are the arguments of the echo tool.
type echoArgs struct {
	Text string `json:"text,omitempty" jsonschema:"the text to echo back"`
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

func about(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	text := fmt.Sprintf("mcpconform peer built with %s %s", sdkModule, sdkVersion())
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// work sends a log message (delivered only once the client has set a log
// level) and, when the call carries a progress token, one progress
// notification per step.
func work(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	//lint:ignore SA1019 logging is deprecated from 2026-07-28 but part of the legacy protocol this peer serves.
	if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "work", Data: "work started"}); err != nil {
		return nil, nil, fmt.Errorf("log: %w", err)
	}
	if token := req.Params.GetProgressToken(); token != nil {
		for step := 1; step <= workSteps; step++ {
			p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(step), Total: workSteps, Message: fmt.Sprintf("step %d of %d", step, workSteps)}
			if err := req.Session.NotifyProgress(ctx, p); err != nil {
				return nil, nil, fmt.Errorf("progress step %d: %w", step, err)
			}
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("done in %d steps", workSteps)}}}, nil, nil
}

// sdkVersion is the SDK's version as recorded in the build, or "unknown".
func sdkVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == sdkModule {
				return dep.Version
			}
		}
	}
	return "unknown"
}
