package httpfake

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// modernMessage is a 2026-07-28 request: params with the _meta every
// request carries (JR-46).
func modernMessage(t *testing.T, id int64, method string, params map[string]any) *jsonrpc.Message {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{mcp.MetaProtocolVersion: mcp.ModernVersion, mcp.MetaClientCapabilities: map[string]any{}}
	return testRequest(t, jsonrpc.IntID(id), method, params)
}

// postModern POSTs m with the headers a 2026-07-28 client sends (HT-73,
// HT-77), then the extra ones ("Name: value", overriding).
func (c *client) postModern(m *jsonrpc.Message, extra ...string) *http.Response {
	c.t.Helper()
	h := http.Header{}
	mcp.SetModernHeaders(h, m)
	headers := []string{mcp.HeaderProtocolVersion + ": " + mcp.ModernVersion}
	for name, values := range h {
		headers = append(headers, name+": "+values[0])
	}
	return c.post(m, append(headers, extra...)...)
}

// wantRPCError checks that resp is status with a JSON-RPC error code.
func wantRPCError(t *testing.T, resp *http.Response, status int, code int64) *jsonrpc.Error {
	t.Helper()
	wantStatus(t, resp, status)
	m := readJSONMessage(t, resp)
	if m.Error == nil || m.Error.Code != code {
		t.Fatalf("%s %s answered %s %v; want error %d", resp.Request.Method, resp.Request.URL, m.Kind(), m.Error, code)
	}
	return m.Error
}

// wantModernResult checks that resp is 200 with a result carrying
// resultType complete and no session id.
func wantModernResult(t *testing.T, resp *http.Response) json.RawMessage {
	t.Helper()
	wantStatus(t, resp, http.StatusOK)
	if id := resp.Header.Get(mcp.HeaderSessionID); id != "" {
		t.Errorf("a modern answer handed out session %q; 2026-07-28 has no sessions", id)
	}
	m := readJSONMessage(t, resp)
	var r struct {
		ResultType string `json:"resultType"`
	}
	if m.Kind() != jsonrpc.KindResult || json.Unmarshal(m.Result, &r) != nil || r.ResultType != "complete" {
		t.Fatalf("answered %s %s (error %v); want a result with resultType complete", m.Kind(), m.Result, m.Error)
	}
	return m.Result
}

// A modern fake serves 2026-07-28 alone, without sessions or a GET stream,
// and answers each broken rule with its status and code.
func TestModernEra(t *testing.T) {
	f := startFake(t, Options{Case: "well-behaved", Era: fakeservers.Modern})
	c := newClient(t, f)

	e := wantRPCError(t, c.post(initializeMessage(t, jsonrpc.IntID(1), "2025-11-25")), http.StatusBadRequest, jsonrpc.CodeUnsupportedProtocolVersion)
	if !strings.Contains(e.Message, mcp.ModernVersion) {
		t.Errorf("initialize refused with %q; want the versions served named (LC-48)", e.Message)
	}
	var d fakeservers.DiscoverResult
	if err := json.Unmarshal(wantModernResult(t, c.postModern(modernMessage(t, 2, mcp.MethodDiscover, nil))), &d); err != nil || len(d.SupportedVersions) != 1 || d.SupportedVersions[0] != mcp.ModernVersion {
		t.Errorf("server/discover result %+v (%v); want supportedVersions [%s]", d, err, mcp.ModernVersion)
	}
	wantRPCError(t, c.postModern(testRequest(t, jsonrpc.IntID(3), "tools/list", nil)), http.StatusBadRequest, jsonrpc.CodeInvalidParams)
	wantRPCError(t, c.post(modernMessage(t, 4, "tools/list", nil), "Mcp-Method: tools/list"), http.StatusBadRequest, jsonrpc.CodeHeaderMismatch)
	wantRPCError(t, c.postModern(modernMessage(t, 5, "tools/list", nil), mcp.HeaderProtocolVersion+": 2025-11-25"), http.StatusBadRequest, jsonrpc.CodeHeaderMismatch)
	wantRPCError(t, c.postModern(modernMessage(t, 6, "tools/list", nil), mcp.HeaderMethod+": tools/call"), http.StatusBadRequest, jsonrpc.CodeHeaderMismatch)
	call := modernMessage(t, 7, "tools/call", map[string]any{"name": "echo"})
	wantRPCError(t, c.postModern(call, mcp.HeaderName+": other"), http.StatusBadRequest, jsonrpc.CodeHeaderMismatch)
	wantModernResult(t, c.postModern(modernMessage(t, 8, "tools/list", nil)))
	wantModernResult(t, c.postModern(call))
	wantRPCError(t, c.postModern(modernMessage(t, 9, "ping", nil)), http.StatusNotFound, jsonrpc.CodeMethodNotFound)
	unknown := modernMessage(t, 10, "tools/list", nil)
	unknown.Params = json.RawMessage(`{"_meta":{"` + mcp.MetaProtocolVersion + `":"2099-01-01","` + mcp.MetaClientCapabilities + `":{}}}`)
	wantRPCError(t, c.post(unknown, mcp.HeaderProtocolVersion+": 2099-01-01", mcp.HeaderMethod+": tools/list"), http.StatusBadRequest, jsonrpc.CodeUnsupportedProtocolVersion)

	n, err := jsonrpc.NewNotification("notifications/cancelled", map[string]any{"requestId": 7})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, c.post(n), http.StatusAccepted)
	wantStatus(t, c.send(http.MethodGet, "", "Accept: text/event-stream"), http.StatusMethodNotAllowed)
	wantStatus(t, c.send(http.MethodDelete, ""), http.StatusMethodNotAllowed)
	wantStatus(t, c.send(http.MethodPost, "["+string(fakeservers.Encode(call))+"]"), http.StatusBadRequest)
	if got := len(f.Requests()); got != 15 {
		t.Errorf("the record holds %d requests; want all 15, the refused ones too", got)
	}
}

// A dual fake opens a session for initialize and serves a modern request
// without one (LC-49).
func TestDualEra(t *testing.T) {
	f := startFake(t, Options{Case: "well-behaved", Era: fakeservers.Dual})
	c := newClient(t, f)
	wantModernResult(t, c.postModern(modernMessage(t, 1, mcp.MethodDiscover, nil)))
	c.initialize()
	resp := c.call(2, "echo")
	c.wantCallOK(resp, 2, "echo")
	c.session = ""
	wantModernResult(t, c.postModern(modernMessage(t, 3, "tools/call", map[string]any{"name": "echo"})))
	wantStatus(t, c.call(4, "echo"), http.StatusBadRequest)
}

// A strict legacy fake refuses the probe sent without a session with 400 and
// a -32600 body, which is no modern error: a dual-era client falls back
// (HT-92).
func TestStrictInit(t *testing.T) {
	f := startFake(t, Options{Case: "well-behaved", StrictInit: true})
	c := newClient(t, f)
	wantRPCError(t, c.postModern(modernMessage(t, 1, mcp.MethodDiscover, nil)), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
	c.initialize()
	c.wantCallOK(c.call(2, "echo"), 2, "echo")
}

// The cases of the legacy era alone refuse to serve the modern one, and
// StrictInit goes with a legacy fake with sessions only.
func TestEraOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Case: "expire-after", ExpireAfter: 1, Era: fakeservers.Modern}, "expires sessions"},
		{Options{Case: "resume", Era: fakeservers.Modern}, "Last-Event-ID"},
		{Options{Case: "headers", Era: fakeservers.Modern}, "GET stream"},
		{Options{Case: "well-behaved", Era: "2026"}, "legacy, modern, dual"},
		{Options{Case: "well-behaved", Era: fakeservers.Dual, StrictInit: true}, "StrictInit"},
		{Options{Case: "well-behaved", Stateless: true, StrictInit: true}, "StrictInit"},
	} {
		if _, err := Start(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v; want an error saying %q", tc.o, err, tc.want)
		}
	}
	if f, err := Start(Options{Case: "headers", Era: fakeservers.Dual}); err != nil {
		t.Errorf("headers in the dual era: %v; a dual fake serves legacy clients", err)
	} else {
		f.Close()
	}
}

// An SSE case serves the modern era with the same exact sizes: its result
// carries resultType, inside the size asked for.
func TestSSEEventModern(t *testing.T) {
	const size = 1000
	f := startFake(t, Options{Case: "sse-event", SSEEventSize: size, Era: fakeservers.Modern})
	c := newClient(t, f)
	got := readSSE(t, c.postModern(modernMessage(t, 1, "tools/call", map[string]any{"name": "echo"})))
	if len(got.events) != 2 || got.events[1].size != size {
		t.Fatalf("%d events (result raw size %d); want a priming and a result event of %d bytes", len(got.events), got.events[len(got.events)-1].size, size)
	}
	m := eventMessage(t, got.events[1])
	wantCallText(t, m, jsonrpc.IntID(1), "ok echo")
	if !strings.Contains(string(m.Result), `"resultType":"complete"`) {
		t.Errorf("result %s; want resultType complete", m.Result)
	}
}
