package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

func init() {
	serverRuleOf[mutant.CancelsClientRequest] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		id := p.id()
		p.callID(id, "tools/call", `{"name":"test_simple_text"}`)
		for _, n := range ofMethod(p.drain(), "notifications/cancelled") {
			var c struct {
				RequestID jsonrpc.ID `json:"requestId"`
			}
			_ = json.Unmarshal(n.Params, &c)
			if c.RequestID.Key() == id.Key() {
				return true, "notifications/cancelled naming the client's request " + id.String()
			}
		}
		return false, "no notifications/cancelled naming the client's tools/call"
	}
	serverRuleOf[mutant.ModernStdioRequest] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.call("tools/call", modernParams(mcp.ModernVersion, `"name":"test_simple_text"`))
		var requests []string
		for _, s := range p.drain() {
			if s.Kind() == jsonrpc.KindRequest {
				requests = append(requests, s.Method)
			}
		}
		return len(requests) > 0, fmt.Sprintf("requests sent about a 2026-07-28 tool call: %v", requests)
	}
	serverRuleOf[mutant.LateReplyAnswered] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		late, _ := jsonrpc.NewResult(jsonrpc.IntID(7), map[string]any{})
		resp := p.handle(late)
		return resp != nil, fmt.Sprintf("a reply no request waits for got %v", resp)
	}
	serverRuleOf[mutant.ModernAnswersCancelled] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		done := p.start(jsonrpc.IntID(7), "tools/call", fmt.Sprintf(`{"name":"slow","arguments":{"ms":600000},"_meta":{%q:%q,%q:{},"progressToken":"slow"}}`,
			mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities))
		if first := p.next(); first.Method != "notifications/progress" {
			t.Fatalf("slow sent %s first, want its progress", first.Method)
		}
		p.notify("notifications/cancelled", `{"requestId":7}`)
		resp := <-done
		return resp != nil, fmt.Sprintf("%+v", resp)
	}
	serverRuleOf[mutant.InitializeNamesNoVersions] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeerWith(t, Options{Era: EraModern, Mutant: m})
		resp := p.call("initialize", initParams("2025-11-25", "{}"))
		if resp.Error == nil {
			t.Fatalf("a modern-only server answered initialize with %s", resp.Result)
		}
		return !strings.Contains(string(resp.Error.Data), mcp.ModernVersion), fmt.Sprintf("error %d %q data %s", resp.Error.Code, resp.Error.Message, resp.Error.Data)
	}
	serverRuleOf[mutant.ProgressTokenForeign] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		p.call("tools/call", `{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":"mine"}}`)
		for _, n := range ofMethod(p.drain(), "notifications/progress") {
			if !strings.Contains(string(n.Params), `"progressToken":"mine"`) {
				return true, string(n.Params)
			}
		}
		return false, "every progress names the request's token"
	}
	serverRuleOf[mutant.CursorBoundToConnection] = func(t *testing.T, m mutant.Name) (bool, string) {
		first := newPeerWith(t, Options{PageSize: 1, Mutant: m}).call("tools/list", modernParams(mcp.ModernVersion, ""))
		var page struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(first.Result, &page)
		next := newPeerWith(t, Options{PageSize: 1, Mutant: m}).call("tools/list", modernParams(mcp.ModernVersion, fmt.Sprintf(`"cursor":%q`, page.NextCursor)))
		return next.Error != nil, fmt.Sprintf("the cursor %q on another server instance got %+v", page.NextCursor, next.Error)
	}
	serverRuleOf[mutant.CancelWithoutRequestID] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		p.tool("test_simple_text", "")
		for _, n := range ofMethod(p.drain(), "notifications/cancelled") {
			if !strings.Contains(string(n.Params), `"requestId"`) {
				return true, "notifications/cancelled without a requestId: " + string(n.Params)
			}
		}
		return false, "no notifications/cancelled without a requestId"
	}
}
