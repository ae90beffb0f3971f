package httpclient

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
)

// connectSession runs the mcp client session over a client of the rig with
// the seed defaults (GET stream included), except short timeouts.
func connectSession(t *testing.T, s *rig) (*mcpclient.Session, *Client) {
	t.Helper()
	c := dialRig(t, s, func(cfg *Config) { cfg.OpenGETStream = true })
	ctx, cancel := context.WithTimeout(context.Background(), clientWait)
	defer cancel()
	sess, err := mcpclient.Connect(ctx, c, mcpclient.Options{CallTimeout: clientWait})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	return sess, c
}

// TestOverHTTPWithTheMCPSession: the client carries a whole session:
// handshake, tools/list, tools/call, ping, close with DELETE.
func TestOverHTTPWithTheMCPSession(t *testing.T) {
	s := newRig(t, nil)
	sess, _ := connectSession(t, s)
	ctx := context.Background()
	tools, err := sess.ListTools(ctx)
	if err != nil || len(tools) != 1 || tools[0].Name != "echo" {
		t.Fatalf("tools %+v, %v", tools, err)
	}
	res, err := sess.CallTool(ctx, "echo", map[string]any{})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("call: %+v, %v", res, err)
	}
	if err := sess.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if sess.ProtocolVersion() != "2025-11-25" {
		t.Fatalf("version %q", sess.ProtocolVersion())
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.requests(http.MethodDelete)); n != 1 {
		t.Fatalf("%d DELETEs, want 1", n)
	}
}

// TestRequestFailureFailsTheCallAtOnce: an HTTP error on a call reaches the
// caller at once through mcpclient.FailureSource, with its kind, long before the
// call timeout; the session goes on.
func TestRequestFailureFailsTheCallAtOnce(t *testing.T) {
	s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
		if q.rpc() == "tools/call" {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	sess, _ := connectSession(t, s)
	began := time.Now()
	_, err := sess.CallTool(context.Background(), "echo", nil)
	if !errors.Is(err, failure.ErrConnection) || time.Since(began) > clientWait/2 {
		t.Fatalf("call: %v after %v; want a connection failure at once", err, time.Since(began))
	}
	if err := sess.Ping(context.Background()); err != nil {
		t.Fatalf("ping after the failed call: %v", err)
	}
}

// TestServerRequestOnTheStreamIsAnswered: HT-21, RM-02: a server request
// sent on a call's SSE stream is answered by the session through the
// control queue while the call's stream is open.
func TestServerRequestOnTheStreamIsAnswered(t *testing.T) {
	replied := make(chan *jsonrpc.Message, 1)
	s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
		switch q.rpc() {
		case "response":
			replied <- q.msg()
			w.WriteHeader(http.StatusAccepted)
			return true
		case "tools/call":
			sse := rigSSE(w)
			ping, _ := jsonrpc.NewRequest(jsonrpc.StringID("server-ping"), "ping", nil)
			sse.event("", 0, ping)
			select {
			case r := <-replied:
				if r.ID != jsonrpc.StringID("server-ping") {
					return true
				}
			case <-q.ctx.Done():
				return true
			}
			sse.event("", 0, rigAnswer(q.msg()))
			return true
		}
		return false
	})
	sess, _ := connectSession(t, s)
	if _, err := sess.CallTool(context.Background(), "echo", nil); err != nil {
		t.Fatalf("call: %v", err)
	}
}
