package httpserver_test

import (
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestInitializeMintsAVisibleASCIISessionID(t *testing.T) {
	e := serve(t, minimal(""))
	seen := map[string]bool{}
	for range 3 {
		resp := e.post(initializeBody("2025-06-18"))
		wantStatus(t, resp, http.StatusOK)
		sid := resp.Header.Get("Mcp-Session-Id")
		if len(sid) < 16 {
			t.Fatalf("session id %q is too short to be unguessable", sid)
		}
		for _, c := range []byte(sid) {
			if c < 0x21 || c > 0x7e {
				t.Fatalf("session id %q has byte %#x outside 0x21-0x7E", sid, c)
			}
		}
		if seen[sid] {
			t.Fatalf("session id %q issued twice", sid)
		}
		seen[sid] = true
	}
}

func TestInitializeNegotiatesTheVersion(t *testing.T) {
	e := serve(t, minimal(""))
	for proposed, want := range map[string]string{"2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "2024-11-05": "2025-11-25", "2026-07-28": "2025-11-25"} {
		result := wantResult(t, readAnswer(t, e.post(initializeBody(proposed))), jsonrpc.IntID(1))
		var r struct {
			ProtocolVersion string
			Capabilities    map[string]any
			ServerInfo      struct{ Name, Version string }
		}
		decode(t, result, &r)
		if r.ProtocolVersion != want || r.ServerInfo.Name != "mcpconform-reference" || r.Capabilities["tools"] == nil {
			t.Errorf("proposed %s: result %s, want version %s", proposed, result, want)
		}
	}
}

func TestRequestWithoutSessionGets400(t *testing.T) {
	e := serve(t, minimal(""))
	e.initialize("2025-11-25")
	resp := e.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	wantRefusal(t, resp, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, false)
	wantRefusal(t, e.send(http.MethodGet, ""), http.StatusBadRequest, jsonrpc.CodeInvalidRequest, false)
	wantRefusal(t, e.send(http.MethodDelete, ""), http.StatusBadRequest, jsonrpc.CodeInvalidRequest, false)
}

func TestUnknownSessionGets404(t *testing.T) {
	e := serve(t, minimal(""))
	e.initialize("2025-11-25")
	resp := e.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, sessionHeader("NOSUCHSESSION"))
	wantRefusal(t, resp, http.StatusNotFound, -32000, false)
	wantStatus(t, e.send(http.MethodGet, "", sessionHeader("NOSUCHSESSION")), http.StatusNotFound)
}

func TestDeleteEndsTheSession(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	other := e.initialize("2025-11-25")
	s := e.getStream(sid)
	s.wantPriming()
	wantStatus(t, e.send(http.MethodDelete, "", sessionHeader(sid), versionHeader("2025-11-25")), http.StatusNoContent)
	s.wantEnd()
	wantStatus(t, e.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, sessionHeader(sid)), http.StatusNotFound)
	wantStatus(t, e.send(http.MethodGet, "", sessionHeader(sid)), http.StatusNotFound)
	wantStatus(t, e.send(http.MethodDelete, "", sessionHeader(sid)), http.StatusNotFound)
	wantResult(t, e.call(other, `{"jsonrpc":"2.0","id":2,"method":"ping"}`), jsonrpc.IntID(2))
}

func TestInitializeInsideASessionGets400(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	wantRefusal(t, e.post(initializeBody("2025-11-25"), sessionHeader(sid)), http.StatusBadRequest, jsonrpc.CodeInvalidRequest, false)
	wantStatus(t, e.post(initializeBody("2025-11-25"), sessionHeader("NOSUCHSESSION")), http.StatusNotFound)
}

func TestBadProtocolVersionHeaderGets400(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	for _, v := range []string{"2099-01-01", "banana", "", "2025-11-25, 2025-06-18"} {
		resp := e.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, sessionHeader(sid), versionHeader(v))
		wantRefusal(t, resp, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, false)
	}
	wantStatus(t, e.send(http.MethodGet, "", sessionHeader(sid), versionHeader("banana")), http.StatusBadRequest)
}

func TestMissingProtocolVersionHeaderIsAccepted(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	resp := e.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, sessionHeader(sid))
	wantResult(t, readAnswer(t, resp), jsonrpc.IntID(2))
	resp = e.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, sessionHeader(sid), versionHeader("2025-03-26"))
	wantResult(t, readAnswer(t, resp), jsonrpc.IntID(3))
}

func TestStatelessServesWithoutSessions(t *testing.T) {
	cfg := minimal("")
	cfg.Stateless = true
	e := serve(t, cfg)
	resp := e.post(initializeBody("2025-11-25"))
	wantResult(t, readAnswer(t, resp), jsonrpc.IntID(1))
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Fatalf("stateless server minted session %q", sid)
	}
	wantResult(t, readAnswer(t, e.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)), jsonrpc.IntID(2))
	wantResult(t, readAnswer(t, e.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, sessionHeader("ignored"))), jsonrpc.IntID(3))
	wantStatus(t, e.send(http.MethodGet, ""), http.StatusMethodNotAllowed)
	wantStatus(t, e.send(http.MethodDelete, ""), http.StatusMethodNotAllowed)
}

func TestSessionLimitGets503(t *testing.T) {
	cfg := minimal("")
	cfg.MaxSessions = 2
	e := serve(t, cfg)
	first := e.initialize("2025-11-25")
	e.initialize("2025-11-25")
	resp := e.post(initializeBody("2025-11-25"))
	wantRefusal(t, resp, http.StatusServiceUnavailable, -32000, false)
	wantStatus(t, e.send(http.MethodDelete, "", sessionHeader(first)), http.StatusNoContent)
	e.initialize("2025-11-25")
}
