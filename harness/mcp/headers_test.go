package mcp

import (
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestHeaderValueEncoding(t *testing.T) {
	for v, want := range map[string]string{
		"tools/call":        "tools/call",
		"get_weather":       "get_weather",
		"résumé":            "=?base64?csOpc3Vtw6k=?=",
		" padded":           "=?base64?IHBhZGRlZA==?=",
		"line\nbreak":       "=?base64?bGluZQpicmVhaw==?=",
		"=?base64?abc?=":    "=?base64?PT9iYXNlNjQ/YWJjPz0=?=",
		"file:///tmp/a.txt": "file:///tmp/a.txt",
	} {
		got := encodeHeaderValue(v)
		if got != want {
			t.Errorf("encode %q = %q, want %q", v, got, want)
		}
		if back, err := decodeHeaderValue(got); err != nil || back != v {
			t.Errorf("decode %q = %q, %v", got, back, err)
		}
	}
}

func TestMirrorHeaders(t *testing.T) {
	call, _ := jsonrpc.NewRequest(jsonrpc.IntID(1), "tools/call", map[string]any{"name": "météo", "arguments": map[string]any{}})
	h := http.Header{}
	SetModernHeaders(h, call)
	if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != encodeHeaderValue("météo") {
		t.Fatalf("headers %v", h)
	}
	if p := MirrorProblem(h, call); p != "" {
		t.Errorf("matching headers: %s", p)
	}
	h.Set("Mcp-Name", "other")
	if MirrorProblem(h, call) == "" {
		t.Error("a mismatched Mcp-Name passes")
	}
	h.Del("Mcp-Name")
	if MirrorProblem(h, call) == "" {
		t.Error("a missing Mcp-Name passes")
	}
	list, _ := jsonrpc.NewRequest(jsonrpc.IntID(2), "tools/list", nil)
	h = http.Header{}
	SetModernHeaders(h, list)
	if h.Get("Mcp-Name") != "" || MirrorProblem(h, list) != "" {
		t.Errorf("tools/list: %v", h)
	}
}
