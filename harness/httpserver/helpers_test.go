package httpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/httpserver"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// waitLimit bounds every wait of these tests; reaching it is a failure.
const waitLimit = 10 * time.Second

// quietWindow is how long a test waits for a stream to end when the
// reference ends it at once.
const quietWindow = 300 * time.Millisecond

// endpoint is one server transport listening on loopback, with the client
// the tests speak to it with.
type endpoint struct {
	t   *testing.T
	url string
	srv *httpserver.Server
	hc  *http.Client
}

// minimal is the default configuration in front of the minimal MCP server.
func minimal(m mutant.Name) httpserver.Config {
	server := NewMinimalServer()
	cfg := httpserver.DefaultConfig(httpserver.HandlerFunc(
		func(ctx context.Context, s *httpserver.Session, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
			return server.Handle(ctx, s, req, out)
		}))
	cfg.Mutant = m
	return cfg
}

// serve starts a server transport for the test and shuts it down after.
func serve(t *testing.T, cfg httpserver.Config) *endpoint {
	t.Helper()
	srv := httpserver.New(cfg)
	url, shutdown, err := httpserver.ListenLoopback(srv)
	if err != nil {
		t.Fatalf("ListenLoopback: %v", err)
	}
	hc := &http.Client{Timeout: waitLimit}
	t.Cleanup(func() {
		hc.CloseIdleConnections()
		if err := shutdown(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return &endpoint{t: t, url: url, srv: srv, hc: hc}
}

// header is one request header.
type header struct{ name, value string }

func sessionHeader(id string) header   { return header{"Mcp-Session-Id", id} }
func versionHeader(v string) header    { return header{"MCP-Protocol-Version", v} }
func lastEventHeader(id string) header { return header{"Last-Event-ID", id} }

// send makes one HTTP request; the caller reads and closes the body.
func (e *endpoint) send(method, body string, headers ...header) *http.Response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	switch method {
	case http.MethodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	for _, h := range headers {
		if h.name == "Host" {
			req.Host = h.value
			continue
		}
		req.Header.Set(h.name, h.value)
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, e.url, err)
	}
	e.t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func (e *endpoint) post(body string, headers ...header) *http.Response {
	e.t.Helper()
	return e.send(http.MethodPost, body, headers...)
}

// initialize opens a session proposing version and sends
// notifications/initialized; it returns the session id.
func (e *endpoint) initialize(version string) string {
	e.t.Helper()
	resp := e.post(initializeBody(version))
	wantStatus(e.t, resp, http.StatusOK)
	id := resp.Header.Get("Mcp-Session-Id")
	result := wantResult(e.t, readAnswer(e.t, resp), jsonrpc.IntID(1))
	if !strings.Contains(string(result), `"protocolVersion":"`+version+`"`) {
		e.t.Fatalf("initialize result %s does not echo version %s", result, version)
	}
	wantStatus(e.t, e.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionHeader(id), versionHeader(version)), http.StatusAccepted)
	return id
}

func initializeBody(version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`, version)
}

// call POSTs a request in a session and returns the response (application/json
// or SSE).
func (e *endpoint) call(sid, body string) *jsonrpc.Message {
	e.t.Helper()
	resp := e.post(body, sessionHeader(sid), versionHeader("2025-11-25"))
	wantStatus(e.t, resp, http.StatusOK)
	return readAnswer(e.t, resp)
}

// getStream opens the GET stream of a session and reads its priming event.
func (e *endpoint) getStream(sid string, headers ...header) *sseStream {
	e.t.Helper()
	resp := e.send(http.MethodGet, "", append([]header{sessionHeader(sid), versionHeader("2025-11-25")}, headers...)...)
	wantStatus(e.t, resp, http.StatusOK)
	return openSSE(e.t, resp)
}

// readAnswer reads the one response of an application/json or SSE answer.
func readAnswer(t *testing.T, resp *http.Response) *jsonrpc.Message {
	t.Helper()
	switch ct := resp.Header.Get("Content-Type"); ct {
	case "application/json":
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		m, err := jsonrpc.Decode(b)
		if err != nil {
			t.Fatalf("answer %s: %v", b, err)
		}
		return m
	case "text/event-stream":
		s := openSSE(t, resp)
		for {
			m, _ := s.wantMessage()
			if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
				s.wantEnd()
				return m
			}
		}
	default:
		t.Fatalf("answer Content-Type %q, want application/json or text/event-stream", ct)
		return nil
	}
}

func wantStatus(t *testing.T, resp *http.Response, status int) {
	t.Helper()
	if resp.StatusCode != status {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, b)
	}
}

// wantRefusal checks an HTTP error with a JSON-RPC error body; withNullID
// says whether the body carries "id":null or no id at all.
func wantRefusal(t *testing.T, resp *http.Response, status int, code int64, withNullID bool) {
	t.Helper()
	wantStatus(t, resp, status)
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Error   *jsonrpc.Error   `json:"error"`
	}
	if err := json.Unmarshal(b, &body); err != nil || body.JSONRPC != "2.0" || body.Error == nil {
		t.Fatalf("body %s is not a JSON-RPC error", b)
	}
	if body.Error.Code != code {
		t.Errorf("error code %d, want %d (%s)", body.Error.Code, code, body.Error.Message)
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(b, &raw)
	id, has := raw["id"]
	switch {
	case withNullID && (!has || string(id) != "null"):
		t.Errorf("body %s: want \"id\":null", b)
	case !withNullID && has:
		t.Errorf("body %s: want no id", b)
	}
}

func wantResult(t *testing.T, m *jsonrpc.Message, id jsonrpc.ID) json.RawMessage {
	t.Helper()
	if m.Kind() != jsonrpc.KindResult || m.ID != id {
		t.Fatalf("got %s %s (%v), want the result for id %s", m.Kind(), m.ID, m.Error, id)
	}
	return m.Result
}

func wantErrorCode(t *testing.T, m *jsonrpc.Message, code int64) {
	t.Helper()
	if m.Kind() != jsonrpc.KindError || m.Error.Code != code {
		t.Fatalf("got %s %+v, want error %d", m.Kind(), m.Error, code)
	}
}

// sseStream reads the events of one SSE response.
type sseStream struct {
	t    *testing.T
	resp *http.Response
	br   *bufio.Reader
}

// sseEvent is one event as the client sees it.
type sseEvent struct {
	id    string
	hasID bool
	retry string // the retry field as sent; "" without one
	data  string
}

func openSSE(t *testing.T, resp *http.Response) *sseStream {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	return &sseStream{t: t, resp: resp, br: bufio.NewReader(resp.Body)}
}

// next reads one event; io.EOF when the stream ended between events.
func (s *sseStream) next() (sseEvent, error) {
	var e sseEvent
	var data []string
	started := false
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			if err == io.EOF && !started && line == "" {
				return e, io.EOF
			}
			return e, fmt.Errorf("stream broke inside an event: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !started {
				continue
			}
			e.data = strings.Join(data, "\n")
			return e, nil
		}
		started = true
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			e.id, e.hasID = value, true
		case "retry":
			e.retry = value
		case "data":
			data = append(data, value)
		}
	}
}

func (s *sseStream) wantEvent() sseEvent {
	s.t.Helper()
	e, err := s.next()
	if err != nil {
		s.t.Fatalf("reading an event: %v", err)
	}
	return e
}

// wantPriming reads the priming event: an id and empty data (HT-28).
func (s *sseStream) wantPriming() sseEvent {
	s.t.Helper()
	e := s.wantEvent()
	if !e.hasID || e.id == "" || e.data != "" {
		s.t.Fatalf("first event %+v, want a priming event with an id and empty data", e)
	}
	return e
}

// wantMessage reads the next event that carries a message, skipping priming
// events; every such event must carry an id.
func (s *sseStream) wantMessage() (*jsonrpc.Message, sseEvent) {
	s.t.Helper()
	for {
		e := s.wantEvent()
		if e.data == "" {
			continue
		}
		if !e.hasID {
			s.t.Errorf("event %q has no id", e.data)
		}
		m, err := jsonrpc.Decode([]byte(e.data))
		if err != nil {
			s.t.Fatalf("event data %q: %v", e.data, err)
		}
		return m, e
	}
}

// wantEnd checks that the server ends the stream (HT-25).
func (s *sseStream) wantEnd() {
	s.t.Helper()
	if e, err := s.next(); !errors.Is(err, io.EOF) {
		s.t.Fatalf("stream went on with %+v (%v), want its end", e, err)
	}
}

// notification builds a server notification for Notify.
func notification(t *testing.T, n int) *jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.NewNotification("notifications/message", map[string]any{"level": "info", "data": n})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func decode(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
}
