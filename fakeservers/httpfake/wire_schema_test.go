package httpfake

import (
	"io"
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/harness/mcp"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
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

// The well-behaved fake sends only messages the schema of the version it
// negotiated accepts.
func TestWellBehavedFakeSendsSchemaValidMessages(t *testing.T) {
	f := startFake(t, Options{Case: "well-behaved"})
	c := newClient(t, f)
	body := func(resp *http.Response) []byte {
		t.Helper()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	resp := c.post(initializeMessage(t, jsonrpc.IntID(1), "2025-11-25"))
	msgs := [][]byte{body(resp)}
	c.session = resp.Header.Get(mcp.HeaderSessionID)
	msgs = append(msgs, body(c.post(testRequest(t, jsonrpc.IntID(2), "tools/list", nil))))
	msgs = append(msgs, body(c.call(3, "echo")))
	answers := map[string]string{"1": "initialize", "2": "tools/list", "3": "tools/call"}
	wantSchemaValid(t, "2025-11-25", msgs, answers)
}
