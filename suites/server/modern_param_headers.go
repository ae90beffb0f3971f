package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	nethttp "net/http"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// headerTool is a tool whose inputSchema annotates a string argument with
// x-mcp-header (HT-79): the argument, the header that mirrors it, and
// arguments for the others the schema requires.
type headerTool struct {
	name, arg, header string
	args              map[string]any
	headers           map[string]string // the mirrors of the other required arguments
}

// findHeaderTool finds, among the tools the run may call, one with a string
// argument mirrored in a header; the check is UNIMPLEMENTED without one.
func findHeaderTool(c *run.C, p *peer) headerTool {
	for _, t := range p.tools() {
		var schema struct {
			Properties map[string]struct {
				Type   string  `json:"type"`
				Header *string `json:"x-mcp-header"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if json.Unmarshal(t.InputSchema, &schema) != nil {
			continue
		}
		names := make([]string, 0, len(schema.Properties))
		for name := range schema.Properties {
			names = append(names, name)
		}
		slices.Sort(names)
		i := slices.IndexFunc(names, func(n string) bool {
			return schema.Properties[n].Header != nil && schema.Properties[n].Type == "string"
		})
		if ok, _ := c.MayCall(t); i < 0 || !ok {
			continue
		}
		h := headerTool{name: t.Name, arg: names[i], header: mcp.HeaderParamPrefix + *schema.Properties[names[i]].Header,
			args: map[string]any{}, headers: map[string]string{}}
		for _, r := range schema.Required {
			prop := schema.Properties[r]
			if r == h.arg {
				continue
			}
			var v any = "mcpconform"
			switch prop.Type {
			case "integer", "number":
				v = 0
			case "boolean":
				v = false
			}
			h.args[r] = v
			if prop.Header != nil {
				h.headers[mcp.HeaderParamPrefix+*prop.Header] = fmt.Sprint(v)
			}
		}
		return h
	}
	c.Unimplemented("no tool the run may call has a string argument annotated with x-mcp-header, so no Mcp-Param header could be sent")
	return headerTool{}
}

// call calls the tool over a fresh connection with value as its
// argument's, and header (a value; "" leaves it out) as its Mcp-Param
// header; it returns the HTTP status and the answer.
func (h headerTool) call(c *run.C, value, header string) (int, *jsonrpc.Message) {
	args := map[string]any{h.arg: value}
	for k, v := range h.args {
		args[k] = v
	}
	override := map[string]string{h.header: header}
	for k, v := range h.headers {
		override[k] = v
	}
	c.Calls(h.name)
	return postLying(c, "tools/call", map[string]any{"name": h.name, "arguments": args}, mcp.ModernVersion, override)
}

var _ = httpServerCheck(check.Descriptor{
	ID:          "http.server.modern.param-headers",
	Title:       "a tools/call whose Mcp-Param header is missing, differs from its argument or is not valid base64 gets 400 with -32020; a faithful one is served",
	Requirement: "A server checks the Mcp-Param headers that mirror a tool's x-mcp-header arguments against the body, after base64 decoding, and rejects missing, mismatched or invalid ones with HTTP 400 and -32020.",
	Rules:       []string{"HT-81", "HT-78"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.ParamHeadersUnchecked},
}, func(c *run.C) {
	p := openPeer(c, check.HTTP)
	p.modern = mcp.ModernVersion
	h := findHeaderTool(c, p)
	const value = "mcpconform-Hello"
	encoded := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(value)) + "?="
	for _, header := range []string{value, encoded} {
		status, m := h.call(c, value, header)
		c.Require(m != nil && (m.Error == nil || m.Error.Code != jsonrpc.CodeHeaderMismatch),
			fmt.Sprintf("%s with %s: %s is served", h.name, h.header, header), "status %d, %s", status, describe(m))
	}
	for _, tc := range []struct{ header, what string }{
		{"", "missing"},
		{"mcpconform-other", "naming another value"},
		{"=?base64?" + base64.RawStdEncoding.EncodeToString([]byte(value)) + "?=", "base64 without its padding"},
		{"=?base64?bWNw!!!Y29uZm9ybQ==?=", "base64 with characters outside its alphabet"},
	} {
		status, m := h.call(c, value, tc.header)
		c.Require(status == nethttp.StatusBadRequest && m != nil && m.Error != nil && m.Error.Code == jsonrpc.CodeHeaderMismatch,
			fmt.Sprintf("HTTP 400 with error -32020 for %s %s (%q) while the argument is %q", h.header, tc.what, tc.header, value), "status %d, %s", status, describe(m))
	}
})
