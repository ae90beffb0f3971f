package wireschema

import (
	"errors"
	"strings"
	"testing"
)

func TestForResolvesVersions(t *testing.T) {
	for _, tc := range []struct{ asked, got string }{
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2026-07-28", "2026-07-28"},
		{"2024-11-05", LatestLegacy}, // legacy without a schema of its own
	} {
		s, err := For(tc.asked)
		if err != nil || s.Version() != tc.got {
			t.Errorf("For(%q) = %v, %v; want the %s schema", tc.asked, s, err, tc.got)
		}
	}
	for _, v := range []string{"2099-01-01", "draft", ""} {
		if _, err := For(v); !errors.Is(err, ErrUnknownVersion) {
			t.Errorf("For(%q) = %v; want ErrUnknownVersion", v, err)
		}
	}
}

// Definitions differ across versions; each message shape finds its own.
func TestMessagesPickTheirDefinition(t *testing.T) {
	for _, tc := range []struct {
		version, msg, answers, def string
	}{
		{"2025-03-26", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, "", "CallToolRequest"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, "", "CallToolRequest"},
		{"2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"mcpconform/unknown"}`, "", "JSONRPCRequest"},
		{"2025-06-18", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`, "", "ProgressNotification"},
		{"2025-06-18", `{"jsonrpc":"2.0","method":"notifications/mcpconform"}`, "", "JSONRPCNotification"},
		{"2025-03-26", `{"jsonrpc":"2.0","id":1,"result":{}}`, "initialize", "InitializeResult"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"result":{}}`, "tools/list", "ListToolsResult"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"result":{}}`, "ping", "EmptyResult"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"result":{}}`, "", "JSONRPCResultResponse"},
		{"2025-06-18", `{"jsonrpc":"2.0","id":1,"result":{}}`, "", "JSONRPCResponse"},
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"result":{}}`, "tools/list", "ListToolsResultResponse"},
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"result":{}}`, "sampling/createMessage", "CreateMessageResult"},
		{"2025-06-18", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, "x", "JSONRPCError"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, "x", "JSONRPCErrorResponse"},
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no"}}`, "x", "UnsupportedProtocolVersionError"},
		{"2025-06-18", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", "JSONRPCMessage"},
	} {
		s := mustFor(t, tc.version)
		if got := s.judged(t, []byte(tc.msg), tc.answers); got != tc.def {
			t.Errorf("%s %s (answers %q): judged by %s, want %s", tc.version, tc.msg, tc.answers, got, tc.def)
		}
	}
}

func TestValidMessagesPass(t *testing.T) {
	for _, tc := range []struct{ version, msg, answers string }{
		{"2025-03-26", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, ""},
		{"2025-03-26", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, ""},
		{"2025-06-18", `{"jsonrpc":"2.0","id":"a","result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`, "tools/list"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":2,"result":{}}`, "ping"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`, "mcpconform/x"},
		{"2025-11-25", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`, ""},
		{"2025-11-25", `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hi"}]}}`, "tools/call"},
	} {
		if v := mustFor(t, tc.version).Validate([]byte(tc.msg), tc.answers); v != nil {
			t.Errorf("%s %s: %v", tc.version, tc.msg, v)
		}
	}
}

func TestInvalidMessagesNameThePointerAndRule(t *testing.T) {
	for _, tc := range []struct {
		version, msg, answers string
		pointer, keyword      string
	}{
		// a tool without inputSchema, in every version
		{"2025-03-26", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}`, "tools/list", "/result/tools/0", "required"},
		{"2025-06-18", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}`, "tools/list", "/result/tools/0", "required"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"t"}]}}`, "tools/list", "/result/tools/1", "required"},
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[{"name":"t"}]}}`, "tools/list", "/result/tools/0", "required"},
		// initialize params without capabilities
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"}}}`, "", "/params", "required"},
		{"2025-03-26", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","clientInfo":{"name":"c","version":"1"}}}`, "", "/params", "required"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "", "/id", "type"},
		{"2025-11-25", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, "", "/jsonrpc", "const"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, "", "/error/code", "type"},
		{"2025-11-25", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":1}}`, "", "/params/level", "enum"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text"}]}}`, "tools/call", "/result/content/0", "required"},
		{"2025-06-18", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", "", "type"}, // no batches after 2025-03-26
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, "tools/list", "/result", "required"},
	} {
		v := mustFor(t, tc.version).Validate([]byte(tc.msg), tc.answers)
		if v == nil {
			t.Errorf("%s %s: valid, want a violation at %s", tc.version, tc.msg, tc.pointer)
			continue
		}
		if v.Pointer != tc.pointer || v.Keyword != tc.keyword {
			t.Errorf("%s %s: %v; want pointer %q, rule %q", tc.version, tc.msg, v, tc.pointer, tc.keyword)
		}
		if !strings.Contains(v.Location, tc.keyword) || v.Reason == "" {
			t.Errorf("%s %s: location %q or reason %q says nothing", tc.version, tc.msg, v.Location, v.Reason)
		}
	}
}

func TestViolationReadsAsOneLine(t *testing.T) {
	v := mustFor(t, "2025-11-25").Validate([]byte(`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"t"}]}}`), "tools/list")
	want := `tools/list result (id 3) at /result/tools/0: missing property 'inputSchema' (ListToolsResult 2025-11-25, rule "required" at 2025-11-25/schema.json#/$defs/Tool/required)`
	if v == nil || v.Error() != want {
		t.Fatalf("got  %v\nwant %s", v, want)
	}
}

func TestNotJSONIsAViolation(t *testing.T) {
	v := mustFor(t, "2025-11-25").Validate([]byte(`{"jsonrpc":`), "")
	if v == nil || v.Keyword != "json" {
		t.Fatalf("got %v; want a json violation", v)
	}
}

func TestValidateDefinitionNamesAMissingOne(t *testing.T) {
	if _, err := mustFor(t, "2025-03-26").ValidateDefinition("DiscoverResult", []byte(`{}`)); err == nil {
		t.Fatal("2025-03-26 has no DiscoverResult; want an error")
	}
}

func TestValidateIsSafeForConcurrentUse(t *testing.T) {
	s := mustFor(t, "2025-06-18")
	done := make(chan *Violation)
	for range 8 {
		go func() { done <- s.Validate([]byte(listToolsResult), "tools/list") }()
	}
	for range 8 {
		if v := <-done; v != nil {
			t.Error(v)
		}
	}
}
