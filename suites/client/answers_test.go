package client

import "testing"

// responseProblem reads a response from its bytes, so that it judges the
// shapes the harness's decoder drops (JR-08, JR-09, JR-11), which no
// mutant of the reference client can send, as well as JR-12.
func TestResponseProblem(t *testing.T) {
	for _, tc := range []struct {
		frame, version, rule string
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, "2025-11-25", ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, "2025-11-25", ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601.0,"message":"Method not found"}}`, "2025-11-25", ""},
		{`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, "2025-06-18", "JR-08"},
		{`{"jsonrpc":"2.0","id":1}`, "2025-03-26", "JR-08"},
		{`{"jsonrpc":"2.0","id":1}`, "2025-11-25", "JR-09"},
		{`{"jsonrpc":"2.0","id":1,"result":"pong"}`, "2025-11-25", "JR-09"},
		{`{"jsonrpc":"2.0","id":1,"result":"pong"}`, "2025-06-18", ""},
		{`{"jsonrpc":"2.0","id":1,"error":"no"}`, "2025-11-25", "JR-09"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}`, "2025-11-25", "JR-09"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"m"}}`, "2025-06-18", "JR-11"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601.5,"message":"m"}}`, "2025-11-25", "JR-11"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"a\nb"}}`, "2025-11-25", "JR-12"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"a\nb"}}`, "2025-06-18", ""},
	} {
		objects := responseObjects(tc.frame)
		if len(objects) != 1 {
			t.Fatalf("%s: %d responses, want 1", tc.frame, len(objects))
		}
		if rule, problem := responseProblem(objects[0], tc.version); rule != tc.rule {
			t.Errorf("%s in %s: rule %q (%s), want %q", tc.frame, tc.version, rule, problem, tc.rule)
		}
	}
	if n := len(responseObjects(`[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","id":2,"result":{}}]`)); n != 1 {
		t.Errorf("a batch of a request and a response: %d responses, want 1", n)
	}
}
