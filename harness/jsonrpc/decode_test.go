package jsonrpc

import (
	"errors"
	"strings"
	"testing"
)

// validMessages are messages Decode accepts, with their kind and id.
// FuzzDecode uses them as its seed corpus.
var validMessages = []struct {
	name string
	json string
	kind Kind
	id   ID
}{
	{"request with number id", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, KindRequest, IntID(2)},
	{"request with string id", `{"jsonrpc":"2.0","id":"2","method":"ping"}`, KindRequest, StringID("2")},
	{"request with empty string id", `{"jsonrpc":"2.0","id":"","method":"ping"}`, KindRequest, StringID("")},
	{"request with object params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`, KindRequest, IntID(1)},
	{"request with array params", `{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]}`, KindRequest, IntID(1)},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, ID{}},
	{"notification with params", `{"method":"notifications/progress","params":{"progress":1},"jsonrpc":"2.0"}`, KindNotification, ID{}},
	{"result", `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`, KindResult, IntID(7)},
	{"result with string id", `{"jsonrpc":"2.0","id":"7","result":{}}`, KindResult, StringID("7")},
	{"error", `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`, KindError, IntID(3)},
	{"error with data", `{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad","data":{"x":1}}}`, KindError, StringID("a")},
	{"error with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, KindError, ID{}},
	{"error without id", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, KindError, ID{}},
	{"surrounding white space", " \t{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n", KindResult, IntID(1)},
}

// invalidMessages are messages Decode rejects with ErrInvalid.
var invalidMessages = []struct {
	name string
	json string
}{
	{"empty", ``},
	{"not an object", `[{"jsonrpc":"2.0","method":"x"}]`},
	{"malformed", `{"jsonrpc":"2.0","method":"x"`},
	{"jsonrpc missing", `{"id":1,"method":"x"}`},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"x"}`},
	{"jsonrpc as number", `{"jsonrpc":2.0,"id":1,"method":"x"}`},
	{"jsonrpc null", `{"jsonrpc":null,"id":1,"method":"x"}`},
	{"jsonrpc key in other case", `{"JSONRPC":"2.0","id":1,"method":"x"}`},
	{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"x"}`},
	{"fractional exponent id", `{"jsonrpc":"2.0","id":1e-3,"method":"x"}`},
	{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"x"}`},
	{"object id", `{"jsonrpc":"2.0","id":{},"method":"x"}`},
	{"fractional id on result", `{"jsonrpc":"2.0","id":2.5,"result":{}}`},
	{"null id on request", `{"jsonrpc":"2.0","id":null,"method":"x"}`},
	{"method number", `{"jsonrpc":"2.0","id":1,"method":1}`},
	{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`},
	{"method empty", `{"jsonrpc":"2.0","id":1,"method":""}`},
	{"request with result", `{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`},
	{"request with error", `{"jsonrpc":"2.0","id":1,"method":"x","error":{"code":1,"message":"m"}}`},
	{"params number", `{"jsonrpc":"2.0","id":1,"method":"x","params":42}`},
	{"params string", `{"jsonrpc":"2.0","method":"x","params":"a"}`},
	{"params null", `{"jsonrpc":"2.0","method":"x","params":null}`},
	{"result without id", `{"jsonrpc":"2.0","result":{}}`},
	{"result with null id", `{"jsonrpc":"2.0","id":null,"result":{}}`},
	{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`},
	{"neither result nor error", `{"jsonrpc":"2.0","id":1}`},
	{"error null", `{"jsonrpc":"2.0","id":1,"error":null}`},
	{"error string", `{"jsonrpc":"2.0","id":1,"error":"boom"}`},
	{"error code fractional", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`},
	{"error code exponent", `{"jsonrpc":"2.0","id":1,"error":{"code":-3.27e4,"message":"m"}}`},
	{"error code string", `{"jsonrpc":"2.0","id":1,"error":{"code":"-32600","message":"m"}}`},
	{"error code missing", `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`},
	{"error code overflows int64", `{"jsonrpc":"2.0","id":1,"error":{"code":99999999999999999999,"message":"m"}}`},
	{"error message missing", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}`},
	{"error message number", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":1}}`},
}

func TestDecodeValid(t *testing.T) {
	for _, tc := range validMessages {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode([]byte(tc.json))
			if err != nil {
				t.Fatalf("Decode(%s): %v", tc.json, err)
			}
			if m.Kind() != tc.kind || m.ID.Key() != tc.id.Key() {
				t.Errorf("Decode(%s): kind %v id %s, want kind %v id %s", tc.json, m.Kind(), m.ID, tc.kind, tc.id)
			}
		})
	}
}

func TestDecodeInvalid(t *testing.T) {
	for _, tc := range invalidMessages {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode([]byte(tc.json))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode(%s) = %+v, %v; want ErrInvalid", tc.json, m, err)
			}
		})
	}
}

func TestDecodeKeepsMembers(t *testing.T) {
	m, err := Decode([]byte(`{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"echo"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Method != "tools/call" || string(m.Params) != `{"name":"echo"}` {
		t.Errorf("request: method %q params %s", m.Method, m.Params)
	}
	m, err = Decode([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Error.Code != CodeResourceNotFound || m.Error.Message != "Resource not found" || string(m.Error.Data) != `{"uri":"x"}` {
		t.Errorf("error: %+v data %s", m.Error, m.Error.Data)
	}
	if got := m.Error.Error(); got != "json-rpc error -32002: Resource not found" {
		t.Errorf("Error() = %q", got)
	}
}

func TestDecodeBatch(t *testing.T) {
	ms, err := DecodeBatch([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","method":"b"}, {"jsonrpc":"2.0","id":"1","result":{}}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind Kind
		id   ID
	}{{KindRequest, IntID(1)}, {KindNotification, ID{}}, {KindResult, StringID("1")}}
	if len(ms) != len(want) {
		t.Fatalf("DecodeBatch gave %d messages, want %d", len(ms), len(want))
	}
	for i, w := range want {
		if ms[i].Kind() != w.kind || ms[i].ID.Key() != w.id.Key() {
			t.Errorf("element %d: kind %v id %s, want %v %s", i, ms[i].Kind(), ms[i].ID, w.kind, w.id)
		}
	}
}

func TestDecodeBatchInvalid(t *testing.T) {
	cases := map[string]string{
		"empty array":         `[]`,
		"not an array":        `{"jsonrpc":"2.0","method":"x"}`,
		"null":                `null`,
		"malformed":           `[{"jsonrpc":"2.0","method":"x"}`,
		"element not object":  `[{"jsonrpc":"2.0","method":"x"},1]`,
		"element invalid":     `[{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"1.0","method":"y"}]`,
		"element without rpc": `[{"id":1,"result":{}}]`,
	}
	for name, in := range cases {
		ms, err := DecodeBatch([]byte(in))
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: DecodeBatch(%s) = %d messages, %v; want ErrInvalid", name, in, len(ms), err)
		}
	}
}

func TestDecodeBatchNamesTheElement(t *testing.T) {
	_, err := DecodeBatch([]byte(`[{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":1.5,"method":"y"}]`))
	if err == nil || !strings.Contains(err.Error(), "batch element 1") {
		t.Errorf("error %v, want it to name batch element 1", err)
	}
}

// TestDecodeKeepsNoReference: a decoded message survives its bytes being
// overwritten, as a reader that reuses its buffer (sse.Reader.NextBytes)
// overwrites them.
func TestDecodeKeepsNoReference(t *testing.T) {
	var inputs []string
	for _, v := range validMessages {
		inputs = append(inputs, v.json)
	}
	inputs = append(inputs, "["+validMessages[3].json+","+validMessages[10].json+"]")
	for _, in := range inputs {
		b := []byte(in)
		msgs := DecodeAny(b)
		if len(msgs) == 0 {
			t.Fatalf("%s does not decode", in)
		}
		want := encodeAll(t, msgs)
		for i := range b {
			b[i] = 'x'
		}
		if got := encodeAll(t, msgs); got != want {
			t.Errorf("%s: after its bytes were overwritten the message encodes as %s, want %s", in, got, want)
		}
	}
}

func encodeAll(t *testing.T, msgs []*Message) string {
	t.Helper()
	var out strings.Builder
	for _, m := range msgs {
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
	}
	return out.String()
}
