package transcript

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHTTPRecorderRecordsExchangesWithoutCredentials(t *testing.T) {
	const token = "mcpconform-test-token-1234"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "sess-1")
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: 0\nretry: 100\ndata:\n\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r\n\r\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"no"}}`)
	}))
	defer srv.Close()
	var log Log
	client := &http.Client{Transport: &HTTPRecorder{Log: &log}}

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Origin", "http://elsewhere.example")
	req.Header.Set("Cookie", "c="+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "-32600") {
		t.Fatalf("the body did not reach the caller: %q", b)
	}
	resp.Body.Close()
	resp, err = client.Get(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	var got []string
	for _, e := range log.Entries() {
		got = append(got, e.Dir+" "+e.Line)
	}
	text := strings.Join(got, "\n")
	if strings.Contains(text, token) {
		t.Errorf("the token reached the transcript:\n%s", text)
	}
	for _, want := range []string{
		"note POST /mcp",
		"Origin: http://elsewhere.example; Authorization: ***",
		`c2s {"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"note answered 400; Content-Type: application/json; Mcp-Session-Id: sess-1",
		`s2c {"jsonrpc":"2.0","error":{"code":-32600,"message":"no"}}`,
		`note SSE event without data (id "0", retry 100)`,
		`note SSE event (id "1")`,
		`s2c {"jsonrpc":"2.0","id":1,"result":{}}`,
		`s2c {"jsonrpc":"2.0","method":"n"}`,
		"note SSE stream ended",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("transcript lacks %q:\n%s", want, text)
		}
	}
}

func TestLogIsBounded(t *testing.T) {
	var log Log
	log.Add(ServerToClient, strings.Repeat("x", MaxLineBytes+1))
	for i := range MaxLogEntries + 5 {
		log.Add(ClientToServer, fmt.Sprintf(`{"n":%d}`, i))
	}
	e := log.Entries()
	half := MaxLogEntries / 2
	if len(e) != MaxLogEntries+1 || e[0].Dir != Note || !strings.Contains(e[half].Line, "6 entries not recorded") {
		t.Fatalf("%d entries, first %+v, at the half %+v", len(e), e[0], e[half])
	}
	// The latest entries are kept, in order: a failure's tail is where the
	// check ended.
	if last := e[len(e)-1].Line; last != fmt.Sprintf(`{"n":%d}`, MaxLogEntries+4) {
		t.Errorf("last entry %q", last)
	}
	if e[half+1].Line != fmt.Sprintf(`{"n":%d}`, half+5) {
		t.Errorf("first entry after the gap %q", e[half+1].Line)
	}
}

func TestHTTPRecorderMasksTheURLsCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	var log Log
	client := &http.Client{Transport: &HTTPRecorder{Log: &log}}
	u := strings.Replace(srv.URL, "://", "://u:SECRETPW@", 1) + "/mcp?token=SECRETQ&flag"
	resp, err := client.Post(u, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var text []string
	for _, e := range log.Entries() {
		text = append(text, e.Dir+" "+e.Line)
	}
	got := strings.Join(text, "\n")
	if strings.Contains(got, "SECRET") || !strings.Contains(got, "note POST /mcp?token=***&flag; Content-Type: application/json; Authorization: ***") {
		t.Errorf("transcript:\n%s", got)
	}
}
