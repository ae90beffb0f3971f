package jsonrpc

import "testing"

func TestInvalidRequestReply(t *testing.T) {
	for _, tc := range []struct {
		in     string
		ok     bool
		wantID string
	}{
		{`{"jsonrpc":"1.0","id":"a","method":"ping"}`, true, `"a"`},
		{`{"id":7,"method":"ping"}`, true, `7`},
		{`{"jsonrpc":"2.0","id":"b"}`, true, `"b"`},
		{`{"jsonrpc":"2.0","id":6,"method":42}`, true, `6`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, true, `null`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, true, `null`},
		{`{"jsonrpc":"2.0","method":42}`, true, `null`},
		{`{"jsonrpc":"1.0","id":1,"result":{}}`, false, ""},
		{`{"jsonrpc":"2.0","id":1,"error":"bad"}`, false, ""},
		{`[{"jsonrpc":"2.0"}]`, false, ""},
		{`42`, false, ""},
	} {
		_, err := Decode([]byte(tc.in))
		if err == nil {
			t.Fatalf("%s decodes; the test needs an invalid message", tc.in)
		}
		m, ok := InvalidRequestReply([]byte(tc.in), err)
		if ok != tc.ok {
			t.Fatalf("%s: ok = %v, want %v", tc.in, ok, tc.ok)
		}
		if !ok {
			continue
		}
		if m.Error == nil || m.Error.Code != CodeInvalidRequest || m.ID.String() != tc.wantID {
			t.Errorf("%s: got %+v with id %s, want -32600 with id %s", tc.in, m.Error, m.ID, tc.wantID)
		}
	}
}
