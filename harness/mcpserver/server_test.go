package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

func TestServerNegotiatesTheVersion(t *testing.T) {
	for proposed, want := range map[string]string{
		"2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "2025-11-25": "2025-11-25",
		"2024-11-05": "2025-11-25", "2026-07-28": "2025-11-25", "": "2025-11-25",
	} {
		resp := newPeer(t, "").call("initialize", initParams(proposed, "{}"))
		wantServerResult(t, resp, `"protocolVersion":"`+want+`"`, `"serverInfo":{"name":"mcpconform-reference","version":"dev"}`,
			`"tools":{}`, `"resources":{"subscribe":true}`, `"prompts":{}`, `"logging":{}`, `"completions":{}`)
	}
	for _, params := range []string{"", `{"protocolVersion":7}`, `{}`, `[1]`, `{"protocolVersion":"2025-11-25","capabilities":[]}`} {
		wantServerError(t, newPeer(t, "").call("initialize", params), jsonrpc.CodeInvalidParams)
	}
}

func TestServerAnswersPingBeforeAndAfterInitialize(t *testing.T) {
	p := newPeer(t, "")
	wantServerResult(t, p.call("ping", ""), `{}`)
	wantServerError(t, p.call("tools/list", ""), jsonrpc.CodeInvalidRequest)
	p.initialize("{}")
	if got := string(p.call("ping", "").Result); got != "{}" {
		t.Fatalf("ping after initialize: %s, want {}", got)
	}
	wantServerResult(t, p.call("tools/list", ""), `"tools":[`)
}

func TestServerUnknownMethods(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, m := range []string{"tools/unknown", "resources/watch", "sampling/createMessage"} {
		wantServerError(t, p.call(m, `{}`), jsonrpc.CodeMethodNotFound)
	}
}

func TestServerInvalidParams(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, c := range []struct{ method, params string }{
		{"tools/call", `{}`},
		{"tools/call", `{"name":5}`},
		{"tools/call", `{"name":"test_simple_text","arguments":[1]}`},
		{"tools/call", `[1]`},
		{"tools/list", `{"cursor":7}`},
		{"logging/setLevel", `{}`},
		{"resources/read", `{}`},
		{"prompts/get", `{"name":"test_prompt_with_arguments","arguments":{"arg1":1,"arg2":"x"}}`},
		{"completion/complete", `{"ref":{"type":"ref/nothing"},"argument":{"name":"a","value":""}}`},
	} {
		wantServerError(t, p.call(c.method, c.params), jsonrpc.CodeInvalidParams)
	}
}

func TestServerNeverAnswersNotifications(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, n := range []string{"notifications/initialized", "notifications/unknown", "notifications/roots/list_changed", "ping", "tools/call"} {
		if resp := p.notify(n, `{}`); resp != nil {
			t.Errorf("notification %s answered with %+v", n, resp)
		}
	}
	if sent := p.drain(); len(sent) > 0 {
		t.Fatalf("notifications made the server send %v", methods(sent))
	}
}

func TestServerEchoesIDsOfEveryType(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, raw := range []string{`0`, `-1`, `2`, `"2"`, `""`, `"ïd ✓"`, `9007199254740993`, `123456789012345678901234567890`, `"\u0000"`} {
		var id jsonrpc.ID
		if err := json.Unmarshal([]byte(raw), &id); err != nil {
			t.Fatal(err)
		}
		resp := p.callID(id, "ping", "")
		if got, _ := json.Marshal(resp.ID); string(got) != id.String() {
			t.Errorf("id %s answered as %s", raw, got)
		}
	}
}

func TestServerRefusesAnIDInFlight(t *testing.T) {
	p := newPeerWith(t, Options{})
	p.initialize("{}")
	id := jsonrpc.IntID(40)
	done := p.start(id, "tools/call", `{"name":"slow","arguments":{"ms":60000},"_meta":{"progressToken":"t"}}`)
	p.next() // progress 0: the slow tool is running
	wantServerError(t, p.callID(id, "ping", ""), jsonrpc.CodeInvalidRequest)
	// The same digits as a string are another id (JR-07).
	wantServerResult(t, p.callID(jsonrpc.StringID("40"), "ping", ""), `{}`)
	p.notify("notifications/cancelled", `{"requestId":40}`)
	if resp := <-done; resp != nil {
		t.Fatalf("cancelled request answered: %+v", resp)
	}
}

func TestServerStateIsPerSession(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	other := &peer{t: t, srv: p.srv, ctx: context.Background(), sent: make(chan *jsonrpc.Message, 16), session: namedSession("other")}
	wantServerError(t, other.call("tools/list", ""), jsonrpc.CodeInvalidRequest)
	wantServerResult(t, p.call("logging/setLevel", `{"level":"emergency"}`))
	other.initialize("{}")
	log := toolResultOf(t, other.tool("log", ""))
	if log.IsError {
		t.Fatal(textOf(log))
	}
	if n := len(ofMethod(other.drain(), "notifications/message")); n != 7 {
		t.Fatalf("the other session got %d log messages, want 7: another session's level leaked", n)
	}
}

func TestServerForgetsASessionWhenItsContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := New(Options{})
		ctx, cancel := context.WithCancel(context.Background())
		p := &peer{t: t, srv: srv, ctx: ctx, sent: make(chan *jsonrpc.Message, 16), session: namedSession("gone")}
		p.initialize("{}")
		cancel()
		synctest.Wait()
		srv.mu.Lock()
		_, alive := srv.sessions["gone"]
		srv.mu.Unlock()
		if alive {
			t.Fatal("the session state outlived its context")
		}
	})
}

func TestNewServerRejectsNegativeOptions(t *testing.T) {
	if _, err := New(Options{PageSize: -1}); err == nil || !strings.Contains(err.Error(), "must not be negative") {
		t.Fatalf("err %v", err)
	}
	s, _ := New(Options{})
	if s.opts.PageSize != DefaultPageSize || s.opts.ReverseTimeout != DefaultReverseTimeout || s.opts.SlowBound != DefaultSlowBound || !slices.Equal(s.opts.ProtocolVersions, mcp.LegacyProtocolVersions) {
		t.Fatalf("defaults %+v", s.opts)
	}
}

// namedSession is a session with an id.
type namedSession string

func (n namedSession) ID() string            { return string(n) }
func (namedSession) ProtocolVersion() string { return "2025-11-25" }
