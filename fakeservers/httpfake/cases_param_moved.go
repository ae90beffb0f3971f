package httpfake

import (
	"fmt"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// A tool whose x-mcp-header annotation changes between the client's
// tools/list and its call: the call is refused with -32020, which a client
// meets by listing the tools again and retrying with the headers the fresh
// list gives (HT-82).

// The tool of param-headers-moved and its one parameter, mirrored first in
// Mcp-Param-<MovedFrom>, then in Mcp-Param-<MovedTo>.
const (
	ToolMoved  = "moved"
	MovedParam = "region"
	MovedValue = "eu-west-1"
	MovedFrom  = "Region"
	MovedTo    = "Zone"
)

func init() {
	cases["param-headers-moved"] = fakeCase{
		desc: fmt.Sprintf("2026-07-28: offers %s and echo; %s's parameter %s (fixed by const) is annotated x-mcp-header %s until the first tools/call of %s arrives, %s from then on; "+
			"a call of %s without Mcp-Param-%s equal to the argument gets 400 and -32020 naming the header", ToolMoved, ToolMoved, MovedParam, MovedFrom, ToolMoved, MovedTo, ToolMoved, MovedTo),
		build: paramMoved,
	}
}

// paramMoved builds param-headers-moved.
func paramMoved(Options) (*behaviour, error) {
	var moved atomic.Bool
	return &behaviour{
		tools: []string{ToolMoved, fakeservers.ToolEcho},
		schemasNow: func() map[string]map[string]any {
			header := MovedFrom
			if moved.Load() {
				header = MovedTo
			}
			return map[string]map[string]any{ToolMoved: {"type": "object", "required": []string{MovedParam}, "properties": map[string]any{
				MovedParam: map[string]any{"type": "string", "const": MovedValue, "x-mcp-header": header},
			}}}
		},
		call: func(x *exchange, c fakeservers.ToolCall) {
			if c.Name != ToolMoved {
				x.reply(c.OK())
				return
			}
			moved.Store(true)
			header := "Mcp-Param-" + MovedTo
			got, err := mcp.DecodeHeaderValue(x.r.Header.Get(header))
			if err != nil || got != MovedValue {
				x.reply(jsonrpc.NewError(c.Req.ID, jsonrpc.CodeHeaderMismatch, fmt.Sprintf(
					"the tools/call of %s needs %s: %q, mirroring argument %s (the tool's x-mcp-header is %s now); it has %q: list the tools again",
					ToolMoved, header, MovedValue, MovedParam, MovedTo, x.r.Header.Values(header))))
				return
			}
			x.reply(c.OK())
		},
	}, nil
}
