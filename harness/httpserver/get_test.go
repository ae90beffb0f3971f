package httpserver_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/httpserver"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestGETDisabledGets405(t *testing.T) {
	cfg := minimal("")
	cfg.EnableGET = false
	e := serve(t, cfg)
	sid := e.initialize("2025-11-25")
	resp := e.send(http.MethodGet, "", sessionHeader(sid))
	wantRefusal(t, resp, http.StatusMethodNotAllowed, -32000, false)
	if allow := resp.Header.Get("Allow"); allow != "POST, DELETE" {
		t.Errorf("Allow %q", allow)
	}
}

func TestGETWithoutEventStreamAcceptGets406(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	wantStatus(t, e.send(http.MethodGet, "", sessionHeader(sid), header{"Accept", "application/json"}), http.StatusNotAcceptable)
	s := e.getStream(sid, header{"Accept", "application/json;q=0.5, text/event-stream;q=1"})
	s.wantPriming()
}

func TestGETStreamCarriesServerMessages(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	s := e.getStream(sid)
	s.wantPriming()
	for n := range 3 {
		if err := e.srv.Notify(sid, notification(t, n)); err != nil {
			t.Fatal(err)
		}
		m, _ := s.wantMessage()
		if m.Method != "notifications/message" || !strings.Contains(string(m.Params), fmt.Sprint(`"data":`, n)) {
			t.Fatalf("message %d: %s %s", n, m.Method, m.Params)
		}
	}
	req, _ := jsonrpc.NewRequest(jsonrpc.StringID("srv-1"), "roots/list", nil)
	if err := e.srv.Notify(sid, req); err != nil {
		t.Fatalf("Notify(request): %v", err)
	}
	if m, _ := s.wantMessage(); m.Kind() != jsonrpc.KindRequest {
		t.Fatalf("got %s, want the server's request", m.Kind())
	}
	resp, _ := jsonrpc.NewResult(jsonrpc.IntID(1), struct{}{})
	if err := e.srv.Notify(sid, resp); err == nil {
		t.Fatal("Notify accepted a response for the GET stream")
	}
	if err := e.srv.Notify("NOSUCHSESSION", notification(t, 0)); !errors.Is(err, httpserver.ErrUnknownSession) {
		t.Fatalf("Notify to an unknown session: %v", err)
	}
}

func TestNotifyQueuesUntilTheGETStreamOpens(t *testing.T) {
	cfg := minimal("")
	cfg.HistoryEvents = 4
	e := serve(t, cfg)
	sid := e.initialize("2025-11-25")
	for n := range 4 {
		if err := e.srv.Notify(sid, notification(t, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.srv.Notify(sid, notification(t, 4)); !errors.Is(err, httpserver.ErrBacklogFull) {
		t.Fatalf("fifth queued message: %v, want ErrBacklogFull", err)
	}
	s := e.getStream(sid)
	for n := range 4 {
		m, _ := s.wantMessage()
		if !strings.Contains(string(m.Params), fmt.Sprint(`"data":`, n)) {
			t.Fatalf("message %d: %s", n, m.Params)
		}
	}
	if err := e.srv.Notify(sid, notification(t, 5)); err != nil {
		t.Fatalf("Notify after the backlog drained: %v", err)
	}
	s.wantMessage()
}

func TestRelatedMessagesGoOnTheirRequestStreamOnly(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	get := e.getStream(sid)
	get.wantPriming()
	post := openSSE(t, e.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify"}}`, sessionHeader(sid)))
	post.wantPriming()
	if m, _ := post.wantMessage(); m.Method != "notifications/message" {
		t.Fatalf("POST stream: %s %s, want the log notification", m.Kind(), m.Method)
	}
	wantResult(t, mustMessage(post), jsonrpc.IntID(2))
	post.wantEnd()
	if err := e.srv.Notify(sid, notification(t, 99)); err != nil {
		t.Fatal(err)
	}
	if m, _ := get.wantMessage(); !strings.Contains(string(m.Params), `"data":99`) {
		t.Fatalf("GET stream carried %s %s before the marker; messages belong on one stream", m.Method, m.Params)
	}
}

func TestEventIDsAreUniqueAcrossStreams(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	get := e.getStream(sid)
	ids := map[string]string{} // event id → stream label
	streamOf := map[string]string{}
	record := func(label string, ev sseEvent) {
		t.Helper()
		if prev, dup := ids[ev.id]; dup {
			t.Fatalf("event id %q on %s and %s", ev.id, prev, label)
		}
		ids[ev.id] = label
		prefix, _, ok := strings.Cut(ev.id, "-")
		if !ok {
			t.Fatalf("event id %q does not name its stream", ev.id)
		}
		if other, seen := streamOf[prefix]; seen && other != label {
			t.Fatalf("event id %q names stream %s, shared by %s and %s", ev.id, prefix, other, label)
		}
		streamOf[prefix] = label
	}
	record("GET", get.wantPriming())
	for i := range 3 {
		label := fmt.Sprint("POST ", i)
		post := openSSE(t, e.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"notify"}}`, 10+i), sessionHeader(sid)))
		record(label, post.wantPriming())
		for range 2 {
			_, ev := post.wantMessage()
			record(label, ev)
		}
		post.wantEnd()
		if err := e.srv.Notify(sid, notification(t, i)); err != nil {
			t.Fatal(err)
		}
		_, ev := get.wantMessage()
		record("GET", ev)
	}
}

func TestResumeReplaysThatStreamOnly(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	first := e.getStream(sid)
	first.wantPriming()
	var after string
	for n := 1; n <= 3; n++ {
		if err := e.srv.Notify(sid, notification(t, n)); err != nil {
			t.Fatal(err)
		}
		if _, ev := first.wantMessage(); n == 1 {
			after = ev.id
		}
	}
	readAnswer(t, e.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify"}}`, sessionHeader(sid)))
	_ = first.resp.Body.Close()

	resumed := e.getStream(sid, lastEventHeader(after))
	if err := e.srv.Notify(sid, notification(t, 4)); err != nil {
		t.Fatal(err)
	}
	for n := 2; n <= 4; n++ {
		m, _ := resumed.wantMessage()
		if m.Method != "notifications/message" || !strings.Contains(string(m.Params), fmt.Sprint(`"data":`, n)) {
			t.Fatalf("resumed stream: %s %s, want notification %d", m.Method, m.Params, n)
		}
	}
}

func TestResumeAPOSTStreamThroughGET(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	post := openSSE(t, e.post(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"notify"}}`, sessionHeader(sid)))
	post.wantPriming()
	_, ev := post.wantMessage()
	_ = post.resp.Body.Close()

	resumed := e.getStream(sid, lastEventHeader(ev.id))
	wantResult(t, mustMessage(resumed), jsonrpc.IntID(5))
	resumed.wantEnd()
}

func TestUnknownLastEventIDGets400(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	get := e.getStream(sid)
	priming := get.wantPriming()
	stream, _, _ := strings.Cut(priming.id, "-")
	for _, id := range []string{"garbage", "999999-1", stream + "-999", stream + "--1"} {
		resp := e.send(http.MethodGet, "", sessionHeader(sid), lastEventHeader(id))
		wantRefusal(t, resp, http.StatusBadRequest, -32000, false)
	}
}

func TestSecondGETTakesTheStreamOver(t *testing.T) {
	e := serve(t, minimal(""))
	sid := e.initialize("2025-11-25")
	first := e.getStream(sid)
	first.wantPriming()
	second := e.getStream(sid)
	second.wantPriming()
	first.wantEnd()
	if err := e.srv.Notify(sid, notification(t, 1)); err != nil {
		t.Fatal(err)
	}
	second.wantMessage()
}

func TestSlowClientHoldsTheHandlerBack(t *testing.T) {
	const burst = 50
	cfg := httpserver.DefaultConfig(httpserver.HandlerFunc(burstHandler(burst)))
	cfg.HistoryEvents = 4
	e := serve(t, cfg)
	resp := e.post(initializeBody("2025-11-25"))
	sid := resp.Header.Get("Mcp-Session-Id")
	readAnswer(t, resp)
	s := openSSE(t, e.post(`{"jsonrpc":"2.0","id":2,"method":"burst"}`, sessionHeader(sid)))
	for n := range burst {
		m, _ := s.wantMessage()
		if !strings.Contains(string(m.Params), fmt.Sprint(`"progress":`, n)) {
			t.Fatalf("event %d: %s; a live stream must lose nothing", n, m.Params)
		}
	}
	wantResult(t, mustMessage(s), jsonrpc.IntID(2))
	s.wantEnd()
}

// burstHandler answers initialize, and answers any other request after
// sending n progress notifications about it.
func burstHandler(n int) httpserver.HandlerFunc {
	return func(ctx context.Context, s *httpserver.Session, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
		if req.Kind() != jsonrpc.KindRequest {
			return nil
		}
		if req.Method == "initialize" {
			resp, _ := jsonrpc.NewResult(req.ID, map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "serverInfo": map[string]string{"name": "burst", "version": "1"}})
			return resp
		}
		for i := range n {
			note, _ := jsonrpc.NewNotification("notifications/progress", map[string]any{"progressToken": 1, "progress": i})
			if err := out(note); err != nil {
				return jsonrpc.NewError(req.ID, jsonrpc.CodeInternalError, err.Error())
			}
		}
		resp, _ := jsonrpc.NewResult(req.ID, struct{}{})
		return resp
	}
}

func mustMessage(s *sseStream) *jsonrpc.Message {
	s.t.Helper()
	m, _ := s.wantMessage()
	return m
}
