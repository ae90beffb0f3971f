package jsonrpc

import "testing"

func TestEncodeCallAndDecodeAny(t *testing.T) {
	req, err := EncodeCall(IntID(3), "ping", nil)
	if err != nil || string(req) != `{"jsonrpc":"2.0","id":3,"method":"ping"}` {
		t.Fatalf("request %s, %v", req, err)
	}
	note, err := EncodeCall(ID{}, "notifications/initialized", map[string]any{})
	if err != nil || string(note) != `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}` {
		t.Fatalf("notification %s, %v", note, err)
	}
	if _, err := EncodeCall(IntID(1), "x", 7); err == nil {
		t.Error("params 7 encoded")
	}
	for body, want := range map[string]int{
		string(req): 1,
		"[" + string(req) + "," + string(note) + "]": 2,
		`{"jsonrpc":"2.0","id":1`:                    0,
		`[]`:                                         0,
		`text/plain error`:                           0,
	} {
		if got := DecodeAny([]byte(body)); len(got) != want {
			t.Errorf("DecodeAny(%s) = %d messages, want %d", body, len(got), want)
		}
	}
}
