package server

import (
	"context"
	"encoding/json"
	"io"
	nethttp "net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// censusServer is a streamable HTTP server of four read-only tools: fast
// answers at once, stalls never answers (its SSE stream stays open until
// the client goes), closes ends its stream before its response (to be
// resumed), and args needs an argument; it records the cancellations it
// gets.
type censusServer struct {
	mu        sync.Mutex
	cancelled []json.RawMessage
	args      map[string]any
}

func (s *censusServer) ServeHTTP(w nethttp.ResponseWriter, r *nethttp.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments map[string]any  `json:"arguments"`
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	answer := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
	}
	readOnly := `"annotations":{"readOnlyHint":true}`
	switch {
	case m.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "census-test-session")
		answer(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"census","version":"1"}}`)
	case m.Method == "tools/list":
		answer(`{"tools":[{"name":"fast","inputSchema":{"type":"object"},` + readOnly + `},` +
			`{"name":"stalls","inputSchema":{"type":"object"},` + readOnly + `},` +
			`{"name":"closes","inputSchema":{"type":"object"},` + readOnly + `},` +
			`{"name":"args","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},` + readOnly + `}]}`)
	case m.Method == "tools/call" && m.Params.Name == "closes":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(nethttp.StatusOK)
		_, _ = io.WriteString(w, "id: 2\nretry: 10\ndata: \n\n")
	case m.Method == "tools/call" && m.Params.Name == "stalls":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(nethttp.StatusOK)
		_, _ = io.WriteString(w, "id: 1\ndata: \n\n")
		w.(nethttp.Flusher).Flush()
		<-r.Context().Done()
	case m.Method == "tools/call":
		if m.Params.Name == "args" {
			s.mu.Lock()
			s.args = m.Params.Arguments
			s.mu.Unlock()
		}
		answer(`{"content":[{"type":"text","text":"ok"}]}`)
	case m.Method == "notifications/cancelled":
		s.mu.Lock()
		s.cancelled = append(s.cancelled, m.Params.RequestID)
		s.mu.Unlock()
		w.WriteHeader(nethttp.StatusAccepted)
	default:
		w.WriteHeader(nethttp.StatusAccepted)
	}
}

func TestCensusFindsTheToolsUnansweredWithinTheBudget(t *testing.T) {
	s := &censusServer{}
	ts := httptest.NewServer(s)
	defer ts.Close()
	run.Configure(run.Options{ServerURL: ts.URL, Census: true, ToolBudget: 200 * time.Millisecond, Patience: 5 * time.Second,
		CallTools: toolpolicy.ReadOnly})
	run.GiveHandoff(run.Handoff{Eras: map[check.Transport]run.ServerEras{check.HTTP: {Legacy: true}}})
	start := time.Now()
	var answeredMu sync.Mutex
	var answered []string
	got := takeCensus(context.Background(), run.Current(), func(tool string) {
		answeredMu.Lock()
		answered = append(answered, tool)
		answeredMu.Unlock()
	})
	took := time.Since(start)
	if !got.Taken || !slices.Equal(got.Slow, []string{"stalls"}) {
		t.Fatalf("census %+v, want taken with stalls slow", got)
	}
	if slices.Sort(answered); !slices.Equal(answered, []string{"args", "closes", "fast"}) {
		t.Errorf("answered %v, want args, closes (a stream to resume is no slow tool) and fast", answered)
	}
	// The calls run at once: one budget, not one per tool.
	if took > 5*time.Second {
		t.Errorf("the census took %s", took)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cancelled) != 1 {
		t.Errorf("cancellations %s, want the stalled call's", s.cancelled)
	}
	if s.args["n"] == nil {
		t.Errorf("the tool with a required argument was called with %v, want a valid instance", s.args)
	}
}

func TestCensusOfAServerWithoutTheLegacyEraIsNotTaken(t *testing.T) {
	run.Configure(run.Options{ServerURL: "http://127.0.0.1:1/mcp", Census: true})
	run.GiveHandoff(run.Handoff{Eras: map[check.Transport]run.ServerEras{check.HTTP: {Modern: true}}})
	if got := takeCensus(context.Background(), run.Current(), func(string) {}); got.Taken || got.Why == "" {
		t.Fatalf("census %+v, want not taken, with why", got)
	}
}
