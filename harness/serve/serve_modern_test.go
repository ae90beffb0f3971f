package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mcpserver"
)

// postModern POSTs body with headers (name, value pairs) and returns the
// status and the JSON-RPC answer.
func postModern(t *testing.T, url, body string, headers ...string) (int, *jsonrpc.Message) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	m, err := jsonrpc.Decode(data)
	if err != nil {
		t.Fatalf("%s: answer %q: %v", resp.Status, data, err)
	}
	return resp.StatusCode, m
}

func start(t *testing.T, o Options) string {
	t.Helper()
	url, stop, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	return url
}

func TestModernHTTPAnswers(t *testing.T) {
	dual := start(t, Options{})
	// A modern version header without _meta: the request lacks its context
	// (JR-47), not a version the server would refuse.
	status, m := postModern(t, dual, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "MCP-Protocol-Version", mcp.ModernVersion, "Mcp-Method", "tools/list")
	if status != http.StatusBadRequest || m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("dual, no _meta: %d %v, want 400 with -32602", status, m.Error)
	}

	modern := start(t, Options{Era: mcpserver.EraModern})
	// A legacy initialize learns the versions served (LC-48).
	status, m = postModern(t, modern, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if status != http.StatusBadRequest || m.Error == nil || m.Error.Code != jsonrpc.CodeUnsupportedProtocolVersion || !strings.Contains(string(m.Error.Data), mcp.ModernVersion) {
		t.Errorf("modern only, initialize: %d %v, want 400 with -32022 naming %s", status, m.Error, mcp.ModernVersion)
	}
	// Batches are gone (JR-37).
	status, m = postModern(t, modern, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	if status != http.StatusBadRequest || m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("modern only, batch: %d %v, want 400 with -32600", status, m.Error)
	}
}

// openModern POSTs a 2026-07-28 request of method with params' fields and
// its mirrored headers, and returns the response with its body unread;
// ctx ending closes it.
func openModern(t *testing.T, ctx context.Context, url string, id int, method, fields string) *http.Response {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"_meta":{%q:%q,%q:{}}%s}}`,
		id, method, mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities, fields)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	m, _ := jsonrpc.Decode([]byte(body))
	mcp.SetModernHeaders(req.Header, m)
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ModernVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestModernHTTPListenStream(t *testing.T) {
	url := start(t, Options{})
	ctx, closeStream := context.WithCancel(context.Background())
	defer closeStream()
	resp := openModern(t, ctx, url, 7, mcp.MethodListen, `,"notifications":{"toolsListChanged":true}`)
	defer resp.Body.Close()
	stream := sseMessages(t, resp)
	if ack := nextOn(t, stream); ack.Method != mcp.NotificationAcknowledged || !strings.Contains(string(ack.Params), `"toolsListChanged":true`) {
		t.Fatalf("first message %s %s, want the acknowledgement of toolsListChanged (SB-02)", ack.Method, ack.Params)
	}
	trigger := openModern(t, context.Background(), url, 8, "tools/call", `,"name":"test_trigger_tool_change","arguments":{}`)
	trigger.Body.Close()
	if n := nextOn(t, stream); n.Method != mcp.NotificationToolsListChanged || !strings.Contains(string(n.Params), mcp.MetaSubscriptionID+`":7`) {
		t.Fatalf("then %s %s, want the tool list change tagged with subscription 7 (SB-03)", n.Method, n.Params)
	}
	// Closing the stream cancels the subscription (HT-27): the server keeps
	// serving.
	closeStream()
	status, m := postModern(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{%q:%q,%q:{}}}}`,
		mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities), "MCP-Protocol-Version", mcp.ModernVersion, "Mcp-Method", "tools/list")
	if status != http.StatusOK || m.Error != nil {
		t.Errorf("after the stream closed: %d %v", status, m.Error)
	}
}
