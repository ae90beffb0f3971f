package httpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mcpserver"
)

// MinimalServer is the smallest MCP server, the transport tests' fixture: the initialize
// handshake with version negotiation (LC-04, LC-09), ping (PG-02),
// logging/setLevel (LG-03, LG-06), and two tools. "echo" returns its "text"
// argument, or "ok"; "notify" sends a notifications/message log notification
// on the request's stream before its result (HT-21). Its Handle has the shape
// of httpserver.Handler with the session as a mcpserver.SessionInfo.
type MinimalServer struct {
	versions []string // supported protocol versions, newest first
}

// NewMinimalServer returns a minimal server speaking mcp.LegacyProtocolVersions.
func NewMinimalServer() *MinimalServer {
	return &MinimalServer{versions: slices.Clone(mcp.LegacyProtocolVersions)}
}

// Handle answers one message. Requests get their response; notifications and
// responses get nil (JR-14). Related messages go out through out.
func (m *MinimalServer) Handle(ctx context.Context, _ mcpserver.SessionInfo, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
	if req.Kind() != jsonrpc.KindRequest {
		return nil
	}
	result, rpcErr := m.dispatch(ctx, req, out)
	if rpcErr != nil {
		return &jsonrpc.Message{ID: req.ID, Error: rpcErr}
	}
	resp, err := jsonrpc.NewResult(req.ID, result)
	if err != nil {
		return jsonrpc.NewError(req.ID, jsonrpc.CodeInternalError, "the server could not encode its result")
	}
	return resp
}

func (m *MinimalServer) dispatch(ctx context.Context, req *jsonrpc.Message, out func(*jsonrpc.Message) error) (any, *jsonrpc.Error) {
	if meta, modern := mcp.ModernRequest(req); modern {
		// Enough of the 2026-07-28 era for the transport's modern path.
		if problem := meta.Problem(); problem != nil {
			return nil, problem
		}
		if !slices.Contains(mcp.ModernProtocolVersions, meta.Version) {
			return nil, mcp.UnsupportedVersion(meta.Version, mcp.ModernProtocolVersions)
		}
		if req.Method == mcp.MethodDiscover {
			return map[string]any{"supportedVersions": mcp.ModernProtocolVersions, "capabilities": map[string]any{}, "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}, nil
		}
	}
	switch req.Method {
	case "initialize":
		return m.initialize(req.Params)
	case "ping":
		return struct{}{}, nil
	case "logging/setLevel":
		return setLevel(req.Params)
	case "tools/list":
		return map[string]any{"tools": minimalTools}, nil
	case "tools/call":
		return callTool(ctx, req.Params, out)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method %q is not offered by this server", req.Method)}
}

// initialize answers with the proposed version when the server speaks it, and
// otherwise with its newest (LC-09).
func (m *MinimalServer) initialize(params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		ProtocolVersion *string `json:"protocolVersion"`
	}
	if err := mcp.DecodeParams(params, &p); err != nil || p.ProtocolVersion == nil {
		return nil, mcp.InvalidParams("initialize needs params with a string protocolVersion")
	}
	version := m.versions[0]
	if slices.Contains(m.versions, *p.ProtocolVersion) {
		version = *p.ProtocolVersion
	}
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
		"serverInfo":      map[string]string{"name": mcpserver.Name, "version": mcpserver.Version},
	}, nil
}

// setLevel accepts a valid level (LG-03) and refuses any other with -32602
// (LG-06). The minimal server logs only at info, from the notify tool, and
// does not filter by the level yet.
func setLevel(params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Level string `json:"level"`
	}
	if err := mcp.DecodeParams(params, &p); err != nil || !slices.Contains(mcp.LogLevels(), p.Level) {
		return nil, mcp.InvalidParams(fmt.Sprintf("logging/setLevel needs a level, one of %v", mcp.LogLevels()))
	}
	return struct{}{}, nil
}

// minimalTools are the tools of tools/list.
var minimalTools = []mcp.Tool{
	{
		Name:        "echo",
		Description: "Returns its text argument, or \"ok\" without one.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
	},
	{
		Name:        "notify",
		Description: "Sends a log notification on the request's stream, then returns \"ok\".",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
	},
}

func callTool(ctx context.Context, params json.RawMessage, out func(*jsonrpc.Message) error) (any, *jsonrpc.Error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := mcp.DecodeParams(params, &p); err != nil || p.Name == "" {
		return nil, mcp.InvalidParams("tools/call needs params with a tool name")
	}
	switch p.Name {
	case "echo":
		var args struct {
			Text *string `json:"text"`
		}
		if len(p.Arguments) > 0 && json.Unmarshal(p.Arguments, &args) != nil {
			return mcpserver.ErrorResult(`echo takes an object argument with an optional string "text"`), nil
		}
		if args.Text == nil {
			return mcpserver.TextResult("ok"), nil
		}
		return mcpserver.TextResult(*args.Text), nil
	case "notify":
		note, err := jsonrpc.NewNotification("notifications/message", map[string]any{
			"level": "info", "logger": "notify", "data": "the notify tool was called",
		})
		if err == nil && ctx.Err() == nil {
			_ = out(note)
		}
		return mcpserver.TextResult("ok"), nil
	}
	return nil, mcp.InvalidParams(fmt.Sprintf("unknown tool %q; tools/list names the tools", p.Name))
}
