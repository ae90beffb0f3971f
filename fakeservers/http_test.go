package fakeservers

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

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestHTTPWellBehaved(t *testing.T) {
	f := startHTTPFake(t, HTTPOptions{Case: "well-behaved"})
	c := newHTTPClient(t, f)
	if !strings.HasPrefix(f.URL(), "http://127.0.0.1:") || !strings.HasSuffix(f.URL(), "/mcp") || f.SecondURL() != "" {
		t.Fatalf("URL %q, SecondURL %q; want http://127.0.0.1:PORT/mcp and none", f.URL(), f.SecondURL())
	}

	// A dual-era client's probe meets a legacy server.
	resp := c.post(testRequest(t, jsonrpc.IntID(1), methodDiscover, map[string]any{}))
	wantHTTPStatus(t, resp, http.StatusOK)
	if m := readJSONMessage(t, resp); m.Kind() != jsonrpc.KindError || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("server/discover answered %s %v; want error -32601", m.Kind(), m.Error)
	}

	for proposed, want := range map[string]string{"2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26", "2026-07-28": "2025-11-25"} {
		resp := c.post(initializeMessage(t, jsonrpc.IntID(2), proposed))
		wantHTTPStatus(t, resp, http.StatusOK)
		var init InitializeResult
		if err := json.Unmarshal(readJSONMessage(t, resp).Result, &init); err != nil {
			t.Fatal(err)
		}
		if init.ProtocolVersion != want || init.Capabilities["tools"] == nil || init.ServerInfo.Name == "" {
			t.Errorf("initialize proposing %s: %+v; want version %s, tools capability, serverInfo", proposed, init, want)
		}
		if id := resp.Header.Get(SessionHeader); len(id) != 32 {
			t.Errorf("session id %q; want 32 hex digits", id)
		}
	}

	c.initialize()
	resp = c.post(testRequest(t, jsonrpc.StringID("list"), "tools/list", nil))
	var list struct {
		Tools []tool `json:"tools"`
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
	wantHTTPStatus(t, c.send(http.MethodPost, `[{"jsonrpc":"2.0","method":"notifications/progress","params":{}}]`), http.StatusAccepted)
	wantHTTPStatus(t, c.send(http.MethodPost, `{"jsonrpc":"2.0","id":"x","result":{}}`), http.StatusAccepted)

	// Bodies, paths and methods the endpoint refuses.
	resp = c.send(http.MethodPost, `{"jsonrpc":`)
	wantHTTPStatus(t, resp, http.StatusBadRequest)
	if m := readJSONMessage(t, resp); m.Error == nil || m.Error.Code != jsonrpc.CodeParseError {
		t.Errorf("damaged body answered %s; want error -32700", m.Kind())
	}
	wantHTTPStatus(t, c.send(http.MethodPut, ""), http.StatusMethodNotAllowed)
	wrongPath := *c
	wrongPath.url = strings.TrimSuffix(f.URL(), "/mcp") + "/other"
	wantHTTPStatus(t, wrongPath.call(8, "echo"), http.StatusNotFound)

	// Sessions: required, checked, ended by DELETE.
	noSession := *c
	noSession.session = ""
	wantHTTPStatus(t, noSession.call(9, "echo"), http.StatusBadRequest)
	wantHTTPStatus(t, noSession.send(http.MethodGet, ""), http.StatusBadRequest)
	unknown := *c
	unknown.session = "no-such-session"
	wantHTTPStatus(t, unknown.call(10, "echo"), http.StatusNotFound)
	resp = c.send(http.MethodGet, "", "Accept: text/event-stream")
	wantHTTPStatus(t, resp, http.StatusMethodNotAllowed)
	if allow := resp.Header.Get("Allow"); allow != "POST, DELETE" {
		t.Errorf("GET 405 Allow %q; want POST, DELETE", allow)
	}
	wantHTTPStatus(t, c.send(http.MethodDelete, ""), http.StatusOK)
	wantHTTPStatus(t, c.call(11, "echo"), http.StatusNotFound)

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

func TestHTTPRecordKeepsHeadersAndCapsBody(t *testing.T) {
	f := startHTTPFake(t, HTTPOptions{Case: "well-behaved"})
	c := newHTTPClient(t, f)
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("p", 100<<10) + `"}}`
	resp := c.send(http.MethodPost, big, "Authorization: Bearer secret-token", "X-Custom: yes")
	wantHTTPStatus(t, resp, http.StatusOK)
	r := f.Requests()[0]
	if r.Header.Get("Authorization") != "Bearer secret-token" || r.Header.Get("X-Custom") != "yes" {
		t.Errorf("recorded headers %v; want Authorization and X-Custom kept", r.Header)
	}
	if len(r.Body) != maxRecordedBody || len(r.Messages) != 1 || r.Messages[0].Method != methodInitialize {
		t.Errorf("recorded body of %d bytes and %d messages; want %d bytes and the decoded initialize", len(r.Body), len(r.Messages), maxRecordedBody)
	}
	wantHTTPStatus(t, c.send(http.MethodPost, `{"pad":"`+strings.Repeat("p", maxHTTPBody)+`"}`), http.StatusRequestEntityTooLarge)
}

func TestStartHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		o    HTTPOptions
		want string
	}{
		{HTTPOptions{Case: "no-such-case"}, "cases: control-hang, expire-after"},
		{HTTPOptions{Case: "expire-after"}, "ExpireAfter is required"},
		{HTTPOptions{Case: "sse-event"}, "SSEEventSize is required"},
		{HTTPOptions{Case: "sse-huge"}, "SSEEventSize is required"},
		{HTTPOptions{Case: "slow-calls", Delay: -time.Second}, "Delay must be 0 or more"},
		{HTTPOptions{Case: "slow-calls", Tools: -1}, "Tools must be 0 or more"},
		{HTTPOptions{Case: "expire-again", Stateless: true}, "cannot be Stateless"},
	} {
		f, err := StartHTTP(tc.o)
		if err == nil {
			f.Close()
			t.Errorf("StartHTTP(%+v) succeeded; want an error", tc.o)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "http fake") {
			t.Errorf("StartHTTP(%+v): %v; want an error naming the fake and saying %q", tc.o, err, tc.want)
		}
	}
}

func TestHTTPCasesListed(t *testing.T) {
	want := []string{"control-hang", "expire-after", "expire-again", "expire-inflight", "expire-old-pending", "fuzz",
		"get-405", "headers", "recovery-hangs", "redirect", "resume", "server-request", "slow-calls",
		"sse-comments", "sse-crlf-split", "sse-early", "sse-event", "sse-huge", "stateless", "well-behaved"}
	if got := HTTPCaseIDs(); !slices.Equal(got, want) {
		t.Errorf("HTTPCaseIDs() = %v; want %v", got, want)
	}
	for _, c := range HTTPCases() {
		if c.Description == "" {
			t.Errorf("case %s has no description", c.ID)
		}
	}
}

// TestHTTPCloseUnblocks holds a call, a cancellation, a GET stream and a
// re-initialize open, closes the fake, and checks that every request ends,
// none is recorded as Aborted (the fake closed, the clients stayed), and no
// goroutine is left behind.
func TestHTTPCloseUnblocks(t *testing.T) {
	before := runtime.NumGoroutine()
	ended := make(chan error, 8)
	var fakes []*HTTPFake
	var clients []*httpClient
	for _, o := range []HTTPOptions{{Case: "control-hang"}, {Case: "headers"}, {Case: "recovery-hangs"}, {Case: "sse-huge", SSEEventSize: 1 << 30}} {
		f, err := StartHTTP(o)
		if err != nil {
			t.Fatal(err)
		}
		fakes = append(fakes, f)
		c := newHTTPClient(t, f)
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
			held = []string{string(Encode(callMessage(t, jsonrpc.IntID(1), "echo"))), string(Encode(cancel))}
		case "headers":
			held = []string{""}
		case "recovery-hangs":
			wantHTTPStatus(t, c.call(1, "echo"), http.StatusNotFound)
			c.session = ""
			held = []string{string(Encode(initializeMessage(t, jsonrpc.IntID(2), "2025-11-25")))}
		case "sse-huge":
			held = []string{string(Encode(callMessage(t, jsonrpc.IntID(1), "echo")))}
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
		wantRecords(t, f, "the held requests in progress", func(recs []HTTPRequest) bool {
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
		case <-time.After(httpDeadline):
			t.Fatal("a held request never ended after Close")
		}
	}
	for _, c := range clients {
		c.closeAll()
	}
	// Bounded poll: connections and their goroutines wind down after Close.
	deadline := time.Now().Add(httpDeadline)
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
	if _, err := newHTTPClient(t, fakes[0]).do(t.Context(), http.MethodPost, "{}"); err == nil {
		t.Errorf("POST after Close: %v; want a connection error", err)
	}
}

func TestHTTPToolsOption(t *testing.T) {
	for _, tc := range []struct {
		o    HTTPOptions
		want []string
	}{
		{HTTPOptions{Case: "well-behaved"}, []string{"echo"}},
		{HTTPOptions{Case: "well-behaved", Tools: 3}, []string{"t1", "t2", "t3"}},
		{HTTPOptions{Case: "sse-comments", Tools: 1}, []string{"t1"}},
		{HTTPOptions{Case: "control-hang"}, []string{"t1", "t2"}},
		{HTTPOptions{Case: "expire-inflight", Tools: 1}, []string{"slow-1"}},
	} {
		f := startHTTPFake(t, tc.o)
		c := newHTTPClient(t, f)
		c.initialize()
		if got := c.toolNames(); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: tools %v; want %v", tc.o, got, tc.want)
		}
	}
}
