package httpclient

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// modernServer is a 2026-07-28 HTTP server for the client's modern path: it
// answers server/discover (the first one with 400 and -32022 when reject is
// set), lists a tool with x-mcp-header parameters and one whose annotation
// is invalid, and records each POST's headers by method.
type modernServer struct {
	reject bool

	mu       sync.Mutex
	headers  map[string][]http.Header
	methods  []string // every HTTP method, in order
	discover int
}

var modernTools = []map[string]any{
	{"name": "héllo", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
		"region":  map[string]any{"type": "string", "x-mcp-header": "Region"},
		"city":    map[string]any{"type": "string", "x-mcp-header": "City"},
		"count":   map[string]any{"type": "integer", "x-mcp-header": "Count"},
		"verbose": map[string]any{"type": "boolean", "x-mcp-header": "Verbose"},
		"query":   map[string]any{"type": "string"},
	}}},
	{"name": "bad", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
		"data": map[string]any{"type": "object", "x-mcp-header": "Data"},
	}}},
}

func (m *modernServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.methods = append(m.methods, r.Method)
	m.mu.Unlock()
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req, err := jsonrpc.Decode(body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.headers[req.Method] = append(m.headers[req.Method], r.Header.Clone())
	m.discover += map[bool]int{true: 1}[req.Method == mcp.MethodDiscover]
	first := m.discover == 1
	m.mu.Unlock()
	var reply *jsonrpc.Message
	switch req.Method {
	case mcp.MethodDiscover:
		if m.reject && first {
			e := mcp.UnsupportedVersion(mcp.ModernVersion, mcp.ModernProtocolVersions)
			reply = &jsonrpc.Message{ID: req.ID, Error: e}
			w.Header().Set("Content-Type", mcp.ContentTypeJSON)
			w.WriteHeader(http.StatusBadRequest)
			b, _ := jsonrpc.Encode(reply)
			_, _ = w.Write(b)
			return
		}
		reply, _ = jsonrpc.NewResult(req.ID, map[string]any{"resultType": "complete", "supportedVersions": mcp.ModernProtocolVersions, "capabilities": map[string]any{"tools": map[string]any{}}})
	case "tools/list":
		reply, _ = jsonrpc.NewResult(req.ID, map[string]any{"resultType": "complete", "tools": modernTools})
	default:
		reply, _ = jsonrpc.NewResult(req.ID, map[string]any{"resultType": "complete", "content": []any{}})
	}
	w.Header().Set("Content-Type", mcp.ContentTypeJSON)
	b, _ := jsonrpc.Encode(reply)
	_, _ = w.Write(b)
}

func (m *modernServer) last(method string) http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	hs := m.headers[method]
	if len(hs) == 0 {
		return nil
	}
	return hs[len(hs)-1]
}

// modernSession connects a client of mutant mu to a modern server.
func modernSession(t *testing.T, srv *modernServer, mu mutant.Name) *mcpclient.Session {
	t.Helper()
	srv.headers = map[string][]http.Header{}
	sess, err := connectModern(t, srv, mu)
	if err != nil {
		t.Fatalf("mutant %q: Connect: %v", mu, err)
	}
	if sess.Era() != mcpclient.EraModern {
		t.Fatalf("era %q, want modern", sess.Era())
	}
	return sess
}

// TestModernHeadersMirrorTheBody: in the 2026-07-28 era every POST carries
// MCP-Protocol-Version equal to its _meta version (HT-73) and Mcp-Method,
// a tools/call Mcp-Name (encoded where not header-safe, HT-77, HT-78) and
// its x-mcp-header parameters as Mcp-Param-* (none for an absent or null
// value, HT-79); a tool with an invalid annotation is left out (HT-80); no
// GET stream and no DELETE (no session). Mutants ModernHeaderMismatch,
// ModernParamHeaderRaw and InvalidHeaderToolKept each break one of these.
func TestModernHeadersMirrorTheBody(t *testing.T) {
	for _, mu := range []mutant.Name{"", mutant.ModernHeaderMismatch, mutant.ModernParamHeaderRaw, mutant.InvalidHeaderToolKept} {
		srv := &modernServer{}
		sess := modernSession(t, srv, mu)
		tools, err := sess.ListTools(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if kept := len(tools) == 2; kept != (mu == mutant.InvalidHeaderToolKept) {
			t.Errorf("mutant %q: %d tools listed", mu, len(tools))
		}
		args := map[string]any{"region": "us-west1", "city": "Zürich", "count": 42, "verbose": nil, "query": "q"}
		if _, err := sess.CallTool(context.Background(), "héllo", args); err != nil {
			t.Fatal(err)
		}
		_ = sess.Close()
		h := srv.last("tools/call")
		want := map[string]string{
			mcp.HeaderProtocolVersion: mcp.ModernVersion, mcp.HeaderMethod: "tools/call",
			mcp.HeaderName: mcp.EncodeHeaderValue("héllo"), "Mcp-Param-Region": "us-west1",
			"Mcp-Param-City": mcp.EncodeHeaderValue("Zürich"), "Mcp-Param-Count": "42",
		}
		broken := false
		for k, v := range want {
			if h.Get(k) != v {
				broken = true
				if mu == "" {
					t.Errorf("%s: %q, want %q", k, h.Get(k), v)
				}
			}
		}
		if h.Values("Mcp-Param-Verbose") != nil || h.Values("Mcp-Param-Query") != nil {
			t.Errorf("mutant %q: a header for a null or unannotated parameter: %v", mu, h)
		}
		if mu != "" && mu != mutant.InvalidHeaderToolKept && !broken {
			t.Errorf("mutant %q: the headers mirror the body: %v", mu, h)
		}
		if d := srv.last(mcp.MethodDiscover); d.Get(mcp.HeaderMethod) != mcp.MethodDiscover || d.Get(mcp.HeaderProtocolVersion) != mcp.ModernVersion {
			t.Errorf("server/discover headers %v", d)
		}
		for _, m := range srv.methods {
			if m != http.MethodPost {
				t.Errorf("mutant %q: an HTTP %s in the 2026-07-28 era (no session, no GET stream)", mu, m)
			}
		}
	}
}

// TestModernErrorBodyIsTheAnswer: a 400 whose body is a JSON-RPC error is
// the request's answer (HT-92): a -32022 naming the version the client
// speaks makes it probe once more (LC-43), and it stays modern.
func TestModernErrorBodyIsTheAnswer(t *testing.T) {
	srv := &modernServer{reject: true}
	modernSession(t, srv, "")
	if srv.discover != 2 {
		t.Fatalf("%d server/discover requests, want 2 (the retry after -32022)", srv.discover)
	}
}
