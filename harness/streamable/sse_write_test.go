package streamable

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestAppendEvent(t *testing.T) {
	for _, c := range []struct {
		name, id string
		data     []byte
		want     string
	}{
		{"priming", "3-1", nil, "id: 3-1\ndata: \n\n"},
		{"message", "3-2", []byte(`{"jsonrpc":"2.0","method":"x"}`), "id: 3-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n"},
		{"line breaks", "4-7", []byte("a\nb\r\nc\rd"), "id: 4-7\nevent: message\ndata: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"empty payload", "4-8", []byte{}, "id: 4-8\nevent: message\ndata: \n\n"},
	} {
		if got := string(appendEvent(nil, c.id, c.data)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestWrittenEventsReadBack checks the writer against the package's SSE
// reader: what the server writes, the client reads as written.
func TestWrittenEventsReadBack(t *testing.T) {
	var wire []byte
	wire = appendEvent(wire, "1-1", nil)
	wire = appendEvent(wire, "1-2", []byte(`{"jsonrpc":"2.0","method":"x"}`))
	wire = appendEvent(wire, "1-3", []byte("two\nlines"))
	r := NewSSEReader(bytes.NewReader(wire), 1<<10)
	for _, want := range []Event{{ID: "1-1"}, {ID: "1-2", Type: "message", Data: `{"jsonrpc":"2.0","method":"x"}`}, {ID: "1-3", Type: "message", Data: "two\nlines"}} {
		got, err := r.Next()
		if err != nil || got != want {
			t.Fatalf("read %+v (%v), want %+v", got, err, want)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}
}
