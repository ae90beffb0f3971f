package mcpclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// failingTransport is the fake transport with a FailureSource, as the
// streamable HTTP client is.
type failingTransport struct {
	*fakeTransport
	failures chan RequestFailure
}

func (f *failingTransport) Failures() <-chan RequestFailure { return f.failures }

// TestRequestFailureFailsThePendingCall: a RequestFailure fails the call
// with that id at once, keeping its kind; one for an id that is not pending
// is ignored; the session goes on.
func TestRequestFailureFailsThePendingCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &failingTransport{fakeTransport: newFakeTransport(), failures: make(chan RequestFailure)}
		s, err := connectWith(t, f)
		if err != nil {
			t.Fatal(err)
		}
		f.failures <- RequestFailure{ID: jsonrpc.IntID(99), Err: failure.New(failure.ErrConnection, "POST", "ignored")}
		c := goCall(context.Background(), s, "tools/call")
		req := f.expect(t, "tools/call")
		f.failures <- RequestFailure{ID: jsonrpc.StringID(req.ID.String()), Err: failure.New(failure.ErrConnection, "POST", "wrong id type")}
		f.failures <- RequestFailure{ID: req.ID, Err: failure.New(failure.ErrProtocol, "POST tools/call", "SSE event too large")}
		r := <-c
		wantKind(t, r.err, failure.ErrProtocol)
		if !strings.Contains(r.err.Error(), "tools/call") || !strings.Contains(r.err.Error(), "too large") {
			t.Fatalf("error %v", r.err)
		}
		go func() { f.reply(t, f.expect(t, "ping"), map[string]any{}) }()
		if err := s.Ping(context.Background()); err != nil {
			t.Fatalf("ping after the failure: %v", err)
		}
	})
}

// TestRequestFailureFailsConnect: a failed initialize exchange fails
// Connect with the failure's kind, without waiting for the startup timeout.
func TestRequestFailureFailsConnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &failingTransport{fakeTransport: newFakeTransport(), failures: make(chan RequestFailure)}
		res := make(chan error, 1)
		go func() {
			_, err := Connect(context.Background(), f, Options{Era: EraLegacy})
			res <- err
		}()
		init := f.expect(t, "initialize")
		f.failures <- RequestFailure{ID: init.ID, Err: failure.New(failure.ErrProtocol, "initialize", "no session id")}
		err := <-res
		if !errors.Is(err, failure.ErrProtocol) || !strings.Contains(err.Error(), "no session id") {
			t.Fatalf("Connect: %v", err)
		}
	})
}

// TestClosedFailureChannelIsTolerated: a transport that closes its failure
// channel early leaves the session working.
func TestClosedFailureChannelIsTolerated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &failingTransport{fakeTransport: newFakeTransport(), failures: make(chan RequestFailure)}
		close(f.failures)
		s, err := connectWith(t, f)
		if err != nil {
			t.Fatal(err)
		}
		go func() { f.reply(t, f.expect(t, "ping"), map[string]any{}) }()
		if err := s.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// connectWith runs Connect over f while the fake answers the handshake.
func connectWith(t *testing.T, f *failingTransport) (*Session, error) {
	t.Helper()
	type result struct {
		s   *Session
		err error
	}
	res := make(chan result, 1)
	go func() {
		s, err := Connect(context.Background(), f, Options{Era: EraLegacy})
		res <- result{s, err}
	}()
	f.reply(t, f.expect(t, "initialize"), initResult("2025-11-25"))
	r := <-res
	if r.err == nil {
		f.expect(t, "notifications/initialized")
		t.Cleanup(func() { _ = r.s.Close() })
	}
	return r.s, r.err
}
