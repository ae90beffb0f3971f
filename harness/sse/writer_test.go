package sse

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

func TestAppendEvent(t *testing.T) {
	for _, c := range []struct {
		name, id string
		data     []byte
		retry    time.Duration
		want     string
	}{
		{"priming", "3-1", nil, 0, "id: 3-1\ndata: \n\n"},
		{"priming with retry", "3-1", nil, 1500 * time.Millisecond, "id: 3-1\nretry: 1500\ndata: \n\n"},
		{"retry under a millisecond", "3-1", nil, time.Microsecond, "id: 3-1\ndata: \n\n"},
		{"message", "3-2", []byte(`{"jsonrpc":"2.0","method":"x"}`), time.Second, "id: 3-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n"},
		{"line breaks", "4-7", []byte("a\nb\r\nc\rd"), 0, "id: 4-7\nevent: message\ndata: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"empty payload", "4-8", []byte{}, 0, "id: 4-8\nevent: message\ndata: \n\n"},
	} {
		if got := string(AppendEvent(nil, c.id, c.data, c.retry)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestWrittenEventsReadBack checks the writer against the package's SSE
// reader: what the server writes, the client reads as written.
func TestWrittenEventsReadBack(t *testing.T) {
	var wire []byte
	wire = AppendEvent(wire, "1-1", nil, 250*time.Millisecond)
	wire = AppendEvent(wire, "1-2", []byte(`{"jsonrpc":"2.0","method":"x"}`), 250*time.Millisecond)
	wire = AppendEvent(wire, "1-3", []byte("two\nlines"), 0)
	r := NewReader(bytes.NewReader(wire), 1<<10)
	for _, want := range []Event{{ID: "1-1", Retry: 250 * time.Millisecond, HasRetry: true}, {ID: "1-2", Type: "message", Data: `{"jsonrpc":"2.0","method":"x"}`}, {ID: "1-3", Type: "message", Data: "two\nlines"}} {
		got, err := r.Next()
		if err != nil || got != want {
			t.Fatalf("read %+v (%v), want %+v", got, err, want)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}
}
