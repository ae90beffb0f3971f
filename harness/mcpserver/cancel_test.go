package mcpserver

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// startSlow starts the slow tool as request id with a progress token and
// waits until it runs (its progress 0 arrived).
func startSlow(t *testing.T, p *peer, id jsonrpc.ID) <-chan *jsonrpc.Message {
	t.Helper()
	done := p.start(id, "tools/call", `{"name":"slow","arguments":{"ms":600000},"_meta":{"progressToken":"slow"}}`)
	if m := p.next(); m.Method != "notifications/progress" {
		t.Fatalf("slow sent %s first, want its progress", m.Method)
	}
	return done
}

func TestCancelledRequestGetsNoResponse(t *testing.T) {
	for _, id := range []jsonrpc.ID{jsonrpc.IntID(7), jsonrpc.StringID("seven")} {
		p := newPeer(t, "")
		p.initialize("{}")
		done := startSlow(t, p, id)
		if resp := p.notify("notifications/cancelled", `{"requestId":`+id.String()+`,"reason":"test"}`); resp != nil {
			t.Fatalf("the cancel was answered: %+v", resp)
		}
		if resp := <-done; resp != nil {
			t.Fatalf("cancelled request %s answered: %+v", id, resp)
		}
		if sent := p.drain(); len(sent) > 0 {
			t.Fatalf("after the cancel the server sent %v", methods(sent))
		}
		// The server keeps serving, and the id is free again.
		wantServerResult(t, p.callID(id, "ping", ""), "{}")
	}
}

func TestCancelsForOtherIDsAreIgnored(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	done := startSlow(t, p, jsonrpc.IntID(8))
	for _, params := range []string{
		`{"requestId":"8"}`, // the same digits, another id (JR-07)
		`{"requestId":99}`,  // unknown
		`{"requestId":1}`,   // initialize, finished long ago
		`{"requestId":8.5}`, `{"requestId":null}`, `{}`, `[8]`, "",
	} {
		if resp := p.notify("notifications/cancelled", params); resp != nil {
			t.Fatalf("cancel %s answered: %+v", params, resp)
		}
	}
	select {
	case resp := <-done:
		t.Fatalf("slow ended on a cancel for another id: %+v", resp)
	default:
	}
	p.notify("notifications/cancelled", `{"requestId":8}`)
	if resp := <-done; resp != nil {
		t.Fatalf("cancelled request answered: %+v", resp)
	}
	if sent := p.drain(); len(sent) > 0 {
		t.Fatalf("the cancels made the server send %v", methods(sent))
	}
}

func TestCancelForAFinishedRequestIsIgnored(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	p.callID(jsonrpc.IntID(5), "tools/call", `{"name":"test_simple_text"}`)
	if resp := p.notify("notifications/cancelled", `{"requestId":5}`); resp != nil {
		t.Fatalf("late cancel answered: %+v", resp)
	}
	wantServerResult(t, p.callID(jsonrpc.IntID(5), "ping", ""), "{}")
}

func TestCancelStopsTheHandler(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	srv := p.srv
	sess := srv.session(p.ctx, p.session)
	rc, _ := sess.begin(p.ctx, srv, msg(jsonrpc.IntID(3), "tools/call", ""), func(*jsonrpc.Message) error { return nil })
	if rc.Cancelled() {
		t.Fatal("cancelled before the cancel")
	}
	p.notify("notifications/cancelled", `{"requestId":3}`)
	<-rc.Context().Done()
	if !rc.Cancelled() {
		t.Fatal("Cancelled() false after the cancel")
	}
	if !sess.finish(rc) {
		t.Fatal("finish does not report the cancel")
	}
}

func TestReusedIDsAreAnsweredAgain(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, id := range []jsonrpc.ID{jsonrpc.IntID(9), jsonrpc.StringID("nine")} {
		wantServerResult(t, p.callID(id, "ping", ""), "{}")
		// Reused after its response, with another method: its own answer.
		wantServerResult(t, p.callID(id, "ping", ""), "{}")
		wantServerError(t, p.callID(id, "mcpconform/none", "{}"), jsonrpc.CodeMethodNotFound)
		wantServerResult(t, p.callID(id, "tools/list", ""), `"tools":[`)
	}
	// A cancelled request's id, and one whose cancel came after it finished
	// (the finished ids kept for cancels never swallow a reuse).
	p.drain()
	done := startSlow(t, p, jsonrpc.IntID(10))
	p.notify("notifications/cancelled", `{"requestId":10}`)
	if resp := <-done; resp != nil {
		t.Fatalf("cancelled request answered: %+v", resp)
	}
	p.notify("notifications/cancelled", `{"requestId":10}`)
	wantServerResult(t, p.callID(jsonrpc.IntID(10), "ping", ""), "{}")
	wantServerResult(t, p.callID(jsonrpc.IntID(10), "tools/call", `{"name":"test_simple_text"}`), "simple text")
}
