package httpserver_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// modernNotifyBody is a 2026-07-28 call of the notify tool, which sends a
// log notification about the request before its result.
func modernNotifyBody() string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"notify","_meta":{%q:%q,%q:{}}}}`,
		mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities)
}

var modernNotifyHeaders = []header{versionHeader(mcp.ModernVersion), methodHeader("tools/call"), {"Mcp-Name", "notify"}}

func TestServerModernStreamsWhatTheHandlerSends(t *testing.T) {
	e := serve(t, minimal(""))
	resp := e.post(modernNotifyBody(), modernNotifyHeaders...)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("%s with Mcp-Session-Id %q, want 200 without a session (HT-60)", resp.Status, resp.Header.Get("Mcp-Session-Id"))
	}
	s := openSSE(t, resp)
	if m, _ := s.wantMessage(); m.Method != "notifications/message" {
		t.Fatalf("first message %s, want the tool's log notification (HT-22)", m.Method)
	}
	m, _ := s.wantMessage()
	wantResult(t, m, jsonrpc.IntID(9))
	s.wantEnd()
}

func TestServerModernJSONResponsesSendNothingBeforeTheAnswer(t *testing.T) {
	cfg := minimal("")
	cfg.JSONResponse = true
	e := serve(t, cfg)
	status, m := modernAnswer(t, e, modernNotifyBody(), modernNotifyHeaders...)
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	wantResult(t, m, jsonrpc.IntID(9))
}
