package serve

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/httpclient"
	"github.com/mcpconform/mcpconform/harness/httpserver"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
)

// sseMessages reads the JSON-RPC messages of an SSE response, one per event
// with data, until the stream ends.
func sseMessages(t *testing.T, resp *http.Response) <-chan *jsonrpc.Message {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("answer %s %q: %s, want an SSE stream", resp.Status, ct, b)
	}
	out := make(chan *jsonrpc.Message, 16)
	go func() {
		defer close(out)
		r := bufio.NewReader(resp.Body)
		var data strings.Builder
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case strings.HasPrefix(line, "data:"):
				data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			case line == "" && data.Len() > 0:
				if m, err := jsonrpc.Decode([]byte(data.String())); err == nil {
					out <- m
				}
				data.Reset()
			}
		}
	}()
	return out
}

// nextOn returns the next message of a stream, nil when it ended.
func nextOn(t *testing.T, msgs <-chan *jsonrpc.Message) *jsonrpc.Message {
	t.Helper()
	select {
	case m := <-msgs:
		return m
	case <-timeAfter(waitLimit):
		t.Fatalf("nothing on the stream within %v", waitLimit)
		return nil
	}
}

// session posts in one MCP session over HTTP.
type httpSession struct {
	t   *testing.T
	url string
	id  string
}

func (s *httpSession) post(body string) *http.Response {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := (&http.Client{Timeout: waitLimit}).Do(req)
	if err != nil {
		s.t.Fatalf("POST: %v", err)
	}
	s.t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// startHTTP starts the reference server with Start and opens a session
// declaring caps.
func startHTTP(t *testing.T, o Options, caps string) *httpSession {
	t.Helper()
	url, stop, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	resp := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`)
	s := &httpSession{t: t, url: url, id: resp.Header.Get("Mcp-Session-Id")}
	if m := nextOn(t, sseMessages(t, resp)); m == nil || m.Kind() != jsonrpc.KindResult {
		t.Fatalf("initialize answered %+v", m)
	}
	if r := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s", r.Status)
	}
	return s
}

func TestHTTPSamplingRoundTrip(t *testing.T) {
	s := startHTTP(t, Options{}, `{"sampling":{}}`)
	stream := sseMessages(t, s.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"2+2?"}}}`))
	req := nextOn(t, stream)
	if req == nil || req.Method != "sampling/createMessage" {
		t.Fatalf("got %+v, want sampling/createMessage on the request's stream", req)
	}
	reply := `{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"role":"assistant","content":{"type":"text","text":"four"},"model":"m"}}`
	if r := s.post(reply); r.StatusCode != http.StatusAccepted {
		t.Fatalf("the reply got %s", r.Status)
	}
	resp := nextOn(t, stream)
	if resp == nil || resp.ID != jsonrpc.IntID(2) || !strings.Contains(string(resp.Result), "LLM response: four") {
		t.Fatalf("tools/call answered %+v", resp)
	}
}

func TestHTTPCancelledRequestGetsNoResponse(t *testing.T) {
	s := startHTTP(t, Options{}, `{}`)
	stream := sseMessages(t, s.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"ms":600000},"_meta":{"progressToken":"s"}}}`))
	if m := nextOn(t, stream); m == nil || m.Method != "notifications/progress" {
		t.Fatalf("got %+v, want slow's progress", m)
	}
	if r := s.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`); r.StatusCode != http.StatusAccepted {
		t.Fatalf("the cancel got %s", r.Status)
	}
	if m := nextOn(t, stream); m != nil {
		t.Fatalf("the cancelled request's stream carried %+v; want it to end without a response", m)
	}
}

func TestHTTPServesProtocolMutants(t *testing.T) {
	s := startHTTP(t, Options{Mutant: "unknown-tool-not-error", PageSize: 50}, `{}`)
	resp := nextOn(t, sseMessages(t, s.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}}`)))
	if resp == nil || resp.Kind() != jsonrpc.KindResult || !strings.Contains(string(resp.Result), `"isError":true`) {
		t.Fatalf("mutant answered %+v", resp)
	}
	list := nextOn(t, sseMessages(t, s.post(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)))
	if list == nil || strings.Contains(string(list.Result), "nextCursor") {
		t.Fatalf("tools/list with --page-size 50 paginated: %s", list.Result)
	}
}

// TestHTTPReconnectionResumesWithTheReferenceClient: test_reconnection
// closes its stream's connection mid-call; the reference client waits the
// priming event's retry, resumes with GET and Last-Event-ID, and gets the
// answer (HT-29a, HT-29b, HT-45).
func TestHTTPReconnectionResumesWithTheReferenceClient(t *testing.T) {
	url, stop, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	client, err := httpclient.Dial(httpclient.DefaultConfig(url))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	// The legacy era: its POST streams are resumed with GET (HT-45).
	sess, err := mcpclient.Connect(ctx, client, mcpclient.Options{CallTimeout: waitLimit, Era: mcpclient.EraLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	began := time.Now()
	res, err := sess.CallTool(ctx, "test_reconnection", map[string]any{})
	if err != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(string(res.Content[0]), "after the server closed") {
		t.Fatalf("test_reconnection: %+v, %v; want its answer through the resumed stream", res, err)
	}
	if took := time.Since(began); took < httpserver.DefaultRetryInterval {
		t.Fatalf("answered after %v, before the retry interval of %v: the client did not wait to resume", took, httpserver.DefaultRetryInterval)
	}
}
