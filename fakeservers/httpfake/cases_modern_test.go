package httpfake

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// The input round over HTTP: an InputRequiredResult, then the result for a
// retry that answers and sends the state back; no session anywhere.
func TestInputRequiredHTTP(t *testing.T) {
	f := startFake(t, Options{Case: "input-required", Era: fakeservers.Modern})
	c := newClient(t, f)
	call := func(id int64, extra map[string]any) *http.Response {
		params := map[string]any{"name": fakeservers.ToolAsk, "arguments": map[string]any{}}
		for k, v := range extra {
			params[k] = v
		}
		m := modernMessage(t, id, "tools/call", params)
		m.Params = json.RawMessage(strings.Replace(string(m.Params), `"`+mcp.MetaClientCapabilities+`":{}`, `"`+mcp.MetaClientCapabilities+`":{"roots":{}}`, 1))
		return c.postModern(m)
	}
	var r fakeservers.InputRequiredResult
	if err := json.Unmarshal(wantModernResultOf(t, call(1, nil), "input_required"), &r); err != nil || r.RequestState != fakeservers.RequestState {
		t.Fatalf("first call: %+v (%v); want the fake's requestState", r, err)
	}
	if len(r.InputRequests) != 1 || r.InputRequests["roots"] == nil {
		t.Errorf("asked %v of a call that declares roots; want roots/list alone", r.InputRequests)
	}
	answers := map[string]any{"roots": map[string]any{"roots": []any{}}}
	wantModernResultOf(t, call(2, map[string]any{"inputResponses": answers, "requestState": fakeservers.RequestState}), "complete")
	wantRPCError(t, call(3, map[string]any{"inputResponses": answers, "requestState": "other"}), http.StatusBadRequest, jsonrpc.CodeInvalidParams)
}

// wantModernResultOf checks that resp is 200 with a result of resultType
// want, and returns the result.
func wantModernResultOf(t *testing.T, resp *http.Response, want string) json.RawMessage {
	t.Helper()
	wantStatus(t, resp, http.StatusOK)
	m := readJSONMessage(t, resp)
	var r struct {
		ResultType string `json:"resultType"`
	}
	if m.Kind() != jsonrpc.KindResult || json.Unmarshal(m.Result, &r) != nil || r.ResultType != want {
		t.Fatalf("answered %s %s (error %v); want a result of resultType %s", m.Kind(), m.Result, m.Error, want)
	}
	return m.Result
}

// A subscription over HTTP is its own SSE stream, the acknowledgement its
// first event; a client that closes it is recorded as having left.
func TestListenHTTP(t *testing.T) {
	f := startFake(t, Options{Case: "listen-ack-short", Era: fakeservers.Modern})
	c := newClient(t, f)
	m := modernMessage(t, 1, fakeservers.MethodListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
	h := http.Header{}
	mcp.SetModernHeaders(h, m)
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := c.do(ctx, http.MethodPost, string(fakeservers.Encode(m)), mcp.HeaderProtocolVersion+": "+mcp.ModernVersion, mcp.HeaderMethod+": "+h.Get(mcp.HeaderMethod))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wantStatus(t, resp, http.StatusOK)
	sc := bufio.NewScanner(resp.Body)
	var data string
	for sc.Scan() && sc.Text() != "" {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = d
		}
	}
	ack, err := jsonrpc.Decode([]byte(data))
	if err != nil || ack.Method != fakeservers.MethodAcknowledged || !strings.Contains(string(ack.Params), `"notifications":{}`) {
		t.Fatalf("first event %q (%v); want an acknowledgement honouring nothing", data, err)
	}
	cancel()
	wantRecords(t, f, "the listen stream closed by the client", func(recs []Request) bool {
		return len(recs) == 1 && recs[0].Aborted
	})
}

// The tools of param-headers carry their x-mcp-header annotations.
func TestParamHeadersTools(t *testing.T) {
	f := startFake(t, Options{Case: "param-headers", Era: fakeservers.Modern})
	c := newClient(t, f)
	var list fakeservers.ToolListResult
	if err := json.Unmarshal(wantModernResult(t, c.postModern(modernMessage(t, 1, "tools/list", nil))), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 3 || list.Tools[0].Name != ToolRoute || !strings.Contains(mustJSON(t, list.Tools[0].InputSchema), `"x-mcp-header":"Label"`) {
		t.Errorf("tools %+v; want route first, its parameters annotated", list.Tools)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The client-requests round asks roots/list without params, as the
// input-required case does: a request without params omits the member, it
// is never null.
func TestClientRequestsRoundOmitsParams(t *testing.T) {
	f := startFake(t, Options{Case: "client-requests", Era: fakeservers.Modern})
	m := modernMessage(t, 1, "tools/call", map[string]any{"name": fakeservers.ToolAsk, "arguments": map[string]any{}})
	m.Params = json.RawMessage(strings.Replace(string(m.Params), `"`+mcp.MetaClientCapabilities+`":{}`, `"`+mcp.MetaClientCapabilities+`":{"roots":{}}`, 1))
	var r struct {
		InputRequests map[string]map[string]json.RawMessage `json:"inputRequests"`
	}
	if err := json.Unmarshal(wantModernResultOf(t, newClient(t, f).postModern(m), "input_required"), &r); err != nil {
		t.Fatal(err)
	}
	roots, ok := r.InputRequests[fakeservers.KeyRoots]
	if _, params := roots["params"]; !ok || params {
		t.Errorf("input requests %v; want %s, a roots/list without params", r.InputRequests, fakeservers.KeyRoots)
	}
}
