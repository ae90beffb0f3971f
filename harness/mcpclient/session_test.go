package mcpclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// wantKind fails unless err carries failure kind.
func wantKind(t *testing.T, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v: want kind %v", err, kind)
	}
}

// TestConnectHandshake: LC-03, LC-05, LC-08.
func TestConnectHandshake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		res := make(chan error, 1)
		var s *Session
		go func() {
			var err error
			s, err = Connect(context.Background(), f, Options{Era: EraLegacy})
			res <- err
		}()
		init := f.expect(t, "initialize")
		if init.ID != jsonrpc.IntID(1) {
			t.Errorf("initialize id %s, want 1", init.ID)
		}
		p := params(t, init)
		if p["protocolVersion"] != "2025-11-25" {
			t.Errorf("proposed %v, want the first preference 2025-11-25", p["protocolVersion"])
		}
		if caps, ok := p["capabilities"].(map[string]any); !ok || len(caps) != 1 || caps["elicitation"] == nil {
			t.Errorf("capabilities %v, want elicitation alone", p["capabilities"])
		}
		if ci, _ := p["clientInfo"].(map[string]any); ci["name"] != "mcpconform-reference" || ci["version"] != "dev" {
			t.Errorf("clientInfo %v", p["clientInfo"])
		}
		f.reply(t, init, initResult("2025-06-18"))
		if err := <-res; err != nil {
			t.Fatal(err)
		}
		if n := f.expect(t, "notifications/initialized"); !n.ID.IsZero() {
			t.Errorf("initialized carries id %s", n.ID)
		}
		if s.ProtocolVersion() != "2025-06-18" || !strings.Contains(string(s.InitializeResult()), `"serverInfo"`) {
			t.Errorf("version %q, result %s", s.ProtocolVersion(), s.InitializeResult())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestConnectRejectsAVersionItDoesNotSpeak: LC-10.
func TestConnectRejectsAVersionItDoesNotSpeak(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		res := connectFailing(f, Options{Era: EraLegacy})
		f.reply(t, f.expect(t, "initialize"), initResult("1999-01-01"))
		err := <-res
		wantKind(t, err, failure.ErrProtocol)
		for _, want := range []string{`"1999-01-01"`, "2025-11-25, 2025-06-18, 2025-03-26"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
		}
		f.nothingSent(t)
		if f.closed == 0 {
			t.Error("the transport was not closed")
		}
	})
}

// TestStartupTimeout: NG-09 from the transport's launch, LC-13 no cancel for
// initialize, the transport closed; and the startup mutants.
func TestStartupTimeout(t *testing.T) {
	for _, tt := range []struct {
		m          mutant.Name
		bare       bool          // the transport reports no launch time
		wantAfter  time.Duration // Connect returns this long after it was called
		wantCancel bool
	}{
		{m: "", wantAfter: 8 * time.Second},
		{m: "", bare: true, wantAfter: 10 * time.Second},
		{m: mutant.CancelInitialize, wantAfter: 8 * time.Second, wantCancel: true},
		{m: mutant.NoStartupTimeout, wantAfter: time.Minute},
	} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			time.Sleep(2 * time.Second) // the server was launched 2s before Connect
			var tr Transport = f
			if tt.bare {
				tr = bareTransport{f}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			called := time.Now()
			_, err := Connect(ctx, tr, Options{Era: EraLegacy, Mutant: tt.m})
			if took := time.Since(called); took != tt.wantAfter {
				t.Errorf("mutant %q bare %v: Connect returned after %v, want %v", tt.m, tt.bare, took, tt.wantAfter)
			}
			wantKind(t, err, failure.ErrTimeout)
			f.expect(t, "initialize")
			if tt.wantCancel {
				if c := f.expect(t, "notifications/cancelled"); params(t, c)["requestId"] != float64(1) {
					t.Errorf("cancelled %s", c.Params)
				}
			}
			f.nothingSent(t)
			if f.closed == 0 {
				t.Error("the transport was not closed")
			}
		})
	}
}

// TestConnectFailsWhenTheTransportEnds: the handshake fails at once with the
// transport's failure kind.
func TestConnectFailsWhenTheTransportEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		res := connectFailing(f, Options{Era: EraLegacy})
		f.expect(t, "initialize")
		f.end(failure.New(failure.ErrProtocol, "read stdout", "damaged line"))
		err := <-res
		wantKind(t, err, failure.ErrProtocol)
		if !strings.Contains(err.Error(), "initialize") || !strings.Contains(err.Error(), "damaged line") {
			t.Errorf("error %q", err)
		}
	})
}

// TestDiscoverNoFallbackMutant: the mutant probes server/discover and gives
// up on its error (LC-45), while variant DiscoverFallback, refused the same
// way, falls back to initialize.
func TestDiscoverNoFallbackMutant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		res := connectFailing(f, Options{Mutant: mutant.DiscoverNoFallback})
		d := f.expect(t, "server/discover")
		f.deliver(t, jsonrpc.NewError(d.ID, jsonrpc.CodeMethodNotFound, "Method not found"))
		wantKind(t, <-res, failure.ErrProtocol)
	})
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		res := make(chan error, 1)
		go func() {
			s, err := Connect(context.Background(), f, Options{Mutant: mutant.DiscoverFallback})
			if err == nil {
				err = s.Close()
			}
			res <- err
		}()
		d := f.expect(t, "server/discover")
		if meta, _ := params(t, d)["_meta"].(map[string]any); meta[mcp.MetaProtocolVersion] != mcp.ModernVersion {
			t.Errorf("the probe's _meta is %v, want the protocol version %s", meta, mcp.ModernVersion)
		}
		f.deliver(t, jsonrpc.NewError(d.ID, jsonrpc.CodeMethodNotFound, "Method not found"))
		f.reply(t, f.expect(t, "initialize"), initResult("2025-11-25"))
		f.expect(t, "notifications/initialized")
		if err := <-res; err != nil {
			t.Fatalf("variant %s: Connect after the refused probe: %v", mutant.DiscoverFallback, err)
		}
	})
}

func TestConnectRejectsNegativeTimeouts(t *testing.T) {
	f := newFakeTransport()
	if _, err := Connect(context.Background(), f, Options{Era: EraLegacy, CallTimeout: -1}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("Connect = %v, want a negative-timeout error", err)
	}
}

// TestJSONRPCErrorOnInitialize: a refusal is a protocol failure wrapping the
// server's error.
func TestJSONRPCErrorOnInitialize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		res := connectFailing(f, Options{Era: EraLegacy})
		init := f.expect(t, "initialize")
		f.deliver(t, jsonrpc.NewError(init.ID, jsonrpc.CodeInvalidParams, "Unsupported protocol version"))
		err := <-res
		wantKind(t, err, failure.ErrProtocol)
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("error %v does not wrap the server's error", err)
		}
	})
}

// connectFailing runs Connect in the background for a test that expects it
// to fail, and delivers its error.
func connectFailing(f *fakeTransport, opts Options) <-chan error {
	res := make(chan error, 1)
	go func() {
		_, err := Connect(context.Background(), f, opts)
		res <- err
	}()
	return res
}
