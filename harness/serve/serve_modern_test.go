package serve

import (
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
