package jsonrpc

import (
	"errors"
	"testing"
)

// built returns a function that fails the test when a constructor does.
func built(t *testing.T) func(*Message, error) *Message {
	return func(m *Message, err error) *Message {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		msg  *Message
		wire string
		kind Kind
	}{
		{"request",
			built(t)(NewRequest(IntID(1), "tools/call", map[string]string{"name": "echo"})),
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`, KindRequest},
		{"request with string id, no params",
			built(t)(NewRequest(StringID("1"), "ping", nil)),
			`{"jsonrpc":"2.0","id":"1","method":"ping"}`, KindRequest},
		{"notification",
			built(t)(NewNotification("notifications/initialized", nil)),
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification},
		{"result",
			built(t)(NewResult(StringID("a"), map[string]int{"n": 1})),
			`{"jsonrpc":"2.0","id":"a","result":{"n":1}}`, KindResult},
		{"empty result becomes {}",
			&Message{ID: IntID(4)},
			`{"jsonrpc":"2.0","id":4,"result":{}}`, KindResult},
		{"error",
			NewError(IntID(9), CodeMethodNotFound, "Method not found"),
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found"}}`, KindError},
		{"error with unknown id carries null",
			NewError(ID{}, CodeParseError, "Parse error"),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, KindError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.wire {
				t.Errorf("Encode = %s\nwant     %s", b, tc.wire)
			}
			if c := ClassifyLine(b); c != ClassMessage {
				t.Errorf("encoded line classifies as %v, want message", c)
			}
			back, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode(%s): %v", b, err)
			}
			if back.Kind() != tc.kind || back.ID.Key() != tc.msg.ID.Key() || back.ID.IsString() != tc.msg.ID.IsString() {
				t.Errorf("round trip: kind %v id %s, want kind %v id %s", back.Kind(), back.ID, tc.kind, tc.msg.ID)
			}
		})
	}
}

func TestEncodeIsOneLine(t *testing.T) {
	m := built(t)(NewResult(IntID(1), map[string]string{"text": "a\nb\r\u2028c"}))
	m.Result = append([]byte("{\n  \"pretty\": true,\n"), m.Result[1:]...)
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range b {
		if c == '\n' || c == '\r' {
			t.Fatalf("Encode wrote a line break: %q", b)
		}
	}
}

// Regression: a params value that encodes to null (a nil map) used to be sent
// as "params":null, which Decode rejects; it now means no params.
func TestNewRequestNullParamsAreOmitted(t *testing.T) {
	var none map[string]any
	m := built(t)(NewRequest(IntID(1), "ping", none))
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Errorf("Encode = %s, want no params member", b)
	}
	if _, err := Decode(b); err != nil {
		t.Errorf("Decode of our own request: %v", err)
	}
}

// Regression: scalar params used to be encoded as given, building a message
// that Decode rejects; the constructors now refuse them.
func TestNewRequestRejectsScalarParams(t *testing.T) {
	for _, p := range []any{42, "x", true} {
		if _, err := NewRequest(IntID(1), "x", p); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewRequest with params %#v: error %v, want ErrInvalid", p, err)
		}
		if _, err := NewNotification("x", p); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewNotification with params %#v: error %v, want ErrInvalid", p, err)
		}
	}
	if _, err := NewRequest(IntID(1), "x", func() {}); err == nil {
		t.Error("NewRequest with unencodable params: no error")
	}
}

func TestKind(t *testing.T) {
	cases := []struct {
		msg  Message
		want Kind
	}{
		{Message{ID: IntID(1), Method: "x"}, KindRequest},
		{Message{Method: "x"}, KindNotification},
		{Message{ID: IntID(1), Result: []byte(`{}`)}, KindResult},
		{Message{Error: &Error{Code: 1}}, KindError},
	}
	for _, tc := range cases {
		if got := tc.msg.Kind(); got != tc.want {
			t.Errorf("Kind of %+v = %v, want %v", tc.msg, got, tc.want)
		}
	}
	names := map[Kind]string{KindRequest: "request", KindNotification: "notification", KindResult: "result", KindError: "error", 0: "invalid"}
	for k, want := range names {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}
