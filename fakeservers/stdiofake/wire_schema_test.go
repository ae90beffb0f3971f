package stdiofake

import (
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// wantSchemaValid fails t for each message that breaks the schema of
// version; answers maps a request id (JSON text) to its method.
func wantSchemaValid(t *testing.T, version string, msgs [][]byte, answers map[string]string) {
	t.Helper()
	s, err := wireschema.For(version)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) == 0 {
		t.Fatal("the fake sent nothing")
	}
	for _, raw := range msgs {
		var method string
		if m, err := jsonrpc.Decode(raw); err == nil {
			method = answers[m.ID.Key()]
		}
		if v := s.Validate(raw, method); v != nil {
			t.Errorf("%s: %v", raw, v)
		}
	}
}

// wantSentSchemaValid closes the fake's stdin and checks that it sent one
// message per request of answers, each valid by the schema of version.
func (f *fakeConn) wantSentSchemaValid(version string, answers map[string]string) {
	f.t.Helper()
	f.closeStdin()
	var sent [][]byte
	for _, e := range f.readRecord().Events {
		if e.Type == EventSend {
			sent = append(sent, []byte(e.Line))
		}
	}
	if len(sent) != len(answers) {
		f.t.Fatalf("the fake sent %d messages; want %d, one per request", len(sent), len(answers))
	}
	wantSchemaValid(f.t, version, sent, answers)
}

// The well-behaved fakes send only messages their negotiated version's
// schema accepts: the client checks judge clients by what they say to them.
func TestWellBehavedFakeSendsSchemaValidMessages(t *testing.T) {
	for _, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := startFake(t, Options{Case: "well-behaved"})
				answers := map[string]string{"1": "server/discover", "2": "initialize", "3": "ping", "4": "tools/list", "5": "tools/call", "6": "mcpconform/none"}
				f.request(1, "server/discover", map[string]any{})
				f.nextMessage()
				f.request(2, "initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
				f.nextMessage()
				f.sendMessage(jsonrpc.ID{}, "notifications/initialized", nil)
				f.request(3, "ping", nil)
				f.request(4, "tools/list", nil)
				f.callTool(jsonrpc.IntID(5), "echo")
				f.request(6, "mcpconform/none", map[string]any{})
				for range 4 {
					f.nextMessage()
				}
				f.wantSentSchemaValid(version, answers)
			})
		})
	}
}

// So do the modern fake's answers, its refusals included, by the schema of
// 2026-07-28.
func TestModernFakeSendsSchemaValidMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "well-behaved", Era: fakeservers.Modern})
		answers := map[string]string{"1": "initialize", "0": mcp.MethodDiscover, "2": "tools/list", "3": "tools/call", "4": "tools/list", "5": "mcpconform/none"}
		f.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
		f.nextMessage()
		f.discover()
		f.modernRequest(jsonrpc.IntID(2), "tools/list", nil)
		f.modernRequest(jsonrpc.IntID(3), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}})
		f.request(4, "tools/list", nil)
		f.modernRequest(jsonrpc.IntID(5), "mcpconform/none", nil)
		for range 4 {
			f.nextMessage()
		}
		f.wantSentSchemaValid(mcp.ModernVersion, answers)
	})
}
