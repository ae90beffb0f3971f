package fakeservers

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// Protocol versions a fake's initialize handshake speaks: the legacy era
// (Era says which eras a fake serves).
var legacyVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// latestLegacyVersion is what initialize answers when the proposed version is
// not one the fake speaks.
const latestLegacyVersion = "2025-11-25"

// InitializeResult is the result of a fake's initialize response.
type InitializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      Implementation `json:"serverInfo"`
}

// Implementation names the fake in its initialize result.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeReply is the success response to initialize request m: the
// proposed version when the fake speaks it, 2025-11-25 otherwise.
func InitializeReply(m *jsonrpc.Message) *jsonrpc.Message {
	var params struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &params) // a malformed proposal gets the fallback version
	return ResultMessage(m.ID, InitializeResult{
		ProtocolVersion: negotiated(params.ProtocolVersion),
		Capabilities:    Offer{}.capabilities(),
		ServerInfo:      fakeInfo,
	})
}

// fakeInfo is how the fakes name themselves (serverInfo).
var fakeInfo = Implementation{Name: "mcpconform-fake", Version: "1"}

// Tool is one tool of a fake's tools/list result.
type Tool struct {
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	InputSchema  map[string]any `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema,omitempty"`
	Annotations  map[string]any `json:"annotations,omitempty"`
}

// ToolListResult is a fake's tools/list result; the modern era's carries
// resultType and cache hints.
type ToolListResult struct {
	Tools      []Tool `json:"tools"`
	TTLMs      int64  `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
	ResultType string `json:"resultType,omitempty"`
}

// Offer is what a well-behaved fake offers. The zero Offer is one tool,
// echo, taking any object, and the tools capability.
type Offer struct {
	Tools []string // tool names; empty: "echo"
	// Schemas are the input schemas of the tools that have their own;
	// the others take any object.
	Schemas map[string]map[string]any
	// OutputSchemas are the output schemas of the tools that declare one.
	OutputSchemas map[string]map[string]any
	// Descriptions and Annotations are those of the tools that have their
	// own; the others say "mcpconform fake tool NAME" and have none.
	Descriptions map[string]string
	Annotations  map[string]map[string]any
	// Capabilities are the server's capabilities; nil: tools.
	Capabilities map[string]any
	// Paged: tools/list serves PagedTools in pages, whatever Tools says.
	Paged bool
	// Alias, when set, is the name the first tool is listed under, and a
	// call of Alias is a call of the first tool (Canonical): a conformance
	// client's scenario calls the tool of the official suite's server
	// (add_numbers) by name.
	Alias string
}

// Canonical is the offered tool a tools/call of name calls: the first tool
// for the offer's Alias, else name.
func (o Offer) Canonical(name string) string {
	if o.Alias != "" && name == o.Alias {
		return o.names()[0]
	}
	return name
}

func (o Offer) names() []string {
	if len(o.Tools) == 0 {
		return []string{"echo"}
	}
	return o.Tools
}

// ToolList is the tools/list result of the offer, in the modern era when
// modern.
func (o Offer) ToolList(modern bool) ToolListResult {
	names := o.names()
	tools := make([]Tool, len(names))
	for i, n := range names {
		schema := o.Schemas[n]
		if schema == nil {
			schema = map[string]any{"type": "object"}
		}
		desc, ok := o.Descriptions[n]
		if !ok {
			desc = "mcpconform fake tool " + n
		}
		tools[i] = Tool{Name: n, Description: desc, InputSchema: schema, OutputSchema: o.OutputSchemas[n], Annotations: o.Annotations[n]}
		if i == 0 && o.Alias != "" {
			tools[i].Name = o.Alias
		}
	}
	r := ToolListResult{Tools: tools}
	if modern {
		r.TTLMs, r.CacheScope, r.ResultType = listTTLMs, "public", resultComplete
	}
	return r
}

// capabilities are the offer's server capabilities.
func (o Offer) capabilities() map[string]any {
	if o.Capabilities == nil {
		return map[string]any{"tools": struct{}{}}
	}
	return o.Capabilities
}

// ToolCall is one tools/call request.
type ToolCall struct {
	Req   *jsonrpc.Message
	Name  string
	Index int // arrival order among the fake's tools/call requests, from 0
	// Modern: the call was served in the 2026-07-28 era, so its result
	// carries resultType.
	Modern bool
}

// ParseCall reads tools/call request m, the index-th to arrive; an error
// (for an -32602 answer) when it names no tool.
func ParseCall(m *jsonrpc.Message, index int) (ToolCall, error) {
	var params struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(m.Params, &params); err != nil || params.Name == "" {
		return ToolCall{}, errors.New(`tools/call needs params {"name": string}`)
	}
	return ToolCall{Req: m, Name: params.Name, Index: index}, nil
}

// TextContent is one text content block of a tool result.
type TextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// CallResult is the result of a fake's tools/call success response.
type CallResult struct {
	Content           []TextContent `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	ResultType        string        `json:"resultType,omitempty"`
}

// OK is the call's success response: text "ok <tool name>".
func (c ToolCall) OK() *jsonrpc.Message { return c.WithResultType(c.ResultType()) }

// ResultType is what the call's results carry in resultType: "complete"
// in the modern era, nothing in the legacy one.
func (c ToolCall) ResultType() string { return resultType(c.Modern) }

// ResultMessage builds a success response. Only fixed Go types are encoded
// here, so an encoding failure is a bug in this package.
func ResultMessage(id jsonrpc.ID, result any) *jsonrpc.Message {
	m, err := jsonrpc.NewResult(id, result)
	if err != nil {
		panic(fmt.Sprintf("fakeservers: encode result: %v", err))
	}
	return m
}

// Encode returns m as one line of JSON. The fakes encode only messages they
// built from fixed Go types, so a failure is a bug in this package.
func Encode(m *jsonrpc.Message) []byte {
	b, err := jsonrpc.Encode(m)
	if err != nil {
		panic(fmt.Sprintf("fakeservers: encode %s: %v", m.Kind(), err))
	}
	return b
}
