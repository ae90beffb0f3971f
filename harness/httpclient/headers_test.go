package httpclient

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// withCredentials is an edit that sets a token and a custom header.
func withCredentials(m mutant.Name) func(*Config) {
	return func(cfg *Config) {
		cfg.Mutant, cfg.AuthHeader, cfg.CustomHeaders = m, "tok-123", map[string]string{"X-Probe": "probe-value"}
	}
}

// TestHeadersOnEveryRequest: HT-11 (POST Accept lists both types), HT-30g
// (GET accepts SSE), HT-54 (the session id on every request after
// initialize), HT-70 (MCP-Protocol-Version after the initialize result),
// RM-11 and RM-12 (the bearer token and custom headers on POST, GET and
// DELETE). Each mutant breaks one of them.
func TestHeadersOnEveryRequest(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.AcceptJSONOnly, mutant.GETAcceptJSON, mutant.NoProtocolVersionHeader, mutant.NoAuthOnGetDelete, mutant.SessionIDOnlyOnPOST} {
		t.Run(caseName(m), func(t *testing.T) {
			s := newRig(t, nil)
			c := dialRig(t, s, func(cfg *Config) {
				withCredentials(m)(cfg)
				cfg.OpenGETStream = true
			})
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "ping", nil))
			wantResponse(t, c, jsonrpc.IntID(10))
			s.waitFor(t, http.MethodGet, 1)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			var problems []string
			bad := func(q *seen, what string) { problems = append(problems, q.Method+" "+q.rpc()+": "+what) }
			reqs := s.requests("")
			if len(reqs) != 5 {
				t.Fatalf("%d requests, want initialize, notifications/initialized, GET, ping, DELETE", len(reqs))
			}
			for i, q := range reqs {
				h := q.Header
				switch q.Method {
				case http.MethodPost:
					if a := h.Get("Accept"); !strings.Contains(a, "application/json") || !strings.Contains(a, "text/event-stream") {
						bad(q, "Accept "+a)
					}
					if h.Get("Content-Type") != "application/json" {
						bad(q, "Content-Type "+h.Get("Content-Type"))
					}
				case http.MethodGet:
					if h.Get("Accept") != "text/event-stream" {
						bad(q, "Accept "+h.Get("Accept"))
					}
				}
				wantSession, wantVersion := "s1", "2025-11-25"
				if i == 0 {
					wantSession, wantVersion = "", ""
				}
				if q.session() != wantSession {
					bad(q, "Mcp-Session-Id "+q.session())
				}
				if h.Get("MCP-Protocol-Version") != wantVersion {
					bad(q, "MCP-Protocol-Version "+h.Get("MCP-Protocol-Version"))
				}
				if h.Get("Authorization") != "Bearer tok-123" {
					bad(q, "Authorization "+h.Get("Authorization"))
				}
				if h.Get("X-Probe") != "probe-value" {
					bad(q, "X-Probe "+h.Get("X-Probe"))
				}
			}
			if (len(problems) > 0) != (m != "") {
				t.Fatalf("mutant %q: problems %q", m, problems)
			}
		})
	}
}

// TestCustomHeadersNeverReplaceTheTransports: RM-12: the reference refuses
// custom Accept and Mcp-Session-Id at Dial; CustomOverridesReserved takes
// them and sends them in place of its own.
func TestCustomHeadersNeverReplaceTheTransports(t *testing.T) {
	s := newRig(t, nil)
	cfg := clientTestConfig(s.URL)
	cfg.CustomHeaders = map[string]string{"Accept": "text/plain", "mcp-session-id": "forged"}
	if _, err := Dial(cfg); err == nil || !strings.Contains(err.Error(), "Accept") || !strings.Contains(err.Error(), "mcp-session-id") {
		t.Fatalf("Dial = %v; want both headers refused", err)
	}
	cfg.Mutant = mutant.CustomOverridesReserved
	c, err := Dial(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	clientSend(t, c, initRequest(t))
	if q := s.want(t, "initialize"); q.Header.Get("Accept") != "text/plain" || q.session() != "forged" {
		t.Fatalf("the mutant sent Accept %q and session %q", q.Header.Get("Accept"), q.session())
	}
}

// TestRedirects: RM-12, RM-11, HT-53: a same-origin redirect keeps every
// header; after a redirect to another origin neither the custom headers,
// Authorization nor the session id are sent. HeadersCrossOrigin sends the
// custom headers and the token there.
func TestRedirects(t *testing.T) {
	t.Run("same origin", func(t *testing.T) {
		s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
			if q.Path == "/start" {
				w.Header().Set("Location", "/mcp")
				w.WriteHeader(http.StatusTemporaryRedirect)
				return true
			}
			return false
		})
		c := dialRig(t, s, func(cfg *Config) {
			withCredentials("")(cfg)
			cfg.URL = s.URL + "/start"
		})
		clientSend(t, c, initRequest(t))
		wantResponse(t, c, jsonrpc.IntID(1))
		clientSend(t, c, rpcRequest(t, 10, "ping", nil))
		wantResponse(t, c, jsonrpc.IntID(10))
		if n := len(s.requests("ping")); n != 2 {
			t.Fatalf("ping seen %d times, want twice: at /start and at /mcp", n)
		}
		for _, q := range s.requests("") {
			if q.Path == "/mcp" && (q.Header.Get("Authorization") == "" || q.Header.Get("X-Probe") == "" || q.rpc() == "ping" && q.session() != "s1") {
				t.Fatalf("%s %s at /mcp lost headers: %v", q.Method, q.rpc(), q.Header)
			}
		}
	})
	for _, m := range []mutant.Name{"", mutant.HeadersCrossOrigin} {
		t.Run("other origin "+caseName(m), func(t *testing.T) {
			target := newRig(t, nil)
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL+"/mcp", http.StatusTemporaryRedirect)
			}))
			defer front.Close()
			c := dialRig(t, target, func(cfg *Config) {
				withCredentials(m)(cfg)
				cfg.URL = front.URL
			})
			clientSend(t, c, initRequest(t))
			wantResponse(t, c, jsonrpc.IntID(1))
			clientSend(t, c, rpcRequest(t, 10, "ping", nil))
			wantFailure(t, c, jsonrpc.IntID(10), failure.ErrConnection, nil)
			leaked := false
			for _, q := range target.requests("") {
				if q.session() != "" {
					t.Fatalf("%s %s carried the session id to the other origin", q.Method, q.rpc())
				}
				leaked = leaked || q.Header.Get("Authorization") != "" || q.Header.Get("X-Probe") != ""
			}
			if leaked != (m != "") {
				t.Fatalf("mutant %q: credentials at the other origin: %v", m, leaked)
			}
		})
	}
}

// TestStatelessServer: RM-10: an initialize reply without Mcp-Session-Id
// is accepted with AllowStateless (later requests carry none, Close sends
// no DELETE) and fails initialize otherwise; StatelessIgnored accepts it
// anyway.
func TestStatelessServer(t *testing.T) {
	stateless := func(w http.ResponseWriter, q *seen) bool {
		switch m := q.msg(); {
		case q.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case m.Method == "initialize":
			rigJSON(w, initResultFor(m))
		case m.Kind() == jsonrpc.KindRequest:
			rigJSON(w, rigAnswer(m))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
		return true
	}
	for _, tc := range []struct {
		allow bool
		m     mutant.Name
	}{{true, ""}, {false, ""}, {false, mutant.StatelessIgnored}} {
		t.Run(caseName(tc.m)+map[bool]string{true: " allowed", false: " refused"}[tc.allow], func(t *testing.T) {
			s := newRig(t, stateless)
			c := dialRig(t, s, func(cfg *Config) { cfg.AllowStateless, cfg.Mutant = tc.allow, tc.m })
			clientSend(t, c, initRequest(t))
			if !tc.allow && tc.m == "" {
				wantFailure(t, c, jsonrpc.IntID(1), failure.ErrProtocol, ErrNoSessionID)
				return
			}
			wantResponse(t, c, jsonrpc.IntID(1))
			clientSend(t, c, rpcRequest(t, 10, "ping", nil))
			wantResponse(t, c, jsonrpc.IntID(10))
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			for _, q := range s.requests("") {
				if q.session() != "" || q.Method == http.MethodDelete {
					t.Fatalf("%s %s carried session %q", q.Method, q.rpc(), q.session())
				}
			}
		})
	}
}

// TestOneMessagePerPOST: HT-10, HT-13: messages queued behind a full slot
// still go one per POST; BatchPOSTs merges them into one array.
func TestOneMessagePerPOST(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.BatchPOSTs} {
		t.Run(caseName(m), func(t *testing.T) {
			release := make(chan struct{})
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() == "tools/call" {
					holdUntil(q, release)
				}
				if len(q.Msgs) > 1 {
					http.Error(w, "batches are not accepted", http.StatusBadRequest)
					return true
				}
				return false
			})
			c := dialRig(t, s, func(cfg *Config) { cfg.MaxConcurrentRequests, cfg.Mutant = 1, m })
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
			s.want(t, "tools/call")
			for id := range int64(3) {
				clientSend(t, c, rpcRequest(t, 11+id, "ping", nil))
			}
			close(release)
			outcomes(t, c, 4)
			batched := 0
			for _, q := range s.requests("") {
				if body := strings.TrimSpace(string(q.Body)); q.Method == http.MethodPost && !strings.HasPrefix(body, "{") {
					batched++
				}
			}
			if (batched > 0) != (m != "") {
				t.Fatalf("mutant %q: %d batched POST bodies", m, batched)
			}
		})
	}
}

// TestStatelessRefusalOverSSE: RM-10 with AllowStateless off when the
// initialize result comes on an SSE stream with an event id: one failure,
// and the stream is not resumed.
func TestStatelessRefusalOverSSE(t *testing.T) {
	s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
		if q.rpc() != "initialize" {
			return false
		}
		rigSSE(w).event("i1", 0, initResultFor(q.msg()))
		return true
	})
	c := dialRig(t, s, func(cfg *Config) { cfg.AllowStateless = false })
	clientSend(t, c, initRequest(t))
	wantFailure(t, c, jsonrpc.IntID(1), failure.ErrProtocol, ErrNoSessionID)
	clientSend(t, c, rpcRequest(t, 10, "ping", nil))
	wantFailure(t, c, jsonrpc.IntID(10), failure.ErrConnection, nil) // the next outcome is the ping's: no second one for initialize
	if n := len(s.requests(http.MethodGet)); n != 0 {
		t.Fatalf("%d GETs after the refused initialize", n)
	}
}
