package httpfake

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

func TestHeadersCase(t *testing.T) {
	f := startFake(t, Options{Case: "headers"})
	c := newClient(t, f)
	auth := []string{"Authorization: Bearer tok", "X-Custom: v"}
	resp := c.post(initializeMessage(t, jsonrpc.IntID(1), "2025-11-25"), auth...)
	wantStatus(t, resp, http.StatusOK)
	c.session = resp.Header.Get(mcp.HeaderSessionID)
	c.wantCallOK(c.post(callMessage(t, jsonrpc.IntID(2), "echo"), auth...), 2, "echo")

	get := c.send(http.MethodGet, "", append(auth, "Accept: text/event-stream")...)
	wantStatus(t, get, http.StatusOK)
	if line, err := bufio.NewReader(get.Body).ReadString('\n'); err != nil || line != ": keep-alive\n" {
		t.Fatalf("GET stream began %q (%v); want a keep-alive comment", line, err)
	}
	if r := f.Requests()[2]; r.Method != http.MethodGet || !r.End.IsZero() {
		t.Fatalf("record %+v; want the GET stream held", r)
	}
	get.Body.Close()
	recs := wantRecords(t, f, "the GET stream closed", func(recs []Request) bool { return !recs[2].End.IsZero() })
	if !recs[2].Aborted {
		t.Errorf("GET record %+v; want Aborted (the client closed it)", recs[2])
	}
	wantStatus(t, c.send(http.MethodDelete, "", auth...), http.StatusOK)

	recs = f.Requests()
	for _, r := range recs {
		if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("X-Custom") != "v" {
			t.Errorf("%s record headers %v; want Authorization and X-Custom", r.Method, r.Header)
		}
	}
	if methods := []string{recs[0].Method, recs[1].Method, recs[2].Method, recs[3].Method}; strings.Join(methods, " ") != "POST POST GET DELETE" {
		t.Errorf("methods %v; want POST POST GET DELETE", methods)
	}
}

func TestRedirect(t *testing.T) {
	f := startFake(t, Options{Case: "redirect"})
	if f.SecondURL() == "" || f.SecondURL() == f.URL() {
		t.Fatalf("SecondURL %q; want another port than %s", f.SecondURL(), f.URL())
	}
	c := newClient(t, f)
	resp := c.post(initializeMessage(t, jsonrpc.IntID(1), "2025-11-25"), "X-Custom: v")
	wantStatus(t, resp, http.StatusTemporaryRedirect)
	if loc := resp.Header.Get("Location"); loc != f.SecondURL() {
		t.Fatalf("Location %q; want %s", loc, f.SecondURL())
	}

	// A client that follows the redirect is served by the second listener.
	c.hc.CheckRedirect = nil
	c.initialize()
	c.wantCallOK(c.call(2, "echo"), 2, "echo")
	wantStatus(t, c.send(http.MethodGet, ""), http.StatusMethodNotAllowed)

	first := strings.TrimSuffix(strings.TrimPrefix(f.URL(), "http://"), mcp.EndpointPath)
	second := strings.TrimSuffix(strings.TrimPrefix(f.SecondURL(), "http://"), mcp.EndpointPath)
	var hosts []string
	for _, r := range f.Requests() {
		switch r.Host {
		case first:
			hosts = append(hosts, "1")
		case second:
			hosts = append(hosts, "2")
		default:
			t.Errorf("record host %q; want %s or %s", r.Host, first, second)
		}
	}
	// initialize 307; initialize, initialized, call: 307 then served; GET on the first.
	if got := strings.Join(hosts, ""); got != "11212121" {
		t.Errorf("listeners in record order %s; want 11212121", got)
	}
	if r := f.Requests()[0]; r.Status != http.StatusTemporaryRedirect || r.Header.Get("X-Custom") != "v" {
		t.Errorf("first record %+v; want the 307 with the custom header", r)
	}
}

func TestStatelessCase(t *testing.T) {
	f := startFake(t, Options{Case: "stateless"})
	c := newClient(t, f)
	c.initialize()
	if c.session != "" {
		t.Fatalf("stateless initialize handed out session %q", c.session)
	}
	c.wantCallOK(c.call(1, "echo"), 1, "echo")
	wantStatus(t, c.send(http.MethodDelete, ""), http.StatusMethodNotAllowed)
	wantStatus(t, c.send(http.MethodGet, ""), http.StatusMethodNotAllowed)

	// Any case can be made stateless.
	g := startFake(t, Options{Case: "sse-comments", Stateless: true})
	gc := newClient(t, g)
	gc.initialize()
	if gc.session != "" || len(readSSE(t, gc.call(1, "echo")).events) != 1 {
		t.Error("a Stateless sse-comments fake handed out a session or no result")
	}
}

func TestGet405(t *testing.T) {
	f := startFake(t, Options{Case: "get-405"})
	c := newClient(t, f)
	c.initialize()
	resp := c.send(http.MethodGet, "", "Accept: text/event-stream")
	wantStatus(t, resp, http.StatusMethodNotAllowed)
	if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), "no GET stream") {
		t.Errorf("405 body %q; want it to say there is no GET stream", body)
	}
}
