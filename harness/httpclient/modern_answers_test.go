package httpclient

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// answerServer is modernServer with the POSTs that answer answers itself
// (true when it did).
type answerServer struct {
	modernServer
	answer func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Message) bool
}

func (a *answerServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if req, err := jsonrpc.Decode(body); err == nil && a.answer(w, r, req) {
			return
		}
	}
	a.modernServer.ServeHTTP(w, r)
}

// count is how many requests of HTTP method the server saw.
func (a *answerServer) count(method string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, m := range a.methods {
		if m == method {
			n++
		}
	}
	return n
}

// connectModern connects a client of mutant mu to h, a 2026-07-28 server.
func connectModern(t *testing.T, h http.Handler, mu mutant.Name) (*mcpclient.Session, error) {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	cfg := DefaultConfig(ts.URL)
	cfg.Mutant = mu
	c, err := Dial(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := mcpclient.Connect(context.Background(), c, mcpclient.Options{CallTimeout: clientWait, Mutant: mu})
	if err == nil {
		t.Cleanup(func() { _ = sess.Close() })
	}
	return sess, err
}

// writeReply answers req's POST with reply as JSON, with status.
func writeReply(w http.ResponseWriter, status int, reply *jsonrpc.Message) {
	b, _ := jsonrpc.Encode(reply)
	w.Header().Set("Content-Type", mcp.ContentTypeJSON)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// TestModernBrokenStreamIsNotResumed: a 2026-07-28 tools/call whose SSE
// stream breaks after an event with an id and a retry field fails, and is
// never resumed with GET (HT-47); mutant ModernStreamResumed resumes it.
func TestModernBrokenStreamIsNotResumed(t *testing.T) {
	for _, mu := range []mutant.Name{"", mutant.ModernStreamResumed} {
		srv := &answerServer{answer: func(w http.ResponseWriter, _ *http.Request, req *jsonrpc.Message) bool {
			if req.Method != "tools/call" {
				return false
			}
			w.Header().Set("Content-Type", mcp.ContentTypeSSE)
			_, _ = io.WriteString(w, "id: e1\nretry: 10\ndata:\n\n")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}}
		srv.headers = map[string][]http.Header{}
		sess, err := connectModern(t, srv, mu)
		if err != nil {
			t.Fatalf("mutant %q: Connect: %v", mu, err)
		}
		_, err = sess.CallTool(context.Background(), "héllo", nil)
		if err == nil {
			t.Fatalf("mutant %q: the call whose stream broke succeeded", mu)
		}
		if resumed := srv.count(http.MethodGet) > 0; resumed != (mu == mutant.ModernStreamResumed) {
			t.Errorf("mutant %q: %d GETs (%v)", mu, srv.count(http.MethodGet), err)
		}
		if mu == "" && !strings.Contains(err.Error(), "HT-47") {
			t.Errorf("the call failed with %v, which does not name HT-47", err)
		}
	}
}

// upperCaseHeaders writes every header name of an answer in upper case
// (CONTENT-TYPE), keeping the canonical Content-Type key empty so that
// net/http neither sniffs a type nor writes one.
type upperCaseHeaders struct {
	http.ResponseWriter
	wrote bool
}

func (u *upperCaseHeaders) WriteHeader(code int) {
	if !u.wrote {
		u.wrote = true
		h := u.Header()
		for k, v := range h {
			delete(h, k)
			h[strings.ToUpper(k)] = v
		}
		h["Content-Type"] = nil
	}
	u.ResponseWriter.WriteHeader(code)
}

func (u *upperCaseHeaders) Write(b []byte) (int, error) {
	u.WriteHeader(http.StatusOK)
	return u.ResponseWriter.Write(b)
}

// TestHeaderNamesInAnyCase: answers whose header names are in upper case
// are read as any other (HT-83); mutant HeaderNameCaseSensitive misses
// their Content-Type.
func TestHeaderNamesInAnyCase(t *testing.T) {
	for _, mu := range []mutant.Name{"", mutant.HeaderNameCaseSensitive} {
		srv := &modernServer{headers: map[string][]http.Header{}}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { srv.ServeHTTP(&upperCaseHeaders{ResponseWriter: w}, r) })
		sess, err := connectModern(t, h, mu)
		if mu == mutant.HeaderNameCaseSensitive {
			if err == nil {
				t.Errorf("mutant %q: connected through answers whose Content-Type it cannot see", mu)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Connect through answers with upper-case header names: %v", err)
		}
		if _, err := sess.ListTools(context.Background()); err != nil {
			t.Fatalf("tools/list through an answer with upper-case header names: %v", err)
		}
	}
}

// TestParamHeaderMismatchRelists: a tools/call answered -32020 because the
// tool's x-mcp-header annotation changed is retried, after a fresh
// tools/list, with the header that list gives (HT-82); mutant
// ParamMismatchNotRelisted fails the call.
func TestParamHeaderMismatchRelists(t *testing.T) {
	for _, mu := range []mutant.Name{"", mutant.ParamMismatchNotRelisted} {
		lists := 0
		srv := &answerServer{answer: func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Message) bool {
			switch req.Method {
			case "tools/list":
				lists++
				header := map[bool]string{true: "Region", false: "Zone"}[lists == 1]
				tool := map[string]any{"name": "route", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					"region": map[string]any{"type": "string", "x-mcp-header": header}}}}
				reply, _ := jsonrpc.NewResult(req.ID, map[string]any{"resultType": "complete", "tools": []any{tool}})
				writeReply(w, http.StatusOK, reply)
			case "tools/call":
				if r.Header.Get("Mcp-Param-Zone") != "eu" {
					writeReply(w, http.StatusBadRequest, jsonrpc.NewError(req.ID, jsonrpc.CodeHeaderMismatch, "Mcp-Param-Zone is missing"))
					return true
				}
				reply, _ := jsonrpc.NewResult(req.ID, map[string]any{"resultType": "complete", "content": []any{}})
				writeReply(w, http.StatusOK, reply)
			default:
				return false
			}
			return true
		}}
		srv.headers = map[string][]http.Header{}
		sess, err := connectModern(t, srv, mu)
		if err != nil {
			t.Fatalf("mutant %q: Connect: %v", mu, err)
		}
		if _, err := sess.ListTools(context.Background()); err != nil {
			t.Fatal(err)
		}
		_, err = sess.CallTool(context.Background(), "route", map[string]any{"region": "eu"})
		if ok := err == nil && lists == 2; ok != (mu == "") {
			t.Errorf("mutant %q: the call ended %v after %d tools/list", mu, err, lists)
		}
	}
}
