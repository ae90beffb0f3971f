package httpfake

import (
	"io"
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// The well-behaved fake sends only messages the schema of the version it
// negotiated accepts: the client checks judge clients by what they say to it.
func TestWellBehavedFakeSendsSchemaValidMessages(t *testing.T) {
	const version = "2025-11-25"
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
	resp := c.post(initializeMessage(t, jsonrpc.IntID(1), version))
	msgs := [][]byte{body(resp)}
	c.session = resp.Header.Get(mcp.HeaderSessionID)
	msgs = append(msgs, body(c.post(testRequest(t, jsonrpc.IntID(2), "tools/list", nil))))
	msgs = append(msgs, body(c.call(3, "echo")))
	for i, method := range []string{"initialize", "tools/list", "tools/call"} {
		v, err := wireschema.Validate(version, msgs[i], method)
		if err != nil {
			t.Fatal(err)
		}
		if v != nil {
			t.Errorf("%s: %v", msgs[i], v)
		}
	}
}
