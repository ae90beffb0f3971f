package httpclient

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/sse"
)

// progress is a notification a server sends before its response.
func progress(n int) *jsonrpc.Message {
	m, _ := jsonrpc.NewNotification("notifications/progress", map[string]any{"progressToken": "t", "progress": n})
	return m
}

// wantMessage waits for the next message on Incoming, which must be method
// (a response when method is "").
func wantMessage(t *testing.T, c *Client, method string) *jsonrpc.Message {
	t.Helper()
	select {
	case m := <-c.Incoming():
		if m.Method != method {
			t.Fatalf("got %s %q, want %q", m.Kind(), m.Method, method)
		}
		return m
	case f := <-c.Failures():
		t.Fatalf("request %s failed: %v; want %q", f.ID, f.Err, method)
	case <-time.After(clientWait):
		t.Fatalf("nothing within %v, want %q", clientWait, method)
	}
	return nil
}

// TestPOSTStreamDeliversEveryMessage: HT-17, HT-21: an SSE response's
// messages reach Incoming in order, comments and the priming event
// skipped, and the stream is left once the response is in.
func TestPOSTStreamDeliversEveryMessage(t *testing.T) {
	s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
		if q.rpc() != "tools/call" {
			return false
		}
		sse := rigSSE(w)
		sse.event("p0", 0, nil)
		sse.raw(": keep-alive\n\n")
		sse.event("", 0, progress(1))
		sse.event("", 0, progress(2))
		sse.event("", 0, rigAnswer(q.msg()))
		<-q.ctx.Done() // the client leaves a stream once its response is in
		return true
	})
	c := dialRig(t, s, nil)
	handshake(t, c, s)
	clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
	wantMessage(t, c, "notifications/progress")
	wantMessage(t, c, "notifications/progress")
	if m := wantMessage(t, c, ""); m.ID != jsonrpc.IntID(10) {
		t.Fatalf("response to %s, want 10", m.ID)
	}
}

// resultOfSize is a response to id whose SSE event ("data: " + JSON +
// "\n") is exactly n raw bytes.
func resultOfSize(t *testing.T, id int64, n int) string {
	t.Helper()
	empty := `{"jsonrpc":"2.0","id":` + jsonrpc.IntID(id).String() + `,"result":{"pad":""}}`
	pad := n - len("data: \n") - len(empty)
	if pad < 0 {
		t.Fatalf("no response fits in %d bytes", n)
	}
	return "data: " + strings.Replace(empty, `""`, `"`+strings.Repeat("x", pad)+`"`, 1) + "\n\n"
}

// TestOversizeEventFailsTheCallAndIsNotResumed: RM-09: a response event of
// exactly MaxSSEEventSize is accepted; one byte more fails the call with
// sse.ErrEventTooLarge and the stream is not resumed, though its priming event
// had an id. ReconnectAfterOversize resumes it with Last-Event-ID.
func TestOversizeEventFailsTheCallAndIsNotResumed(t *testing.T) {
	const limit = 1000
	for _, tc := range []struct {
		m    mutant.Name
		size int
	}{
		{"", limit},
		{"", limit + 1},
		{mutant.ReconnectAfterOversize, limit + 1},
	} {
		t.Run(caseName(tc.m)+" "+map[bool]string{true: "at the limit", false: "over it"}[tc.size == limit], func(t *testing.T) {
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				switch q.rpc() {
				case "tools/call":
					sse := rigSSE(w)
					sse.event("p0", 0, nil)
					sse.raw(resultOfSize(t, 10, tc.size))
					<-q.ctx.Done()
					return true
				case http.MethodGet:
					rigSSE(w).event("p1", 0, rigAnswer(rpcRequest(t, 10, "tools/call", nil)))
					return true
				}
				return false
			})
			c := dialRig(t, s, func(cfg *Config) { cfg.MaxSSEEventSize, cfg.Mutant = limit, tc.m })
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
			switch {
			case tc.size == limit:
				wantResponse(t, c, jsonrpc.IntID(10))
			case tc.m == "":
				err := wantFailure(t, c, jsonrpc.IntID(10), failure.ErrProtocol, sse.ErrEventTooLarge)
				if !strings.Contains(err.Error(), "not resumed") {
					t.Errorf("failure %q does not say the stream is not resumed", err)
				}
				s.want(t, "tools/call")
				s.wantNothingWithin(t, clientQuiet, "no reconnection after an oversize event")
			default:
				s.waitFor(t, http.MethodGet, 1)
				if got := s.requests(http.MethodGet)[0].Header.Get("Last-Event-ID"); got != "p0" {
					t.Fatalf("the mutant resumed with Last-Event-ID %q, want p0", got)
				}
			}
		})
	}
}

// TestResumeAfterADrop: HT-45, HT-29b: a response stream that drops after
// an event with an id is resumed with GET and Last-Event-ID, after the
// server's retry delay, and the response arrives there. NoLastEventID
// resumes without the header (and the call fails); IgnoreRetryField
// reconnects at once.
func TestResumeAfterADrop(t *testing.T) {
	const retry = clientQuiet
	for _, m := range []mutant.Name{"", mutant.NoLastEventID, mutant.IgnoreRetryField} {
		t.Run(caseName(m), func(t *testing.T) {
			dropped := make(chan time.Time, 1)
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				switch q.rpc() {
				case "tools/call":
					sse := rigSSE(w)
					sse.event("e1", retry, nil)
					sse.event("", 0, progress(1))
					dropped <- time.Now()
					return true
				case http.MethodGet:
					sse := rigSSE(w)
					if q.Header.Get("Last-Event-ID") == "e1" {
						sse.event("e2", 0, rigAnswer(rpcRequest(t, 10, "tools/call", nil)))
					}
					return true
				}
				return false
			})
			c := dialRig(t, s, func(cfg *Config) { cfg.Mutant, cfg.Retry.MaxAttempts = m, 2 })
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
			wantMessage(t, c, "notifications/progress")
			if m == mutant.NoLastEventID {
				wantFailure(t, c, jsonrpc.IntID(10), failure.ErrConnection, nil)
				if got := s.requests(http.MethodGet)[0].Header.Get("Last-Event-ID"); got != "" {
					t.Fatalf("the mutant sent Last-Event-ID %q", got)
				}
				return
			}
			wantResponse(t, c, jsonrpc.IntID(10))
			get := s.requests(http.MethodGet)[0]
			gap := get.At.Sub(<-dropped)
			if slow := gap >= retry*3/4; slow != (m == "") {
				t.Fatalf("mutant %q: reconnected %v after the drop; the retry field said %v", m, gap, retry)
			}
			if get.session() != "s1" || get.Header.Get("Accept") != "text/event-stream" {
				t.Fatalf("the resuming GET carried session %q and Accept %q", get.session(), get.Header.Get("Accept"))
			}
		})
	}
}

// TestStreamLostFailsTheCall: HT-45: a response stream that ends before the
// response with no event id fails the call at once, with no GET; one whose
// reconnections bring nothing fails after Retry.MaxAttempts of them.
func TestStreamLostFailsTheCall(t *testing.T) {
	for _, withID := range []bool{false, true} {
		t.Run(map[bool]string{false: "no event id", true: "reconnections bring nothing"}[withID], func(t *testing.T) {
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				switch q.rpc() {
				case "tools/call":
					id := ""
					if withID {
						id = "e1"
					}
					rigSSE(w).event(id, 0, progress(1))
					return true
				case http.MethodGet:
					rigSSE(w).event("", 0, nil)
					return true
				}
				return false
			})
			c := dialRig(t, s, func(cfg *Config) { cfg.Retry.MaxAttempts = 3 })
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
			wantMessage(t, c, "notifications/progress")
			err := wantFailure(t, c, jsonrpc.IntID(10), failure.ErrConnection, nil)
			want := map[bool]int{false: 0, true: 3}[withID]
			if n := len(s.requests(http.MethodGet)); n != want {
				t.Fatalf("%d GETs (failure %v); want %d", n, err, want)
			}
		})
	}
}

// TestGETStream: HT-30g, HT-34g, HT-45: after notifications/initialized the
// client GETs the server→client stream and delivers its messages; when it
// drops after an event with an id it is reopened with Last-Event-ID; a 405
// means no stream and no retry.
func TestGETStream(t *testing.T) {
	t.Run("delivered and resumed", func(t *testing.T) {
		s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
			if q.Method != http.MethodGet {
				return false
			}
			sse := rigSSE(w)
			if q.Header.Get("Last-Event-ID") == "" {
				sse.event("g1", 10*time.Millisecond, progress(1))
				return true
			}
			sse.event("g2", 0, progress(2))
			<-q.ctx.Done()
			return true
		})
		c := dialRig(t, s, func(cfg *Config) { cfg.OpenGETStream = true })
		handshake(t, c, s)
		wantMessage(t, c, "notifications/progress")
		wantMessage(t, c, "notifications/progress")
		gets := s.requests(http.MethodGet)
		if len(gets) != 2 || gets[1].Header.Get("Last-Event-ID") != "g1" || gets[0].session() != "s1" {
			t.Fatalf("%d GETs; want 2 on s1, the second with Last-Event-ID g1", len(gets))
		}
	})
	t.Run("405", func(t *testing.T) {
		s := newRig(t, nil)
		c := dialRig(t, s, func(cfg *Config) { cfg.OpenGETStream = true })
		handshake(t, c, s)
		s.want(t, http.MethodGet)
		s.wantNothingWithin(t, clientQuiet, "405 means the server offers no GET stream")
	})
}

// TestResponseBodies: HT-17 and the memory bound: a JSON body larger than
// MaxSSEEventSize fails the call; an HTTP error fails it with its status,
// quoting a short text body and never a long one, and showing a JSON body
// as JSON (on one line, clipped), not as an escaped string; a request
// answered with 202 fails at once.
func TestResponseBodies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reply  func(w http.ResponseWriter, q *seen)
		kind   error
		has    string
		hasNot string
	}{
		{"JSON over the limit", func(w http.ResponseWriter, q *seen) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":10,"result":{"pad":"` + strings.Repeat("x", 2000) + `"}}`))
		}, failure.ErrProtocol, "larger than MaxSSEEventSize", ""},
		{"short error body", func(w http.ResponseWriter, q *seen) {
			http.Error(w, "tool exploded", http.StatusInternalServerError)
		}, failure.ErrConnection, `500 Internal Server Error: "tool exploded\n"`, ""},
		{"long error body", func(w http.ResponseWriter, q *seen) {
			http.Error(w, "secret "+strings.Repeat("y", 10_000), http.StatusBadGateway)
		}, failure.ErrConnection, "502 Bad Gateway (a body of more than", "secret"},
		{"JSON error body", func(w http.ResponseWriter, q *seen) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte("{\n  \"jsonrpc\": \"2.0\",\n  \"error\": {\"code\": -32600, \"message\": \"bad \\\"x\\\"\"}\n}\n"))
		}, failure.ErrConnection, `400 Bad Request: {"jsonrpc":"2.0","error":{"code":-32600,"message":"bad \"x\""}}`, `"{\"`},
		{"long JSON error body", func(w http.ResponseWriter, q *seen) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"` + strings.Repeat("z", 1000) + `"}}`))
		}, failure.ErrConnection, `400 Bad Request: {"error":{"message":"zzz`, "not shown"},
		{"202 for a request", func(w http.ResponseWriter, q *seen) {
			w.WriteHeader(http.StatusAccepted)
		}, failure.ErrProtocol, "HT-17", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() != "tools/call" {
					return false
				}
				tc.reply(w, q)
				return true
			})
			c := dialRig(t, s, func(cfg *Config) { cfg.MaxSSEEventSize = 1000 })
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
			err := wantFailure(t, c, jsonrpc.IntID(10), tc.kind, nil)
			if !strings.Contains(err.Error(), tc.has) || (tc.hasNot != "" && strings.Contains(err.Error(), tc.hasNot)) {
				t.Fatalf("failure %q; want it to say %q and never %q", err, tc.has, tc.hasNot)
			}
			var f *failure.Error
			if !errors.As(err, &f) {
				t.Fatalf("failure %T, want a *failure.Error", err)
			}
		})
	}
}

// TestRefusedInitializedIsNotResent: a notifications/initialized the server
// refuses opens no GET stream; the session is told at once not to wait for
// one, and the notification goes out once (it is no request to retry).
func TestRefusedInitializedIsNotResent(t *testing.T) {
	s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
		if q.Method == http.MethodPost && q.msg().Method == "notifications/initialized" {
			http.Error(w, "no", http.StatusInternalServerError)
			return true
		}
		return false
	})
	c := dialRig(t, s, nil)
	handshake(t, c, s)
	select {
	case <-c.StreamReady():
	case <-time.After(clientWait):
		t.Fatal("StreamReady is still open after notifications/initialized was refused")
	}
	s.wantNothingWithin(t, 300*time.Millisecond, "a refused notifications/initialized is not sent again, and no GET stream opens")
}
