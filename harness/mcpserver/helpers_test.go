package mcpserver

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// testSession is the session a transport would hand the server.
type testSession struct{}

func (testSession) ID() string              { return "s" }
func (testSession) ProtocolVersion() string { return "2025-11-25" }

func wantServerResult(t *testing.T, resp *jsonrpc.Message, contains ...string) {
	t.Helper()
	if resp.Kind() != jsonrpc.KindResult {
		t.Fatalf("got error %+v, want a result", resp.Error)
	}
	for _, s := range contains {
		if !strings.Contains(string(resp.Result), s) {
			t.Errorf("result %s lacks %s", resp.Result, s)
		}
	}
}

func wantServerError(t *testing.T, resp *jsonrpc.Message, code int64) {
	t.Helper()
	if resp.Kind() != jsonrpc.KindError || resp.Error.Code != code {
		t.Fatalf("got %s %+v, want error %d", resp.Kind(), resp.Error, code)
	}
}
