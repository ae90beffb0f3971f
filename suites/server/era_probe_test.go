package server

import (
	"io"
	nethttp "net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/suites/run"
)

// notInitialized is how server-everything (the TypeScript SDK's transport)
// refuses a POST outside a session: HTTP 400 with an error whose id is null.
const notInitialized = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`

// TestHTTPProbeJudgesAtOnce: whatever the HTTP reply to a probe (an error
// status with an id-less error or no body, a stream that ends), the probe
// judges it when it arrives, never at its timeout.
func TestHTTPProbeJudgesAtOnce(t *testing.T) {
	const timeout = 5 * time.Second
	for _, tc := range []struct {
		name      string
		serve     func(w nethttp.ResponseWriter, r *nethttp.Request)
		wantReply bool
	}{
		{"400 with an error whose id is null", func(w nethttp.ResponseWriter, _ *nethttp.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(nethttp.StatusBadRequest)
			_, _ = io.WriteString(w, notInitialized)
		}, true},
		{"400 without a body", func(w nethttp.ResponseWriter, _ *nethttp.Request) { w.WriteHeader(nethttp.StatusBadRequest) }, false},
		{"a stream carrying an error whose id is null, left open", func(w nethttp.ResponseWriter, r *nethttp.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: "+notInitialized+"\n\n")
			w.(nethttp.Flusher).Flush()
			<-r.Context().Done()
		}, true},
		{"a stream that ends without an answer", func(w nethttp.ResponseWriter, _ *nethttp.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "id: 1\ndata: \n\n")
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) { tc.serve(w, r) }))
			defer ts.Close()
			start := time.Now()
			a := probeOnce(run.Options{ServerURL: ts.URL, ProbeTimeout: timeout}, check.HTTP, mcp.MethodDiscover, modernParams(mcp.ModernVersion, nil), mcp.ModernVersion)
			if took := time.Since(start); took > timeout/5 {
				t.Errorf("the probe took %s of its %s timeout", took.Round(time.Millisecond), timeout)
			}
			if got := a.reply != nil; got != tc.wantReply {
				t.Errorf("reply %v, want %v (%s)", got, tc.wantReply, a.what)
			}
			if !a.spoke {
				t.Errorf("an HTTP reply is the server speaking: %+v", a)
			}
		})
	}
}

// TestHTTPEraOfALegacyServer: a server that refuses server/discover outside
// a session with HTTP 400 and answers initialize is legacy, judged in a
// fraction of the probe timeout.
func TestHTTPEraOfALegacyServer(t *testing.T) {
	ts := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(string(b), `"initialize"`) {
			w.WriteHeader(nethttp.StatusBadRequest)
			_, _ = io.WriteString(w, notInitialized)
			return
		}
		m, _ := jsonrpc.Decode(b)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+m.ID.String()+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	}))
	defer ts.Close()
	const timeout = 5 * time.Second
	start := time.Now()
	e := probeEras(run.Options{ServerURL: ts.URL, ProbeTimeout: timeout}, check.HTTP)
	if took := time.Since(start); took > timeout/5 {
		t.Errorf("the era probe took %s of its %s timeout", took.Round(time.Millisecond), timeout)
	}
	if !e.Legacy || e.Modern || e.NotAServer != "" {
		t.Errorf("eras %+v, want legacy only", e)
	}
	if !strings.Contains(e.Evidence, "error -32000") || !strings.Contains(e.Evidence, "HTTP 400") {
		t.Errorf("evidence %q does not say what answered server/discover", e.Evidence)
	}
}
