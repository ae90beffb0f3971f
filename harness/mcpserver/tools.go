package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// serverTool is a tool of the reference server and what it does. A tool
// that fails returns an error, which the caller gets as an isError result
// (TL-08).
type serverTool struct {
	mcp.Tool
	run func(rc *RequestContext, args json.RawMessage) (mcp.CallToolResult, error)
}

// pageResult is a list result: the page under key, and nextCursor when more
// remain (PA-01).
func pageResult[T any](key string, items []T, next string) map[string]any {
	res := map[string]any{key: items}
	if next != "" {
		res["nextCursor"] = next
	}
	return res
}

// listTools answers tools/list a page at a time (TL-02, PA-01).
func (s *Server) listTools(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	offered := toolsOffered(rc)
	all := make([]mcp.Tool, len(offered))
	for i, t := range offered {
		all[i] = t.Tool
	}
	if s.opts.Tasks && rc.sess.modern {
		for _, t := range taskTools {
			all = append(all, t.Tool)
		}
	}
	all = s.listedFor(rc.sess.protocolVersion(), all)
	if s.opts.Mutant == mutant.ToolWithoutInputSchema {
		all[0].InputSchema = nil
	}
	if s.opts.Mutant == mutant.ToolNameWithSpace {
		all[0].Name = strings.ReplaceAll(all[0].Name, "_", " ")
	}
	if s.opts.Mutant == mutant.ToolsListOrderVaries && s.toolLists.Add(1)%2 == 0 {
		slices.Reverse(all)
	}
	items, next, rpcErr := page(s, "tools", all, params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	return pageResult("tools", items, next), nil
}

// callTool answers tools/call (TL-07): an unknown tool or params that are
// not {name, arguments?} get -32602 (TL-08); a tool that fails, including on
// bad arguments, answers a result with isError (TL-08, TL-09).
func (s *Server) callTool(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	err := mcp.DecodeParams(params, &p)
	if s.opts.Mutant == mutant.PlantedCrashOnString && err == nil {
		plantedCrash(p.Arguments)
	}
	if err != nil || p.Name == "" {
		return nil, mcp.InvalidParams("tools/call needs params with a tool name")
	}
	if a := bytes.TrimSpace(p.Arguments); len(a) > 0 && a[0] != '{' && !bytes.Equal(a, []byte("null")) {
		return nil, mcp.InvalidParams("tools/call: arguments must be an object")
	}
	if tt := s.findTaskTool(rc, p.Name); tt != nil {
		return s.callTaskTool(rc, tt, p.Arguments, params)
	}
	t := findTool(toolsOffered(rc), p.Name)
	if t == nil {
		msg := fmt.Sprintf("unknown tool %q; tools/list names the tools", p.Name)
		if s.opts.Mutant == mutant.UnknownToolNotError {
			return ErrorResult(msg), nil
		}
		return nil, mcp.InvalidParams(msg)
	}
	if s.opts.Mutant == mutant.PlantedLeak && t.Name == "test_simple_text" {
		plantedLeak()
	}
	res, err := t.run(rc, p.Arguments)
	if err != nil {
		if s.opts.Mutant == mutant.ToolArgumentsProtocolError && errors.Is(err, errArgumentsMisfit) {
			return nil, mcp.InvalidParams(err.Error())
		}
		if s.opts.Mutant == mutant.ToolFailureAsRPCError {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		return ErrorResult(err.Error()), nil
	}
	return res, nil
}

func findTool(tools []serverTool, name string) *serverTool {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// decodeArgs decodes a tool's arguments into v; absent or null arguments
// leave v as it is.
func decodeArgs(args json.RawMessage, v any) error {
	if a := bytes.TrimSpace(args); len(a) == 0 || bytes.Equal(a, []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("%w: %w", errArgumentsMisfit, err)
	}
	return nil
}

// errArgumentsMisfit is the failure of a tool whose arguments do not fit
// its inputSchema: a tool-execution error, answered with isError (TL-09).
var errArgumentsMisfit = errors.New("arguments do not fit the tool's inputSchema")

// schema is a tool's inputSchema text.
func schema(s string) json.RawMessage { return json.RawMessage(s) }

// tool is the tools/list entry of a tool. Every tool of the reference reads
// and changes nothing outside its session, so each is marked read-only and
// closed-world (TL-02): what a checker that calls only such tools may call.
func tool(name, description string, inputSchema json.RawMessage) mcp.Tool {
	return mcp.Tool{Name: name, Description: description, InputSchema: inputSchema, Annotations: &readOnly}
}

// readOnly are the annotations of every tool of the reference.
var readOnly = mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)}

func ptr[T any](v T) *T { return &v }

// noArguments is the inputSchema of a tool without arguments (TL-03).
var noArguments = schema(`{"type":"object","additionalProperties":false}`)

// serverTools are the tools of the reference server, in tools/list order:
// the official conformance suite's fixtures, then mcpconform's own.
var serverTools = []serverTool{
	{tool("test_simple_text", "Returns one text block.", noArguments), simpleText},
	{tool("test_image_content", "Returns one base64 PNG image block.", noArguments), imageOnly},
	{tool("test_audio_content", "Returns one base64 WAV audio block.", noArguments), audioOnly},
	{tool("test_embedded_resource", "Returns one embedded text resource.", noArguments), embeddedResource},
	{tool("test_multiple_content_types", "Returns text, an image and an embedded resource.", noArguments), multipleContentTypes},
	{tool("test_resource_link", "Returns a text block and a resource_link to test://static-text (2025-06-18 on; before, the text only).", noArguments), resourceLink},
	{tool("test_embedded_blob", "Returns one embedded binary resource, a base64 PNG blob.", noArguments), embeddedBlob},
	{structuredContentTool, structuredContent},
	{tool("test_tool_with_logging", "Sends three info log messages, then answers.", noArguments), toolWithLogging},
	{tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 when given a progressToken, then answers.", noArguments), toolWithProgress},
	{tool("test_error_handling", "Always fails: answers a result with isError.", noArguments), errorHandling},
	{tool("test_sampling", "Asks the client's model to answer prompt (sampling/createMessage).",
		schema(`{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}`)), sampling},
	{tool("test_elicitation", "Asks the user for a username and an email (elicitation/create, form mode).",
		schema(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)), elicitation},
	{tool("test_elicitation_sep1034_defaults", "Asks the user for a form whose fields have defaults (elicitation/create, SEP-1034).", noArguments), elicitationDefaults},
	{tool("test_elicitation_sep1330_enums", "Asks the user for a form with each enum shape (elicitation/create, SEP-1330).", noArguments), elicitationEnums},
	{tool("json_schema_2020_12_tool", "Echoes its arguments; its inputSchema is JSON Schema 2020-12 with $defs, an $anchor, a $ref, allOf/anyOf and if/then/else.", jsonSchema2020), echoArguments},
	{tool("test_reconnection", "Closes the connection of its SSE stream mid-call (HTTP, 2025-11-25 on), then answers; the client resumes the stream with GET and Last-Event-ID to get the answer (SEP-1699).", noArguments), reconnection},
	{tool("slow", "Waits to be cancelled for ms milliseconds, or without ms for the server's bound, reporting progress 0 when given a progressToken; then answers.",
		schema(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}}}`)), slow},
	{tool("progress", "Reports progress 1 … steps of steps (default 3) when given a progressToken, then answers.",
		schema(`{"type":"object","properties":{"steps":{"type":"integer","minimum":1,"maximum":1000}}}`)), progressSteps},
	{tool("log", "Sends one log message at each of the eight levels, debug first; the session's level filters them.", noArguments), logEveryLevel},
	{tool("roots", "Lists the roots the client shares (roots/list).", noArguments), listRoots},
	{tool("elicit_url", "Asks the user to visit url (elicitation/create, URL mode).",
		schema(`{"type":"object","properties":{"url":{"type":"string","format":"uri"},"message":{"type":"string"}}}`)), elicitURL},
}
