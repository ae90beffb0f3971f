package resourcefake

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// start starts an authorization server, an upstream that answers 200 "ok"
// and a Resource of o in front of it.
func start(t *testing.T, o Options) (*Resource, *authfake.AS) {
	t.Helper()
	as, err := authfake.Start(authfake.Options{Scopes: []string{"mcp:read", "mcp:tools"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(mcp.HeaderAuthorization) != "" {
			http.Error(w, "the token was passed upstream", http.StatusTeapot)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(up.Close)
	o.Upstream, o.AS = up.URL+mcp.EndpointPath, as
	r, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, as
}

func post(t *testing.T, url, token, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set(mcp.HeaderAuthorization, "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

const toolsCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`

func TestResourceChallengesChecksScopeAndPassesAuthorizedRequests(t *testing.T) {
	r, as := start(t, Options{Scope: "mcp:read", ToolsScope: "mcp:tools"})
	resp := post(t, r.URL(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
	ch := resp.Header.Get(mcp.HeaderWWWAuthenticate)
	if resp.StatusCode != 401 || !strings.Contains(ch, `scope="mcp:read"`) || !strings.Contains(ch, `resource_metadata="`+r.MetadataURL()+`"`) {
		t.Fatalf("no token: %d %q", resp.StatusCode, ch)
	}
	read := as.Issue(r.URL(), []string{"mcp:read"}, time.Hour)
	if resp := post(t, r.URL(), read, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`); resp.StatusCode != 200 {
		t.Errorf("a token with mcp:read: %d, want 200 from upstream (which refuses a token passed on)", resp.StatusCode)
	}
	resp = post(t, r.URL(), read, toolsCall)
	if ch := resp.Header.Get(mcp.HeaderWWWAuthenticate); resp.StatusCode != 403 || !strings.Contains(ch, `error="insufficient_scope"`) || !strings.Contains(ch, "mcp:tools") {
		t.Errorf("tools/call without mcp:tools: %d %q", resp.StatusCode, ch)
	}
	if resp := post(t, r.URL(), as.Issue("https://elsewhere.invalid/mcp", []string{"mcp:read"}, time.Hour), "{}"); resp.StatusCode != 401 {
		t.Errorf("a token for another resource: %d, want 401", resp.StatusCode)
	}
	recs := r.Requests()
	if len(recs) != 4 || recs[0].Kind != KindMCP || recs[0].Methods[0] != "initialize" || recs[1].Token != read || recs[2].Status != 403 {
		t.Errorf("records: %+v", recs)
	}
}

func TestResourceServesMetadataWhereTold(t *testing.T) {
	for _, tc := range []struct {
		place, at, not string
		named          bool
	}{
		{MetadataHeaderOnly, PathMetadata, mcp.WellKnownPRM + mcp.EndpointPath, true},
		{MetadataPathSuffixed, mcp.WellKnownPRM + mcp.EndpointPath, mcp.WellKnownPRM, false},
		{MetadataRoot, mcp.WellKnownPRM, mcp.WellKnownPRM + mcp.EndpointPath, false},
	} {
		r, as := start(t, Options{Metadata: tc.place, WrongResource: tc.place == MetadataRoot})
		origin := strings.TrimSuffix(r.URL(), mcp.EndpointPath)
		resp, err := http.Get(origin + tc.at)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		wantResource := r.URL()
		if tc.place == MetadataRoot {
			wantResource = OtherResource
		}
		if resp.StatusCode != 200 || doc.Resource != wantResource || len(doc.AuthorizationServers) != 1 || doc.AuthorizationServers[0] != as.URL() {
			t.Errorf("%s: GET %s: %d %+v", tc.place, tc.at, resp.StatusCode, doc)
		}
		if resp, _ := http.Get(origin + tc.not); resp.StatusCode != 404 {
			t.Errorf("%s: GET %s: %d, want 404", tc.place, tc.not, resp.StatusCode)
		}
		ch := post(t, r.URL(), "", "{}").Header.Get(mcp.HeaderWWWAuthenticate)
		if strings.Contains(ch, "resource_metadata") != tc.named {
			t.Errorf("%s: challenge %q, resource_metadata named: want %v", tc.place, ch, tc.named)
		}
	}
}

func TestResourceEndlessStepUpAndMigration(t *testing.T) {
	r, as := start(t, Options{ToolsScope: "mcp:tools", EndlessStepUp: true, StepUpCeiling: 2})
	tok := as.Issue(r.URL(), []string{"mcp:tools"}, time.Hour)
	for i, want := range []int{403, 403, 403} {
		resp := post(t, r.URL(), tok, toolsCall)
		insufficient := strings.Contains(resp.Header.Get(mcp.HeaderWWWAuthenticate), "insufficient_scope")
		if resp.StatusCode != want || insufficient != (i < 2) {
			t.Errorf("tools/call %d: %d, insufficient_scope %v", i, resp.StatusCode, insufficient)
		}
	}

	next, err := authfake.Start(authfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	as2, _ := authfake.Start(authfake.Options{})
	defer as2.Close()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer up.Close()
	m, err := Start(Options{Upstream: up.URL + mcp.EndpointPath, AS: as2, Next: next})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	first := as2.Issue(m.URL(), nil, time.Hour)
	if resp := post(t, m.URL(), first, "{}"); resp.StatusCode != 200 || !m.Migrated() {
		t.Fatalf("the first server's token: %d, migrated %v", resp.StatusCode, m.Migrated())
	}
	if resp := post(t, m.URL(), first, "{}"); resp.StatusCode != 401 {
		t.Errorf("the first server's token after the migration: %d, want 401", resp.StatusCode)
	}
	if resp := post(t, m.URL(), next.Issue(m.URL(), nil, time.Hour), "{}"); resp.StatusCode != 200 {
		t.Errorf("the second server's token: %d, want 200", resp.StatusCode)
	}
}

func TestStartRefusesBadOptions(t *testing.T) {
	if _, err := Start(Options{Upstream: "ftp://x"}); err == nil || !strings.Contains(err.Error(), "ftp://x") {
		t.Errorf("bad upstream: %v", err)
	}
	as, _ := authfake.Start(authfake.Options{})
	defer as.Close()
	if _, err := Start(Options{Upstream: "http://127.0.0.1:1/mcp", AS: as, Metadata: "nowhere"}); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("bad metadata place: %v", err)
	}
}
