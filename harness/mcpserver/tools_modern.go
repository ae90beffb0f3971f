package mcpserver

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// modernTools are the tools the server offers in the 2026-07-28 era only,
// after serverTools: the official suite's diagnostic tools of that era, the
// triggers of the notifications a subscriptions/listen stream carries, and
// a tool whose arguments are mirrored in headers (x-mcp-header).
var modernTools = []serverTool{
	{tool("test_missing_capability", "Asks the client's model to answer (sampling); a request whose _meta does not declare sampling gets -32021.", noArguments), missingCapability},
	{tool("test_streaming_elicitation", "Reports progress on its own response stream when given a progressToken, then answers; it never sends a request, whatever the request declares (HT-22).", noArguments), streamingDiagnostic},
	{tool("test_logging_tool", "Sends one info log message, which goes out only when the request's _meta names a logLevel (LG-12), then answers.", noArguments), loggingDiagnostic},
	{tool("test_trigger_tool_change", "Announces a change of the tool list to the subscriptions/listen streams that opted into toolsListChanged; the list itself stays the same.", noArguments), announcer(mcp.NotificationToolsListChanged)},
	{tool("test_trigger_prompt_change", "Announces a change of the prompt list to the subscriptions/listen streams that opted into promptsListChanged; the list itself stays the same.", noArguments), announcer(mcp.NotificationPromptsListChanged)},
	{tool("test_trigger_resource_update", "Announces an update of the resource at uri (default "+watchedResource+") to the subscriptions/listen streams subscribed to it; its contents stay the same.",
		schema(`{"type":"object","properties":{"uri":{"type":"string"}}}`)), resourceUpdate},
	{tool("test_custom_headers", "Echoes its arguments. Over HTTP, region, priority and verbose are mirrored in the Mcp-Param-Region, Mcp-Param-Priority and Mcp-Param-Verbose headers (x-mcp-header), which the server checks against the arguments (HT-81).", customHeadersSchema), echoArguments},
}

// toolsOffered are the tools of rc's era: in the 2026-07-28 era the input
// tools (tools_mrtr.go) and the modern tools follow the legacy ones.
func toolsOffered(rc *RequestContext) []serverTool {
	if rc.sess.modern {
		return modernToolList
	}
	return serverTools
}

// modernToolList are the tools of the 2026-07-28 era, in tools/list order.
var modernToolList = slices.Concat(serverTools, inputTools, modernTools)

// customHeadersSchema is test_custom_headers' inputSchema: a string, an
// integer and a boolean argument, each mirrored in a header (HT-79).
var customHeadersSchema = schema(`{"type":"object","properties":{` +
	`"region":{"type":"string","description":"Mirrored in Mcp-Param-Region","x-mcp-header":"Region"},` +
	`"priority":{"type":"integer","description":"Mirrored in Mcp-Param-Priority","x-mcp-header":"Priority"},` +
	`"verbose":{"type":"boolean","description":"Mirrored in Mcp-Param-Verbose","x-mcp-header":"Verbose"}}}`)

// missingCapability asks the client's model (CX-05), as test_sampling does
// with a fixed prompt.
func missingCapability(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	return sampling(rc, json.RawMessage(`{"prompt":"mcpconform: answer anything"}`))
}

// streamingDiagnostic reports progress 1 of 1 (CX-03) and answers.
func streamingDiagnostic(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	if err := rc.Progress(1, 1, "streamed on the request's own response stream"); err != nil {
		return mcp.CallToolResult{}, err
	}
	return TextResult("Streaming complete"), nil
}

// loggingDiagnostic logs one info message (CX-02) and answers.
func loggingDiagnostic(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	if err := rc.Log("info", serverLogger, "diagnostic log message"); err != nil {
		return mcp.CallToolResult{}, err
	}
	return TextResult("Logging evaluated"), nil
}

// announcer is a tool that announces a change of method's kind to the
// listen streams (SB-01).
func announcer(method string) func(*RequestContext, json.RawMessage) (mcp.CallToolResult, error) {
	return func(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
		if rc.srv.opts.Mutant != mutant.ListChangeUnannounced {
			rc.srv.hub.announce(rc.srv.opts.Mutant, method, "")
		}
		return TextResult("announced " + method), nil
	}
}

// watchedResource is the resource test_trigger_resource_update announces
// without a uri.
const watchedResource = "test://watched-resource"

// resourceUpdate announces an update of a resource the server has.
func resourceUpdate(rc *RequestContext, args json.RawMessage) (mcp.CallToolResult, error) {
	a := struct {
		URI string `json:"uri"`
	}{URI: watchedResource}
	if err := decodeArgs(args, &a); err != nil {
		return mcp.CallToolResult{}, err
	}
	if _, ok := resourceContents(a.URI); !ok {
		return mcp.CallToolResult{}, errors.New("test_trigger_resource_update: no resource at " + a.URI + "; resources/list names the resources")
	}
	rc.srv.hub.announce(rc.srv.opts.Mutant, mcp.NotificationResourceUpdated, a.URI)
	return TextResult("announced an update of " + a.URI), nil
}
