package main

import (
	"context"
	"fmt"

	"github.com/mcpconform/mcpconform/peers/peerhost"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkModule is the module path of the official Go SDK, whose version the
// about tool reports.
const sdkModule = "github.com/modelcontextprotocol/go-sdk"

// progressSteps is how many progress notifications the progress tool sends.
const progressSteps = 3

// newServer returns the peer's MCP server with its tools, resources, prompt
// and completions. Its version is the
// SDK's, which is what a report about this peer is about.
func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpconform-gosdk-peer", Version: sdkVersion()}, serverOptions())
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Returns its text argument (empty when absent).", Annotations: readOnly()}, echo)
	mcp.AddTool(server, &mcp.Tool{Name: "about", Description: "Names the SDK this peer is built with; takes no arguments.", Annotations: readOnly()}, about)
	// "progress" is the name mcpconform (and the official conformance suite)
	// looks for when a check needs a tool that reports progress.
	mcp.AddTool(server, &mcp.Tool{Name: "progress", Description: "Logs a message and reports progress on the call's progress token, then returns.", Annotations: readOnly()}, progress)
	addFeatures(server)
	return server
}

// readOnly are the annotations of every tool of the peer: none changes or
// reaches anything outside its session, which is what lets mcpconform call
// them by default (it calls only tools marked readOnlyHint: true and not
// openWorldHint: true).
func readOnly() *mcp.ToolAnnotations {
	closedWorld := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closedWorld}
}

// echoArgs are the arguments of the echo tool.
type echoArgs struct {
	Text string `json:"text,omitempty" jsonschema:"the text to echo back"`
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

func about(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: aboutText()}}}, nil, nil
}

// aboutText names the SDK and its version.
func aboutText() string {
	return fmt.Sprintf("mcpconform peer built with %s %s", sdkModule, sdkVersion())
}

// progress sends a log message (delivered only once the client has set a
// log level) and, when the call carries a progress token, one progress
// notification per step.
func progress(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	//lint:ignore SA1019 logging is deprecated from 2026-07-28 but part of the legacy protocol this peer serves.
	if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "progress", Data: "progress started"}); err != nil {
		return nil, nil, fmt.Errorf("log: %w", err)
	}
	if token := req.Params.GetProgressToken(); token != nil {
		for step := 1; step <= progressSteps; step++ {
			p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(step), Total: progressSteps, Message: fmt.Sprintf("step %d of %d", step, progressSteps)}
			if err := req.Session.NotifyProgress(ctx, p); err != nil {
				return nil, nil, fmt.Errorf("progress step %d: %w", step, err)
			}
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("done in %d steps", progressSteps)}}}, nil, nil
}

// sdkVersion is the SDK's version as recorded in the build, or "unknown".
func sdkVersion() string { return peerhost.ModuleVersion(sdkModule) }
