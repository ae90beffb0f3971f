package httpfake

import (
	"io"
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers"
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

// So does the modern fake, its refusals included, by the schema of
// 2026-07-28.
func TestModernFakeSendsSchemaValidMessages(t *testing.T) {
	f := startFake(t, Options{Case: "well-behaved", Era: fakeservers.Modern})
	c := newClient(t, f)
	sent := []struct {
		resp   *http.Response
		method string
	}{
		{c.post(initializeMessage(t, jsonrpc.IntID(1), "2025-11-25")), "initialize"},
		{c.postModern(modernMessage(t, 2, mcp.MethodDiscover, nil)), mcp.MethodDiscover},
		{c.postModern(modernMessage(t, 3, "tools/list", nil)), "tools/list"},
		{c.postModern(modernMessage(t, 4, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}})), "tools/call"},
		{c.postModern(modernMessage(t, 5, "tools/list", nil), mcp.HeaderMethod+": ping"), "tools/list"},
	}
	for _, s := range sent {
		b, err := io.ReadAll(s.resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		v, err := wireschema.Validate(mcp.ModernVersion, b, s.method)
		if err != nil {
			t.Fatal(err)
		}
		if v != nil {
			t.Errorf("%s: %v", b, v)
		}
	}
}
