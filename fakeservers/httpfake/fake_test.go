package httpfake

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

func TestWellBehaved(t *testing.T) {
	f := startFake(t, Options{Case: "well-behaved"})
	c := newClient(t, f)
	if !strings.HasPrefix(f.URL(), "http://127.0.0.1:") || !strings.HasSuffix(f.URL(), "/mcp") || f.SecondURL() != "" {
		t.Fatalf("URL %q, SecondURL %q; want http://127.0.0.1:PORT/mcp and none", f.URL(), f.SecondURL())
	}

	// A dual-era client's probe meets a legacy server.
	resp := c.post(testRequest(t, jsonrpc.IntID(1), methodDiscover, map[string]any{}))
	wantStatus(t, resp, http.StatusOK)
	if m := readJSONMessage(t, resp); m.Kind() != jsonrpc.KindError || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("server/discover answered %s %v; want error -32601", m.Kind(), m.Error)
	}

	for proposed, want := range map[string]string{"2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26", "2026-07-28": "2025-11-25"} {
		resp := c.post(initializeMessage(t, jsonrpc.IntID(2), proposed))
		wantStatus(t, resp, http.StatusOK)
		var init fakeservers.InitializeResult
		if err := json.Unmarshal(readJSONMessage(t, resp).Result, &init); err != nil {
			t.Fatal(err)
		}
		if init.ProtocolVersion != want || init.Capabilities["tools"] == nil || init.ServerInfo.Name == "" {
			t.Errorf("initialize proposing %s: %+v; want version %s, tools capability, serverInfo", proposed, init, want)
		}
		if id := resp.Header.Get(mcp.HeaderSessionID); len(id) != 32 {
			t.Errorf("session id %q; want 32 hex digits", id)
		}
	}

	c.initialize()
	resp = c.post(testRequest(t, jsonrpc.StringID("list"), "tools/list", nil))
	var list struct {
		Tools []fakeservers.Tool `json:"tools"`
	}
	if err := json.Unmarshal(readJSONMessage(t, resp).Result, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != "echo" {
		t.Errorf("tools/list %+v; want one tool, echo", list.Tools)
	}
	if m := readJSONMessage(t, c.post(testRequest(t, jsonrpc.IntID(3), "ping", nil))); string(m.Result) != "{}" {
		t.Errorf("ping result %s; want {}", m.Result)
	}
	c.wantCallOK(c.call(4, "echo"), 4, "echo")
	if m := readJSONMessage(t, c.post(testRequest(t, jsonrpc.IntID(5), "resources/list", nil))); m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("resources/list answered %s; want error -32601", m.Kind())
	}

	// A batch is answered per message; one without requests gets 202.
	resp = c.send(http.MethodPost, `[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{}},{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}]`)
	body, _ := io.ReadAll(resp.Body)
	replies, err := jsonrpc.DecodeBatch(body)
	if err != nil || len(replies) != 2 || replies[0].ID.Key() != "6" || replies[1].ID.Key() != "7" {
		t.Errorf("batch answered %s (%v); want responses to 6 and 7", body, err)
	}
	wantStatus(t, c.send(http.MethodPost, `[{"jsonrpc":"2.0","method":"notifications/progress","params":{}}]`), http.StatusAccepted)
	wantStatus(t, c.send(http.MethodPost, `{"jsonrpc":"2.0","id":"x","result":{}}`), http.StatusAccepted)

	// Bodies, paths and methods the endpoint refuses.
	resp = c.send(http.MethodPost, `{"jsonrpc":`)
	wantStatus(t, resp, http.StatusBadRequest)
	if m := readJSONMessage(t, resp); m.Error == nil || m.Error.Code != jsonrpc.CodeParseError {
		t.Errorf("damaged body answered %s; want error -32700", m.Kind())
	}
	wantStatus(t, c.send(http.MethodPut, ""), http.StatusMethodNotAllowed)
	wrongPath := *c
	wrongPath.url = strings.TrimSuffix(f.URL(), "/mcp") + "/other"
	wantStatus(t, wrongPath.call(8, "echo"), http.StatusNotFound)

	// Sessions: required, checked, ended by DELETE.
	noSession := *c
	noSession.session = ""
	wantStatus(t, noSession.call(9, "echo"), http.StatusBadRequest)
	wantStatus(t, noSession.send(http.MethodGet, ""), http.StatusBadRequest)
	unknown := *c
	unknown.session = "no-such-session"
	wantStatus(t, unknown.call(10, "echo"), http.StatusNotFound)
	resp = c.send(http.MethodGet, "", "Accept: text/event-stream")
	wantStatus(t, resp, http.StatusMethodNotAllowed)
	if allow := resp.Header.Get("Allow"); allow != "POST, DELETE" {
		t.Errorf("GET 405 Allow %q; want POST, DELETE", allow)
	}
	wantStatus(t, c.send(http.MethodDelete, ""), http.StatusOK)
	wantStatus(t, c.call(11, "echo"), http.StatusNotFound)

	recs := f.Requests()
	if len(recs) != 22 {
		t.Fatalf("recorded %d requests; want 22", len(recs))
	}
	for i, r := range recs {
		if r.Start.IsZero() || r.End.Before(r.Start) || r.Status == 0 || r.Aborted || r.Host != strings.TrimPrefix(strings.TrimSuffix(f.URL(), "/mcp"), "http://") {
			t.Errorf("record %d: %+v; want Start ≤ End, a status, not aborted, the listener's host", i, r)
		}
	}
	if r := recs[0]; r.Method != http.MethodPost || r.Messages[0].Method != methodDiscover || r.SessionID != "" || !strings.Contains(r.Body, "server/discover") {
		t.Errorf("first record %+v; want the server/discover POST without a session", r)
	}
	if r := recs[8]; r.Messages[0].Method != methodToolsCall || r.SessionID != c.session || r.Status != http.StatusOK || r.Header.Get("Accept") != "application/json, text/event-stream" {
		t.Errorf("tools/call record %+v; want the call with session %s and its headers", r, c.session)
	}
	if r := recs[10]; len(r.Messages) != 3 {
		t.Errorf("batch record holds %d messages; want 3", len(r.Messages))
	}
	if r := recs[21]; r.Method != http.MethodPost || r.Status != http.StatusNotFound || r.SessionID != c.session {
		t.Errorf("last record %+v; want a POST with the deleted session answered 404", r)
	}
}

func TestRecordKeepsHeadersAndCapsBody(t *testing.T) {
	f := startFake(t, Options{Case: "well-behaved"})
	c := newClient(t, f)
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("p", 100<<10) + `"}}`
	resp := c.send(http.MethodPost, big, "Authorization: Bearer secret-token", "X-Custom: yes")
	wantStatus(t, resp, http.StatusOK)
	r := f.Requests()[0]
	if r.Header.Get("Authorization") != "Bearer secret-token" || r.Header.Get("X-Custom") != "yes" {
		t.Errorf("recorded headers %v; want Authorization and X-Custom kept", r.Header)
	}
	if len(r.Body) != maxRecordedBody || len(r.Messages) != 1 || r.Messages[0].Method != methodInitialize {
		t.Errorf("recorded body of %d bytes and %d messages; want %d bytes and the decoded initialize", len(r.Body), len(r.Messages), maxRecordedBody)
	}
	wantStatus(t, c.send(http.MethodPost, `{"pad":"`+strings.Repeat("p", maxBody)+`"}`), http.StatusRequestEntityTooLarge)
}

func TestStartErrors(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Case: "no-such-case"}, "cases: batch, cancel-then-echo, client-requests"},
		{Options{Case: "expire-after"}, "ExpireAfter is required"},
		{Options{Case: "sse-event"}, "SSEEventSize is required"},
		{Options{Case: "sse-huge"}, "SSEEventSize is required"},
		{Options{Case: "slow-calls", Delay: -time.Second}, "Delay must be 0 or more"},
		{Options{Case: "slow-calls", Tools: -1}, "Tools must be 0 or more"},
		{Options{Case: "expire-again", Stateless: true}, "cannot be Stateless"},
	} {
		f, err := Start(tc.o)
		if err == nil {
			f.Close()
			t.Errorf("Start(%+v) succeeded; want an error", tc.o)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "http fake") {
			t.Errorf("Start(%+v): %v; want an error naming the fake and saying %q", tc.o, err, tc.want)
		}
	}
}

func TestCasesListed(t *testing.T) {
	want := []string{"batch", "cancel-then-echo", "client-requests", "control-hang", "expire-after", "expire-again", "expire-inflight", "expire-old-pending", "fuzz",
		"get-405", "headers", "input-required", "input-undeclared", "invalid-request", "listen", "listen-ack-short", "odd-answers", "output-schema", "paged", "param-headers", "param-headers-moved",
		"recovery-hangs", "redirect", "result-type-unknown", "resume", "server-request", "slow-calls", "slow-start",
		"sse-comments", "sse-crlf-split", "sse-early", "sse-event", "sse-huge", "stateless", "version-unspoken", "well-behaved"}
	if got := CaseIDs(); !slices.Equal(got, want) {
		t.Errorf("CaseIDs() = %v; want %v", got, want)
	}
	for _, c := range Cases() {
		if c.Description == "" {
			t.Errorf("case %s has no description", c.ID)
		}
	}
}

// TestCloseUnblocks holds a call, a cancellation, a GET stream and a
// re-initialize open, closes the fake, and checks that every request ends,
// none is recorded as Aborted (the fake closed, the clients stayed), and no
// goroutine is left behind.
func TestCloseUnblocks(t *testing.T) {
	before := runtime.NumGoroutine()
	ended := make(chan error, 8)
	var fakes []*Fake
	var clients []*client
	for _, o := range []Options{{Case: "control-hang"}, {Case: "headers"}, {Case: "recovery-hangs"}, {Case: "sse-huge", SSEEventSize: 1 << 30}} {
		f, err := Start(o)
		if err != nil {
			t.Fatal(err)
		}
		fakes = append(fakes, f)
		c := newClient(t, f)
		c.hc.Timeout = 0
		clients = append(clients, c)
		c.initialize()
		var held []string
		switch o.Case {
		case "control-hang":
			cancel, err := jsonrpc.NewNotification(methodCancelled, map[string]any{"requestId": 1})
			if err != nil {
				t.Fatal(err)
			}
			held = []string{string(fakeservers.Encode(callMessage(t, jsonrpc.IntID(1), "echo"))), string(fakeservers.Encode(cancel))}
		case "headers":
			held = []string{""}
		case "recovery-hangs":
			wantStatus(t, c.call(1, "echo"), http.StatusNotFound)
			c.session = ""
			held = []string{string(fakeservers.Encode(initializeMessage(t, jsonrpc.IntID(2), "2025-11-25")))}
		case "sse-huge":
			held = []string{string(fakeservers.Encode(callMessage(t, jsonrpc.IntID(1), "echo")))}
		}
		for _, body := range held {
			method := http.MethodPost
			if body == "" {
				method = http.MethodGet
			}
			go func() {
				resp, err := c.do(context.Background(), method, body)
				if err == nil {
					// Streams end at Close; their headers came first.
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				ended <- err
			}()
		}
		wantRecords(t, f, "the held requests in progress", func(recs []Request) bool {
			open := 0
			for _, r := range recs {
				if r.End.IsZero() {
					open++
				}
			}
			return open == len(held)
		})
	}
	start := time.Now()
	for _, f := range fakes {
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Requests() {
			if r.End.IsZero() || r.Aborted {
				t.Errorf("%s: record %+v after Close; want it ended, not aborted", f.o.Case, r)
			}
		}
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Close took %s; want it prompt", took)
	}
	for range 5 {
		select {
		case <-ended:
		case <-time.After(replyDeadline):
			t.Fatal("a held request never ended after Close")
		}
	}
	for _, c := range clients {
		c.closeAll()
	}
	// Bounded poll: connections and their goroutines wind down after Close.
	deadline := time.Now().Add(replyDeadline)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after Close; %d before the fakes started:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
	if err := fakes[0].Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := newClient(t, fakes[0]).do(t.Context(), http.MethodPost, "{}"); err == nil {
		t.Errorf("POST after Close: %v; want a connection error", err)
	}
}

func TestToolsOption(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want []string
	}{
		{Options{Case: "well-behaved"}, []string{"echo"}},
		{Options{Case: "well-behaved", Tools: 3}, []string{"t1", "t2", "t3"}},
		{Options{Case: "sse-comments", Tools: 1}, []string{"t1"}},
		{Options{Case: "control-hang"}, []string{"t1", "t2"}},
		{Options{Case: "expire-inflight", Tools: 1}, []string{"slow-1"}},
	} {
		f := startFake(t, tc.o)
		c := newClient(t, f)
		c.initialize()
		if got := c.toolNames(); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: tools %v; want %v", tc.o, got, tc.want)
		}
	}
}
