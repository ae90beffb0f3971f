package httpserver_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// modernBody is a 2026-07-28 request of method naming version in _meta.
func modernBody(method, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":%q,"params":{"_meta":{%q:%q,%q:{}}}}`,
		method, mcp.MetaProtocolVersion, version, mcp.MetaClientCapabilities)
}

func methodHeader(m string) header { return header{"Mcp-Method", m} }

// modernHeaders are the headers of a well-formed 2026-07-28 discover POST.
func modernHeaders(version string) []header {
	return []header{versionHeader(version), methodHeader(mcp.MethodDiscover)}
}

// modernAnswer posts a modern request and returns the status and the
// JSON-RPC answer.
func modernAnswer(t *testing.T, e *endpoint, body string, headers ...header) (int, *jsonrpc.Message) {
	t.Helper()
	resp := e.post(body, headers...)
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a modern answer carries Mcp-Session-Id %q (HT-60)", resp.Header.Get("Mcp-Session-Id"))
	}
	m, err := jsonrpc.Decode(data)
	if err != nil {
		t.Fatalf("answer %q: %v", data, err)
	}
	return resp.StatusCode, m
}

func TestServerModernPath(t *testing.T) {
	e := serve(t, minimal(""))
	status, m := modernAnswer(t, e, modernBody(mcp.MethodDiscover, mcp.ModernVersion), modernHeaders(mcp.ModernVersion)...)
	if status != http.StatusOK || m.Error != nil || !strings.Contains(string(m.Result), "supportedVersions") {
		t.Errorf("discover: %d %s %v", status, m.Result, m.Error)
	}
	for _, c := range []struct {
		name    string
		body    string
		headers []header
		status  int
		code    int64
	}{
		{"unsupported version", modernBody(mcp.MethodDiscover, "2099-01-01"), modernHeaders("2099-01-01"), http.StatusBadRequest, jsonrpc.CodeUnsupportedProtocolVersion},
		{"version header mismatch", modernBody(mcp.MethodDiscover, mcp.ModernVersion), modernHeaders("2025-11-25"), http.StatusBadRequest, jsonrpc.CodeHeaderMismatch},
		{"no version header", modernBody(mcp.MethodDiscover, mcp.ModernVersion), []header{methodHeader(mcp.MethodDiscover)}, http.StatusBadRequest, jsonrpc.CodeHeaderMismatch},
		{"no method header", modernBody(mcp.MethodDiscover, mcp.ModernVersion), []header{versionHeader(mcp.ModernVersion)}, http.StatusBadRequest, jsonrpc.CodeHeaderMismatch},
		{"method header mismatch", modernBody(mcp.MethodDiscover, mcp.ModernVersion), []header{versionHeader(mcp.ModernVersion), methodHeader("tools/list")}, http.StatusBadRequest, jsonrpc.CodeHeaderMismatch},
		{"missing _meta", `{"jsonrpc":"2.0","id":9,"method":"server/discover"}`, []header{methodHeader(mcp.MethodDiscover)}, http.StatusBadRequest, jsonrpc.CodeInvalidParams},
		{"unknown method", modernBody("no/such", mcp.ModernVersion), []header{versionHeader(mcp.ModernVersion), methodHeader("no/such")}, http.StatusNotFound, jsonrpc.CodeMethodNotFound},
	} {
		status, m := modernAnswer(t, e, c.body, c.headers...)
		if status != c.status || m.Error == nil || m.Error.Code != c.code {
			t.Errorf("%s: %d %v, want %d with %d", c.name, status, m.Error, c.status, c.code)
		}
	}
	// A legacy request without a session is still refused (HT-55).
	if resp := e.post(pingBody); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a legacy request without a session got %s", resp.Status)
	}
}

func TestServerEraConfigs(t *testing.T) {
	legacy := minimal("")
	legacy.LegacyOnly = true
	e := serve(t, legacy)
	if resp := e.post(modernBody(mcp.MethodDiscover, mcp.ModernVersion), modernHeaders(mcp.ModernVersion)...); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("legacy only: discover without a session got %s, want the legacy 400", resp.Status)
	}
	modern := minimal("")
	modern.ModernOnly = true
	e = serve(t, modern)
	// Every POST is answered statelessly; one without _meta lacks what
	// every request of the era carries (JR-47).
	if status, m := modernAnswer(t, e, pingBody, methodHeader("ping")); status != http.StatusBadRequest || m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("modern only: ping without _meta got %d %v", status, m.Error)
	}
	if status, m := modernAnswer(t, e, modernBody(mcp.MethodDiscover, mcp.ModernVersion), modernHeaders(mcp.ModernVersion)...); status != http.StatusOK || m.Error != nil {
		t.Errorf("modern only: discover got %d %v", status, m.Error)
	}
	if resp := e.send(http.MethodGet, ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("modern only: GET got %s, want 405 (HT-60)", resp.Status)
	}
}

func init() {
	ruleOf[mutant.UnsupportedVersionStatus200] = func(t *testing.T, e *endpoint) (bool, string) {
		status, m := modernAnswer(t, e, modernBody(mcp.MethodDiscover, "2099-01-01"), modernHeaders("2099-01-01")...)
		return status != http.StatusBadRequest, fmt.Sprint(status, m.Error)
	}
	ruleOf[mutant.HeaderMismatchAccepted] = func(t *testing.T, e *endpoint) (bool, string) {
		status, m := modernAnswer(t, e, modernBody(mcp.MethodDiscover, mcp.ModernVersion), modernHeaders("2025-11-25")...)
		return status != http.StatusBadRequest || m.Error == nil || m.Error.Code != jsonrpc.CodeHeaderMismatch, fmt.Sprint(status, m.Error)
	}
	ruleOf[mutant.MirrorHeadersUnchecked] = func(t *testing.T, e *endpoint) (bool, string) {
		status, m := modernAnswer(t, e, modernBody(mcp.MethodDiscover, mcp.ModernVersion), versionHeader(mcp.ModernVersion), methodHeader("tools/list"))
		return status != http.StatusBadRequest || m.Error == nil || m.Error.Code != jsonrpc.CodeHeaderMismatch, fmt.Sprint(status, m.Error)
	}
}

// firstEventOfPing opens a session, POSTs a ping and returns the first
// event of its SSE answer.
func firstEventOfPing(t *testing.T, e *endpoint) sseEvent {
	sid := e.session()
	resp := e.post(pingBody, sessionHeader(sid))
	defer resp.Body.Close()
	return openSSE(t, resp).wantEvent()
}

func init() {
	ruleOf[mutant.NoPrimingEvent] = func(t *testing.T, e *endpoint) (bool, string) {
		first := firstEventOfPing(t, e)
		return !first.hasID || first.data != "", fmt.Sprintf("id %q, data %q", first.id, first.data)
	}
	ruleOf[mutant.NoRetryField] = func(t *testing.T, e *endpoint) (bool, string) {
		first := firstEventOfPing(t, e)
		return first.retry == "", fmt.Sprintf("retry %q", first.retry)
	}
}
