package mcpserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The rules of the mutants of the 2026-07-28 streams (SB-01 … SB-03,
// PR-11, CN-11, HT-81).
func init() {
	serverRuleOf[mutant.ListenNoticeBeforeAck] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.start(jsonrpc.IntID(50), mcp.MethodListen, listenParams(`{"toolsListChanged":true}`))
		first := p.next()
		return first.Method != mcp.NotificationAcknowledged, "first " + first.Method
	}
	serverRuleOf[mutant.ListenUntagged] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		startListen(t, p, jsonrpc.IntID(51), `{"toolsListChanged":true}`)
		p.trigger("test_trigger_tool_change", "{}")
		n := p.await(func(m *jsonrpc.Message) bool { return m.Method == mcp.NotificationToolsListChanged })
		return subscriptionOf(n) != "51", "params " + string(n.Params)
	}
	serverRuleOf[mutant.ListenIgnoresFilter] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		startListen(t, p, jsonrpc.IntID(52), `{"promptsListChanged":true}`)
		p.trigger("test_trigger_tool_change", "{}")
		p.trigger("test_trigger_prompt_change", "{}")
		var seen []string
		for {
			n := p.await(func(m *jsonrpc.Message) bool { return m.Kind() == jsonrpc.KindNotification })
			seen = append(seen, n.Method)
			if n.Method == mcp.NotificationPromptsListChanged {
				return len(seen) > 1, fmt.Sprint(seen)
			}
		}
	}
	serverRuleOf[mutant.ListenIgnoresCancel] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		p.ctx = ctx
		_, done := startListen(t, p, jsonrpc.IntID(55), `{"toolsListChanged":true}`)
		p.notify("notifications/cancelled", `{"requestId":55}`)
		p.trigger("test_trigger_tool_change", "{}")
		for {
			select {
			case <-done:
				return false, "the stream ended"
			case n := <-p.sent:
				if n.Method == mcp.NotificationToolsListChanged {
					stop()
					<-done
					return true, "the cancelled stream got " + n.Method
				}
			case <-time.After(serverWait):
				t.Fatalf("neither the end of the cancelled stream nor a notification on it within %v", serverWait)
			}
		}
	}
	serverRuleOf[mutant.ProgressOnListenStream] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		startListen(t, p, jsonrpc.IntID(53), `{}`)
		p.call("tools/call", fmt.Sprintf(`{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"p",%q:%q,%q:{}}}`,
			mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities))
		n := p.await(func(m *jsonrpc.Message) bool { return m.Method == "notifications/progress" })
		return subscriptionOf(n) != "", "progress " + string(n.Params)
	}
	serverRuleOf[mutant.CancelEchoed] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		done := p.start(jsonrpc.IntID(54), "tools/call", modernParams(mcp.ModernVersion, `"name":"slow","arguments":{"ms":600000}`))
		p.notify("notifications/cancelled", `{"requestId":54}`)
		<-done
		sent := ofMethod(p.drain(), "notifications/cancelled")
		return len(sent) > 0, fmt.Sprintf("%d notifications/cancelled", len(sent))
	}
	serverRuleOf[mutant.ParamHeadersUnchecked] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := callWithHeaders(newPeer(t, m), `{"region":"us-west1"}`, "Mcp-Param-Region", "us-east1")
		return resp.Error == nil, resp.Kind().String()
	}
}
