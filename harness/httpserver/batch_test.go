package httpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

const pingBatch = `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`

func TestBatchAcceptedIn20250326(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-03-26")
	resp := e.post(pingBatch, sessionHeader(sid), versionHeader("2025-03-26"))
	wantStatus(t, resp, http.StatusOK)
	s := openSSE(t, resp)
	s.wantPriming()
	first, _ := s.wantMessage()
	second, _ := s.wantMessage()
	wantResult(t, first, jsonrpc.IntID(2))
	wantResult(t, second, jsonrpc.IntID(3))
	s.wantEnd()
}

func TestBatchOfNotificationsGets202In20250326(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-03-26")
	body := `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}},{"jsonrpc":"2.0","id":"x","result":{}}]`
	wantStatus(t, e.post(body, sessionHeader(sid)), http.StatusAccepted)
}

func TestBatchAsJSONArrayIn20250326(t *testing.T) {
	cfg := minimal("")
	cfg.JSONResponse = true
	e := serve(t, cfg)
	sid := e.initialize("2025-03-26")
	resp := e.post(pingBatch, sessionHeader(sid))
	wantStatus(t, resp, http.StatusOK)
	b, _ := io.ReadAll(resp.Body)
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil || len(parts) != 2 {
		t.Fatalf("body %s, want an array of two responses", b)
	}
	for i, id := range []jsonrpc.ID{jsonrpc.IntID(2), jsonrpc.IntID(3)} {
		m, err := jsonrpc.Decode(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		wantResult(t, m, id)
	}
}

func TestBatchRefusedFrom20250618(t *testing.T) {
	e := serve(t, minimal(""))
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		sid := e.initialize(v)
		resp := e.post(pingBatch, sessionHeader(sid), versionHeader(v))
		wantRefusal(t, resp, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, true)
	}
}

func TestBatchNeverCarriesInitialize(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-03-26")
	body := `[` + initializeBody("2025-03-26") + `]`
	wantRefusal(t, e.post(body, sessionHeader(sid)), http.StatusBadRequest, jsonrpc.CodeInvalidRequest, true)
	wantRefusal(t, e.post(`[]`, sessionHeader(sid)), http.StatusBadRequest, jsonrpc.CodeInvalidRequest, true)
}
