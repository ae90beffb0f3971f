package httpserver_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The rules of the transport's mutants for issue 20's coverage: HT-29c,
// HT-51, HT-60, HT-71, HT-75, HT-76, HT-83.
func init() {
	ruleOf[mutant.UnknownMethodStatus200] = func(t *testing.T, e *endpoint) (bool, string) {
		status, m := modernAnswer(t, e, modernBody("no/such", mcp.ModernVersion), versionHeader(mcp.ModernVersion), methodHeader("no/such"))
		return status != http.StatusNotFound || m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound, fmt.Sprint(status, m.Error)
	}
	ruleOf[mutant.MissingVersionHeaderServed] = func(t *testing.T, e *endpoint) (bool, string) {
		status, m := modernAnswer(t, e, modernBody(mcp.MethodDiscover, mcp.ModernVersion), methodHeader(mcp.MethodDiscover))
		return status != http.StatusBadRequest || m.Error == nil || m.Error.Code != jsonrpc.CodeHeaderMismatch, fmt.Sprint(status, m.Error)
	}
	ruleOf[mutant.MirrorValueCaseFolded] = func(t *testing.T, e *endpoint) (bool, string) {
		status, m := modernAnswer(t, e, modernBody(mcp.MethodDiscover, mcp.ModernVersion), versionHeader(mcp.ModernVersion), methodHeader(strings.ToUpper(mcp.MethodDiscover)))
		return status != http.StatusBadRequest || m.Error == nil || m.Error.Code != jsonrpc.CodeHeaderMismatch, fmt.Sprint(status, m.Error)
	}
	ruleOf[mutant.NoAccelBuffering] = func(t *testing.T, e *endpoint) (bool, string) {
		resp := e.post(modernNotifyBody(), modernNotifyHeaders...)
		drain(resp)
		v := resp.Header.Get("X-Accel-Buffering")
		return v != "no", fmt.Sprintf("%s, X-Accel-Buffering %q", resp.Header.Get("Content-Type"), v)
	}
	ruleOf[mutant.ModernMintsSession] = func(t *testing.T, e *endpoint) (bool, string) {
		resp := e.post(modernBody(mcp.MethodDiscover, mcp.ModernVersion), modernHeaders(mcp.ModernVersion)...)
		drain(resp)
		return resp.Header.Get("Mcp-Session-Id") != "", fmt.Sprintf("Mcp-Session-Id %q", resp.Header.Get("Mcp-Session-Id"))
	}
	ruleOf[mutant.SequentialSessionIDs] = func(t *testing.T, e *endpoint) (bool, string) {
		a, b := e.session(), e.session()
		return len(a) < 16 || strings.TrimRight(a, "0123456789") == strings.TrimRight(b, "0123456789"), a + " " + b
	}
	ruleOf[mutant.MissingVersionRefused] = func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.initialize("2025-11-25")
		resp := e.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, sessionHeader(sid))
		drain(resp)
		return resp.StatusCode != http.StatusOK, resp.Status
	}
}
