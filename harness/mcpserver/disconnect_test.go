package mcpserver

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestReconnectionToolClosesTheConnectionMidCall(t *testing.T) {
	p := newPeer(t, "")
	var closed atomic.Int32
	p.ctx = WithDisconnect(context.Background(), func() { closed.Add(1) })
	p.initialize("{}")
	r := toolResultOf(t, p.tool("test_reconnection", ""))
	if r.IsError || !strings.Contains(textOf(r), "after the server closed") || closed.Load() != 1 {
		t.Fatalf("result %q (isError %v) after %d disconnects, want an answer after one", textOf(r), r.IsError, closed.Load())
	}
}

func TestReconnectionToolAnswersWhereTheTransportCannotClose(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	r := toolResultOf(t, p.tool("test_reconnection", ""))
	if r.IsError || !strings.Contains(textOf(r), "cannot close") {
		t.Fatalf("result %q (isError %v), want an answer on the open connection", textOf(r), r.IsError)
	}
}

func TestDisconnectNeedsTheTransportsFunction(t *testing.T) {
	if err := Disconnect(context.Background()); !errors.Is(err, ErrCannotDisconnect) {
		t.Fatalf("Disconnect without a transport's function: %v, want ErrCannotDisconnect", err)
	}
	calls := 0
	if err := Disconnect(WithDisconnect(context.Background(), func() { calls++ })); err != nil || calls != 1 {
		t.Fatalf("Disconnect: %v after %d calls, want one call", err, calls)
	}
}

func TestDisconnectAfterTheHandlerReturnedFails(t *testing.T) {
	p := newPeer(t, "")
	calls := 0
	p.ctx = WithDisconnect(context.Background(), func() { calls++ })
	p.initialize("{}")
	sess := p.srv.session(p.ctx, p.session)
	var returned bool
	rc, _ := sess.begin(p.ctx, p.srv, msg(jsonrpc.IntID(60), "tools/call", ""), p.outFor(&returned, &sync.Mutex{}))
	sess.finish(rc)
	if err := rc.Disconnect(); !errors.Is(err, ErrRequestDone) || calls != 0 {
		t.Fatalf("Disconnect after the handler returned: %v after %d calls, want ErrRequestDone and none", err, calls)
	}
}
