package httpfake

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// replyDeadline bounds every wait of the HTTP tests (real time: the fakes
// listen on real sockets).
const replyDeadline = 3 * time.Second

// startFake starts o's fake and closes it when the test ends.
func startFake(t *testing.T, o Options) *Fake {
	t.Helper()
	f, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// client talks to an HTTP fake as an MCP client would; it follows no
// redirects.
type client struct {
	t       *testing.T
	f       *Fake
	url     string
	hc      *http.Client
	session string // sent on every request when set
	opened  *[]*http.Response
}

func newClient(t *testing.T, f *Fake) *client {
	tr := &http.Transport{}
	c := &client{
		t:      t,
		f:      f,
		url:    f.URL(),
		opened: new([]*http.Response),
		hc: &http.Client{
			Transport:     tr,
			Timeout:       replyDeadline,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	t.Cleanup(c.closeAll)
	return c
}

// closeAll closes the bodies of every response send returned and the idle
// connections.
func (c *client) closeAll() {
	for _, resp := range *c.opened {
		resp.Body.Close()
	}
	*c.opened = nil
	c.hc.Transport.(*http.Transport).CloseIdleConnections()
}

// do sends one request with the client's session and the given headers
// ("Name: value"); ctx may cut it short.
func (c *client) do(ctx context.Context, method, body string, headers ...string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if c.session != "" {
		req.Header.Set(mcp.HeaderSessionID, c.session)
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	return c.hc.Do(req)
}

// send is do that must succeed at the HTTP level.
func (c *client) send(method, body string, headers ...string) *http.Response {
	c.t.Helper()
	resp, err := c.do(c.t.Context(), method, body, headers...)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, c.url, err)
	}
	*c.opened = append(*c.opened, resp)
	return resp
}

// post sends one message.
func (c *client) post(m *jsonrpc.Message, headers ...string) *http.Response {
	c.t.Helper()
	return c.send(http.MethodPost, string(fakeservers.Encode(m)), headers...)
}

// request builds a request message.
func testRequest(t *testing.T, id jsonrpc.ID, method string, params any) *jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// callMessage is tools/call for name with arguments {}.
func callMessage(t *testing.T, id jsonrpc.ID, name string) *jsonrpc.Message {
	return testRequest(t, id, methodToolsCall, map[string]any{"name": name, "arguments": map[string]any{}})
}

// initializeMessage proposes version.
func initializeMessage(t *testing.T, id jsonrpc.ID, version string) *jsonrpc.Message {
	return testRequest(t, id, methodInitialize, map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"},
	})
}

// initialize does the handshake without a session header and keeps the
// session id the fake hands out.
func (c *client) initialize() {
	c.t.Helper()
	c.session = ""
	resp := c.post(initializeMessage(c.t, jsonrpc.IntID(0), "2025-11-25"))
	wantStatus(c.t, resp, http.StatusOK)
	readJSONMessage(c.t, resp)
	c.session = resp.Header.Get(mcp.HeaderSessionID)
	if c.session == "" && !c.f.b.stateless {
		c.t.Fatal("initialize answered without " + mcp.HeaderSessionID)
	}
	n, err := jsonrpc.NewNotification("notifications/initialized", nil)
	if err != nil {
		c.t.Fatal(err)
	}
	wantStatus(c.t, c.post(n), http.StatusAccepted)
}

// call sends tools/call for name and returns the response.
func (c *client) call(id int64, name string) *http.Response {
	c.t.Helper()
	return c.post(callMessage(c.t, jsonrpc.IntID(id), name))
}

// wantCallOK checks that resp answers call id with "ok <name>" as JSON.
func (c *client) wantCallOK(resp *http.Response, id int64, name string) {
	c.t.Helper()
	wantStatus(c.t, resp, http.StatusOK)
	wantCallText(c.t, readJSONMessage(c.t, resp), jsonrpc.IntID(id), "ok "+name)
}

func wantStatus(t *testing.T, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		t.Fatalf("%s %s: status %d (%s); want %d", resp.Request.Method, resp.Request.URL, resp.StatusCode, bytes.TrimSpace(body), want)
	}
}

// readJSONMessage reads an application/json body holding one message.
func readJSONMessage(t *testing.T, resp *http.Response) *jsonrpc.Message {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q; want application/json", ct)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	m, err := jsonrpc.Decode(body)
	if err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return m
}

// wantCallText checks that m is a tools/call result for id with text.
func wantCallText(t *testing.T, m *jsonrpc.Message, id jsonrpc.ID, text string) {
	t.Helper()
	if m.Kind() != jsonrpc.KindResult || m.ID.Key() != id.Key() {
		t.Fatalf("got %s id %s (error %v); want a result for id %s", m.Kind(), m.ID, m.Error, id)
	}
	var res fakeservers.CallResult
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != text {
		t.Fatalf("result %s; want one text content %q", m.Result, text)
	}
}

// wantRecords waits until the fake's record satisfies ok, and returns it.
func wantRecords(t *testing.T, f *Fake, what string, ok func([]Request) bool) []Request {
	t.Helper()
	deadline := time.NewTimer(replyDeadline)
	defer deadline.Stop()
	for {
		changed := f.changed()
		if recs := f.Requests(); ok(recs) {
			return recs
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("the record never showed %s within %s; it holds %d requests", what, replyDeadline, len(f.Requests()))
		}
	}
}

// inProgress counts the recorded requests not finished yet whose first
// message is method.
func inProgress(recs []Request, method string) int {
	n := 0
	for _, r := range recs {
		if r.End.IsZero() && len(r.Messages) > 0 && r.Messages[0].Method == method {
			n++
		}
	}
	return n
}

// recordsOf returns the records whose first message is method.
func recordsOf(recs []Request, method string) []Request {
	var out []Request
	for _, r := range recs {
		if len(r.Messages) > 0 && r.Messages[0].Method == method {
			out = append(out, r)
		}
	}
	return out
}
