package http

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The headers of a 2026-07-28 POST: the protocol version, the method and
// the name mirror the body (HT-73, HT-77), annotated tool parameters are
// mirrored as Mcp-Param-* (HT-78, HT-79), and a tool whose annotations
// break the rules is left out (HT-80).

var _ = clientCheck(check.Descriptor{
	ID:    "http.client.modern.headers-mirror-body",
	Title: "every 2026-07-28 POST carries MCP-Protocol-Version, Mcp-Method and Mcp-Name mirroring its body",
	Requirement: "Every POST of a 2026-07-28 request carries MCP-Protocol-Version equal to its _meta protocolVersion, Mcp-Method equal to its " +
		"method and, for tools/call and prompts/get, Mcp-Name equal to params.name (resources/read: params.uri).",
	Rules:    []string{"HT-73", "HT-77", "HT-83"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ModernHeaderMismatch},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "well-behaved"}, target.Invocation{})
	wantReached(c, r)
	for _, q := range modernPOSTs(r) {
		m := q.Messages[0]
		meta, _ := mcp.ModernRequest(m)
		got := q.Header.Values(mcp.HeaderProtocolVersion)
		c.Require(len(got) == 1 && got[0] == meta.Version, fmt.Sprintf("one %s header equal to the body's _meta version", mcp.HeaderProtocolVersion),
			"the POST of %s (id %s) has %s %q, its _meta names %q", m.Method, m.ID, mcp.HeaderProtocolVersion, got, meta.Version)
		problem := mcp.MirrorProblem(q.Header, m)
		c.Require(problem == "", fmt.Sprintf("%s and %s mirroring the body", mcp.HeaderMethod, mcp.HeaderName),
			"the POST of %s (id %s): %s", m.Method, m.ID, problem)
	}
})

// modernPOSTs are the POSTs of a single request.
func modernPOSTs(r *run.HTTPClientRun) []httpfake.Request {
	var out []httpfake.Request
	for _, q := range r.ByMethod("POST") {
		if len(q.Messages) == 1 && q.Messages[0].Kind() == jsonrpc.KindRequest {
			out = append(out, q)
		}
	}
	return out
}

var _ = clientCheck(check.Descriptor{
	ID:    "http.client.modern.param-headers",
	Title: "a tools/call mirrors each x-mcp-header parameter in its Mcp-Param-* header, encoded where it is not plain ASCII",
	Requirement: "A tools/call POST carries Mcp-Param-<Name> for every argument whose property is annotated x-mcp-header <Name>: strings as they " +
		"are, integers in decimal, booleans as true or false; a value that is not plain header-safe ASCII, or looks encoded, goes as " +
		"=?base64?<base64 of its UTF-8>?=.",
	Rules:    []string{"HT-79", "HT-78"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ModernParamHeaderRaw},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "param-headers"}, target.Invocation{})
	wantReached(c, r)
	q, args := wantCallPOST(c, r, httpfake.ToolRoute)
	for _, a := range httpfake.RouteArguments {
		header := "Mcp-Param-" + a.Header
		got, sent := q.Header.Values(header), mirroredValue(args[a.Name])
		if sent == "" {
			c.Require(len(got) == 0, fmt.Sprintf("no %s for an argument absent or null", header), "%s: %q", header, got)
			continue
		}
		c.Require(len(got) == 1, fmt.Sprintf("one %s header for argument %s", header, a.Name), "%s: %q", header, got)
		want := mcp.EncodeHeaderValue(sent)
		decoded, err := mcp.DecodeHeaderValue(got[0])
		c.Require(err == nil && decoded == sent && strings.HasPrefix(got[0], "=?base64?") == strings.HasPrefix(want, "=?base64?"),
			fmt.Sprintf("%s: %q, the argument %q mirrored (encoded where it is not plain ASCII or looks encoded)", header, want, sent),
			"%s: %q", header, got[0])
	}
})

// mirroredValue is the text a header mirrors argument raw with: a string
// as it is, a number in decimal, a boolean as true or false; "" when the
// argument is absent or null.
func mirroredValue(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// callArguments are the arguments of tools/call m; nil when it has none.
func callArguments(m *jsonrpc.Message) map[string]json.RawMessage {
	var p struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(m.Params, &p) // no object: no arguments
	return p.Arguments
}

// wantCallPOST is the POST of the client's tools/call of tool and the
// arguments it sent; a client that did not call it leaves nothing to judge.
func wantCallPOST(c *run.C, r *run.HTTPClientRun, tool string) (httpfake.Request, map[string]json.RawMessage) {
	for _, q := range modernPOSTs(r) {
		if m := q.Messages[0]; m.Method == fakeservers.MethodToolsCall && toolName(m) == tool {
			return q, callArguments(m)
		}
	}
	for _, call := range r.Calls {
		if call.Tool == tool && !call.OK() {
			c.Failf(fmt.Sprintf("the tools/call of %s reaches the server with its headers", tool), "the call failed before the server saw it: %s", call.Error)
		}
	}
	c.Unimplemented(fmt.Sprintf("the client never called %s (calls: %s); it must call every listed tool", tool, describeCalls(r.Calls)))
	return httpfake.Request{}, nil
}

var _ = clientCheck(check.Descriptor{
	ID:    "http.client.modern.invalid-header-tool-dropped",
	Title: "a tool whose x-mcp-header annotations break the rules is left out, never called",
	Requirement: "An HTTP client excludes from its tool list any tool whose x-mcp-header annotations break the constraints " +
		"(here two header names equal but for case), so it never calls it.",
	Rules:    []string{"HT-80"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.InvalidHeaderToolKept},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "param-headers"}, target.Invocation{})
	wantReached(c, r)
	wantCallPOST(c, r, httpfake.ToolRoute) // a client that calls nothing shows nothing
	for _, q := range modernPOSTs(r) {
		var p struct {
			Name string `json:"name"`
		}
		m := q.Messages[0]
		c.Require(m.Method != fakeservers.MethodToolsCall || json.Unmarshal(m.Params, &p) != nil || p.Name != httpfake.ToolBadHeaders,
			fmt.Sprintf("no tools/call of %s, whose x-mcp-header annotations Twin and twin clash", httpfake.ToolBadHeaders),
			"the client called it (id %s)", m.ID)
	}
})
