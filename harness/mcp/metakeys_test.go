package mcp

import (
	"encoding/json"
	"testing"
)

// TestMetaKeyRules holds the _meta key rules to the spec's examples.
func TestMetaKeyRules(t *testing.T) {
	for _, tc := range []struct {
		key, version, rule string
	}{
		{"progressToken", "2025-11-25", ""},
		{"io.modelcontextprotocol/clientInfo", "2026-07-28", ""},
		{"io.modelcontextprotocol/serverInfo", "2025-11-25", ""},
		{"com.example/trace-id", "2025-11-25", ""},
		{"com.example/", "2025-11-25", ""},
		{"-bad.example/x", "2025-11-25", "JR-42"},
		{"bad-.example/x", "2025-11-25", "JR-42"},
		{"1bad.example/x", "2025-11-25", "JR-42"},
		{"com..example/x", "2025-11-25", "JR-42"},
		{"com.example/-x", "2025-11-25", "JR-43"},
		{"com.example/x_", "2025-11-25", "JR-43"},
		{"com.example/a/b", "2025-11-25", "JR-43"},
		{"io.modelcontextprotocol/mine", "2025-11-25", "JR-45"},
		{"dev.mcp/mine", "2026-07-28", "JR-45"},
		{"api.mcp.example/x", "2026-07-28", "JR-45"},
		{"api.mcp.example/x", "2025-06-18", "JR-44"},
		{"modelcontextprotocol.io/mine", "2025-06-18", "JR-44"},
		{"io.modelcontextprotocol/mine", "2025-06-18", ""},
		{"modelcontextprotocol.io/mine", "2025-11-25", ""},
		{"io.modelcontextprotocol/mine", "2025-03-26", ""},
	} {
		_, rule := MetaKeyFormProblem(tc.key)
		if rule == "" {
			rule = MetaKeyReservedBy(tc.key, tc.version)
		}
		if rule != tc.rule {
			t.Errorf("%q in %s breaks %q, want %q", tc.key, tc.version, rule, tc.rule)
		}
	}
	for id, ok := range map[string]bool{"com.example/ext": true, "ext": false, "-x.example/ext": false} {
		if got := ExtensionIDProblem(id); (got == "") != ok {
			t.Errorf("extension %q: %q, want ok %v", id, got, ok)
		}
	}
}

// TestTraceKeyProblem holds the W3C formats of traceparent, tracestate and
// baggage (JR-50).
func TestTraceKeyProblem(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		ok         bool
	}{
		{"traceparent", `"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`, true},
		{"traceparent", `"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later"`, true},
		{"traceparent", `"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more"`, false},
		{"traceparent", `"00-00000000000000000000000000000000-00f067aa0ba902b7-01"`, false},
		{"traceparent", `"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`, false},
		{"traceparent", `"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"`, false},
		{"traceparent", `42`, false},
		{"tracestate", `"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"`, true},
		{"tracestate", `"tenant@vendor=x, ,other=y"`, true},
		{"tracestate", `"rojo"`, false},
		{"tracestate", `"Upper=x"`, false},
		{"baggage", `"userId=alice;prop, serverNode=DF%2028"`, true},
		{"baggage", `"no value"`, false},
		{"baggage", `""`, false},
		{"other", `42`, true},
	} {
		if got := TraceKeyProblem(tc.key, json.RawMessage(tc.value)); (got == "") != tc.ok {
			t.Errorf("TraceKeyProblem(%s, %s) = %q, want ok %v", tc.key, tc.value, got, tc.ok)
		}
	}
}
