package httpserver_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/httpserver"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestOtherMethodsGet405(t *testing.T) {
	e := serve(t, minimal(""))
	for _, method := range []string{http.MethodPut, http.MethodPatch, http.MethodOptions, http.MethodHead} {
		resp := e.send(method, "")
		wantStatus(t, resp, http.StatusMethodNotAllowed)
		if allow := resp.Header.Get("Allow"); allow != "GET, POST, DELETE" {
			t.Errorf("%s: Allow %q", method, allow)
		}
	}
}

func TestOnlyTheEndpointPathIsServed(t *testing.T) {
	e := serve(t, minimal(""))
	e.url = strings.TrimSuffix(e.url, "/mcp") + "/other"
	wantStatus(t, e.post(initializeBody("2025-11-25")), http.StatusNotFound)
}

func TestForeignOriginGets403(t *testing.T) {
	e := serve(t, minimal(""))
	for _, origin := range []string{"https://evil.example", "null", "http://127.0.0.1.evil.example", "file://", "http://localhost/path"} {
		resp := e.post(initializeBody("2025-11-25"), header{"Origin", origin})
		wantRefusal(t, resp, http.StatusForbidden, -32000, false)
	}
}

func TestLoopbackAndConfiguredOriginsAreAccepted(t *testing.T) {
	cfg := minimal("")
	cfg.AllowedOrigins = []string{"https://app.example"}
	e := serve(t, cfg)
	for _, origin := range []string{"", "http://localhost:6274", "https://127.0.0.1", "http://[::1]:8080", "https://app.example"} {
		var hs []header
		if origin != "" {
			hs = append(hs, header{"Origin", origin})
		}
		resp := e.post(initializeBody("2025-11-25"), hs...)
		wantStatus(t, resp, http.StatusOK)
	}
}

func TestForeignHostGets403(t *testing.T) {
	e := serve(t, minimal(""))
	resp := e.post(initializeBody("2025-11-25"), header{"Host", "attacker.example:80"})
	wantRefusal(t, resp, http.StatusForbidden, -32000, false)
	wantStatus(t, e.post(initializeBody("2025-11-25"), header{"Host", "localhost:1234"}), http.StatusOK)
}

func TestConfiguredHostIsAccepted(t *testing.T) {
	cfg := minimal("")
	cfg.AllowedHosts = []string{"mcp.internal"}
	e := serve(t, cfg)
	wantStatus(t, e.post(initializeBody("2025-11-25"), header{"Host", "mcp.internal:9000"}), http.StatusOK)
	wantStatus(t, e.post(initializeBody("2025-11-25"), header{"Host", "other.internal"}), http.StatusForbidden)
}

func TestUnparseableBodyIsAParseError(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	for _, body := range []string{`{"jsonrpc":"2.0",`, ``, `not json`} {
		resp := e.post(body, sessionHeader(sid))
		wantRefusal(t, resp, http.StatusBadRequest, jsonrpc.CodeParseError, true)
	}
}

func TestInvalidMessageIsAnInvalidRequest(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	for _, body := range []string{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `42`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`} {
		resp := e.post(body, sessionHeader(sid))
		wantRefusal(t, resp, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, true)
	}
}

func TestOversizeBodyGets413(t *testing.T) {
	cfg := minimal("")
	cfg.MaxBodyBytes = 1024
	e := serve(t, cfg)
	sid := e.initialize("2025-11-25")
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 1024) + `"}}}`
	wantRefusal(t, e.post(body, sessionHeader(sid)), http.StatusRequestEntityTooLarge, -32000, false)
}

func TestNotificationsAndResponsesGet202(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`,
		`{"jsonrpc":"2.0","id":"s1","result":{}}`,
		`{"jsonrpc":"2.0","id":"s2","error":{"code":-1,"message":"declined"}}`,
	} {
		resp := e.post(body, sessionHeader(sid), versionHeader("2025-11-25"))
		wantStatus(t, resp, http.StatusAccepted)
		if b, _ := io.ReadAll(resp.Body); len(b) != 0 {
			t.Errorf("202 with body %q, want none", b)
		}
	}
}

func TestRequestGetsAnSSEStreamThatEndsAfterTheResponse(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	resp := e.post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"notify"}}`, sessionHeader(sid))
	wantStatus(t, resp, http.StatusOK)
	s := openSSE(t, resp)
	s.wantPriming()
	note, _ := s.wantMessage()
	if note.Method != "notifications/message" {
		t.Fatalf("first message %s %s, want the log notification", note.Kind(), note.Method)
	}
	result, _ := s.wantMessage()
	wantResult(t, result, jsonrpc.IntID(7))
	s.wantEnd()
}

func TestJSONResponseAnswersWithOneObject(t *testing.T) {
	cfg := minimal("")
	cfg.JSONResponse = true
	e := serve(t, cfg)
	sid := e.initialize("2025-11-25")
	resp := e.post(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, sessionHeader(sid))
	wantStatus(t, resp, http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	result := wantResult(t, readAnswer(t, resp), jsonrpc.StringID("a"))
	if !strings.Contains(string(result), `"text":"hi"`) {
		t.Errorf("echo result %s", result)
	}
	// notify has no stream to log on; the call still succeeds.
	wantResult(t, e.call(sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"notify"}}`), jsonrpc.IntID(3))
}

func TestProtocolErrorsTravelAsResponses(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	wantErrorCode(t, e.call(sid, `{"jsonrpc":"2.0","id":2,"method":"no/such"}`), jsonrpc.CodeMethodNotFound)
	wantErrorCode(t, e.call(sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}`), jsonrpc.CodeInvalidParams)
	wantResult(t, e.call(sid, `{"jsonrpc":"2.0","id":4,"method":"ping"}`), jsonrpc.IntID(4))
}

func TestHandlerWithoutResponseYieldsInternalError(t *testing.T) {
	cfg := httpserver.DefaultConfig(httpserver.HandlerFunc(silentHandler))
	e := serve(t, cfg)
	resp := e.post(initializeBody("2025-11-25"))
	wantErrorCode(t, readAnswer(t, resp), jsonrpc.CodeInternalError)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("a failed initialize opened session %q", sid)
	}
}

func TestListenRefusesOtherThanLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "localhost:0", "192.0.2.1:0", "127.0.0.1"} {
		if _, _, err := httpserver.Listen(addr, http.NotFoundHandler()); err == nil {
			t.Errorf("Listen(%q) succeeded, want a refusal", addr)
		}
	}
}

func TestShutdownEndsOpenStreams(t *testing.T) {
	srv := httpserver.New(minimal(""))
	url, shutdown, err := httpserver.ListenLoopback(srv)
	if err != nil {
		t.Fatal(err)
	}
	e := &endpoint{t: t, url: url, srv: srv, hc: &http.Client{Timeout: waitLimit}}
	sid := e.initialize("2025-11-25")
	s := e.getStream(sid)
	s.wantPriming()
	if err := shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	s.wantEnd()
	if err := srv.Notify(sid, notification(t, 1)); err == nil {
		t.Error("Notify after shutdown succeeded")
	}
}

// silentHandler answers nothing, not even requests.
func silentHandler(context.Context, *httpserver.Session, *jsonrpc.Message, func(*jsonrpc.Message) error) *jsonrpc.Message {
	return nil
}
