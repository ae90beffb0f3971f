package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The rules of the mutants of mutant/server_features2.go (TL-18, TL-06,
// LG-14, CP-04, TL-09, RS-07).
func init() {
	serverRuleOf[mutant.ToolsListOrderVaries] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		first, again := p.call("tools/list", "{}"), p.call("tools/list", "{}")
		return string(first.Result) != string(again.Result), "two tools/list results that differ"
	}
	serverRuleOf[mutant.ListChangeUnannounced] = func(t *testing.T, m mutant.Name) (bool, string) {
		// The resource update announced after the tool list change comes
		// after it on the stream, which keeps their order.
		p := newPeer(t, m)
		startListen(t, p, jsonrpc.IntID(60), `{"toolsListChanged":true,"resourceSubscriptions":["test://watched-resource"]}`)
		p.trigger("test_trigger_tool_change", "{}")
		p.trigger("test_trigger_resource_update", "{}")
		n := p.await(func(m *jsonrpc.Message) bool { return m.Kind() == jsonrpc.KindNotification })
		return n.Method != mcp.NotificationToolsListChanged, "first " + n.Method
	}
	serverRuleOf[mutant.LogLevelUnknownAccepted] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		resp := p.call("tools/list", fmt.Sprintf(`{"_meta":{%q:%q,%q:{},%q:"loud"}}`, mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities, mcp.MetaLogLevel))
		return resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams, fmt.Sprintf("%+v", resp.Error)
	}
	serverRuleOf[mutant.CompletionUnknownPromptServed] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.call("completion/complete", `{"ref":{"type":"ref/prompt","name":"no_such_prompt"},"argument":{"name":"a","value":""}}`)
		return resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams, fmt.Sprintf("%s %+v", resp.Result, resp.Error)
	}
	serverRuleOf[mutant.ToolArgumentsProtocolError] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.call("tools/call", `{"name":"progress","arguments":{"steps":"many"}}`)
		var r struct {
			IsError bool `json:"isError"`
		}
		_ = json.Unmarshal(resp.Result, &r)
		return !r.IsError, fmt.Sprintf("%s %+v", resp.Result, resp.Error)
	}
	serverRuleOf[mutant.ResourceURIInvalid] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		var r struct {
			Resources []Resource `json:"resources"`
		}
		if err := json.Unmarshal(p.call("resources/list", "{}").Result, &r); err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(r.Resources, func(res Resource) bool { return strings.ContainsAny(res.URI, " \t") })
		return i >= 0, fmt.Sprintf("%d resources, a URI with white space at %d", len(r.Resources), i)
	}
}
