package httpfake

import (
	"bufio"
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestSlowCalls(t *testing.T) {
	delay := 300 * time.Millisecond
	f := startFake(t, Options{Case: "slow-calls", Tools: 3, Delay: delay})
	c := newClient(t, f)
	c.initialize()
	if names := c.toolNames(); !slices.Equal(names, []string{"t1", "t2", "t3"}) {
		t.Fatalf("tools %v; want t1, t2, t3", names)
	}
	var calls []<-chan asyncCall
	for i, name := range []string{"t1", "t2", "t3"} {
		calls = append(calls, c.callAsync(t.Context(), int64(i+1), name))
	}
	for _, ch := range calls {
		a := await(t, ch)
		wantAsyncStatus(t, a, http.StatusOK)
		if a.took < delay {
			t.Errorf("%s answered after %s; want Delay %s", a.name, a.took, delay)
		}
	}
	if got := f.MaxConcurrent(); got != 3 {
		t.Errorf("MaxConcurrent = %d; want 3 (the three calls overlapped)", got)
	}
	if got := f.MaxSSEStreams(); got != 0 {
		t.Errorf("MaxSSEStreams = %d; want 0 (JSON answers)", got)
	}
}

// TestConcurrencyAccounting holds calls, a cancellation and a client
// response open at once: only the calls are ordinary POSTs.
func TestConcurrencyAccounting(t *testing.T) {
	f := startFake(t, Options{Case: "control-hang"})
	c := newClient(t, f)
	c.initialize()
	if got := f.MaxConcurrent(); got != 1 {
		t.Fatalf("MaxConcurrent after a sequential handshake = %d; want 1", got)
	}
	c.callAsync(t.Context(), 1, "echo")
	c.callAsync(t.Context(), 2, "echo")
	cancel, err := jsonrpc.NewNotification(methodCancelled, map[string]any{"requestId": 1})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if resp, err := c.do(t.Context(), http.MethodPost, string(fakeservers.Encode(cancel))); err == nil {
			resp.Body.Close()
		}
	}()
	wantRecords(t, f, "two calls and a cancellation held", func(recs []Request) bool {
		return inProgress(recs, methodToolsCall) == 2 && inProgress(recs, methodCancelled) == 1
	})
	wantStatus(t, c.send(http.MethodPost, `{"jsonrpc":"2.0","id":"srv-1","result":{}}`), http.StatusAccepted)
	if got := f.MaxConcurrent(); got != 2 {
		t.Errorf("MaxConcurrent = %d; want 2 (cancellations and client responses are control traffic)", got)
	}
}

func TestControlHang(t *testing.T) {
	f := startFake(t, Options{Case: "control-hang"})
	c := newClient(t, f)
	c.initialize()
	call := c.callAsync(t.Context(), 1, "echo")
	wantRecords(t, f, "the call held", func(recs []Request) bool { return inProgress(recs, methodToolsCall) == 1 })

	// The client's control timeout ends the held cancellation.
	cancelMsg, err := jsonrpc.NewNotification(methodCancelled, map[string]any{"requestId": 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer stop()
	if _, err := c.do(ctx, http.MethodPost, string(fakeservers.Encode(cancelMsg))); err == nil {
		t.Fatal("notifications/cancelled was answered; want it held")
	}
	recs := wantRecords(t, f, "the cancellation aborted", func(recs []Request) bool {
		r := recordsOf(recs, methodCancelled)
		return len(r) == 1 && !r[0].End.IsZero()
	})
	if r := recordsOf(recs, methodCancelled)[0]; !r.Aborted || r.Status != 0 || !r.End.After(r.Start) {
		t.Errorf("cancellation record %+v; want Aborted and unanswered", r)
	}
	if inProgress(recs, methodToolsCall) != 1 {
		t.Error("the call ended; want it still held")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if a := await(t, call); a.err == nil {
		t.Errorf("the held call got %d at Close; want a connection error", a.resp.StatusCode)
	}
}

func TestSSEEarly(t *testing.T) {
	delay := 300 * time.Millisecond
	f := startFake(t, Options{Case: "sse-early", Tools: 2, Delay: delay})
	c := newClient(t, f)
	c.initialize()
	start := time.Now()
	r1, r2 := c.call(1, "t1"), c.call(2, "t2")
	if took := time.Since(start); took >= delay {
		t.Fatalf("the SSE headers of two calls took %s; want them at once, before Delay %s", took, delay)
	}
	for i, resp := range []*http.Response{r1, r2} {
		got := readSSE(t, resp)
		if len(got.events) != 1 {
			t.Fatalf("%d events; want the result", len(got.events))
		}
		wantCallText(t, eventMessage(t, got.events[0]), jsonrpc.IntID(int64(i+1)), "ok t"+string(rune('1'+i)))
	}
	if took := time.Since(start); took < delay {
		t.Errorf("results after %s; want Delay %s", took, delay)
	}
	if s, p := f.MaxSSEStreams(), f.MaxConcurrent(); s != 2 || p != 2 {
		t.Errorf("MaxSSEStreams %d, MaxConcurrent %d; want 2 and 2", s, p)
	}
}

func TestServerRequest(t *testing.T) {
	f := startFake(t, Options{Case: "server-request", Tools: 2, Delay: 2 * replyDeadline})
	c := newClient(t, f)
	c.initialize()
	// The first call's headers come at once, freeing the client's slot.
	first := c.call(1, "t1")
	wantStatus(t, first, http.StatusOK)
	br1 := bufio.NewReader(first.Body)

	// A later call holds even its headers until srv-1 is answered; srv-1
	// goes out only once every later call holds.
	later := make(chan *http.Response, 1)
	go func() {
		resp, err := c.do(t.Context(), http.MethodPost, string(fakeservers.Encode(callMessage(t, jsonrpc.IntID(2), "t2"))))
		if err != nil {
			t.Error(err)
			resp = nil
		}
		later <- resp
	}()
	wantRecords(t, f, "the second call held", func(recs []Request) bool { return inProgress(recs, methodToolsCall) == 2 })
	if got := f.Requests()[3]; got.Status != 0 {
		t.Fatalf("second call record %+v; want it held without an answer", got)
	}
	wantServerRequest(t, nextSSEEvent(t, br1), `"srv-1"`)
	wantStatus(t, c.send(http.MethodPost, `{"jsonrpc":"2.0","id":"srv-1","result":{"roots":[]}}`), http.StatusAccepted)
	wantCallText(t, eventMessage(t, nextSSEEvent(t, br1)), jsonrpc.IntID(1), "ok t1")

	second := <-later
	if second == nil {
		t.FailNow()
	}
	defer second.Body.Close()
	br2 := bufio.NewReader(second.Body)
	wantServerRequest(t, nextSSEEvent(t, br2), `"srv-2"`)
	wantStatus(t, c.send(http.MethodPost, `{"jsonrpc":"2.0","id":"srv-2","error":{"code":-32601,"message":"Method not found"}}`), http.StatusAccepted)
	wantCallText(t, eventMessage(t, nextSSEEvent(t, br2)), jsonrpc.IntID(2), "ok t2")

	recs := wantRecords(t, f, "both calls ended", func(recs []Request) bool { return inProgress(recs, methodToolsCall) == 0 })
	call, reply := recs[2], recs[4]
	if reply.Messages[0].Kind() != jsonrpc.KindResult || reply.Start.Before(call.Start) || reply.Start.After(call.End) || reply.Status != http.StatusAccepted {
		t.Errorf("reply %+v, call %+v; want the reply during the call, answered 202", reply, call)
	}
	if got := f.MaxConcurrent(); got != 2 {
		t.Errorf("MaxConcurrent = %d; want 2 (the calls; replies are control traffic)", got)
	}
}

// wantServerRequest checks that e carries a roots/list request with id (JSON).
func wantServerRequest(t *testing.T, e sseReadEvent, id string) {
	t.Helper()
	req := eventMessage(t, e)
	if req.Kind() != jsonrpc.KindRequest || req.Method != "roots/list" || req.ID.Key() != id {
		t.Fatalf("event %s %s id %s; want request roots/list id %s", req.Kind(), req.Method, req.ID, id)
	}
}

func TestServerRequestUnanswered(t *testing.T) {
	f := startFake(t, Options{Case: "server-request", Delay: 50 * time.Millisecond})
	c := newClient(t, f)
	c.initialize()
	got := readSSE(t, c.call(1, "t1"))
	if len(got.events) != 2 {
		t.Fatalf("%d events; want the request and an error", len(got.events))
	}
	if m := eventMessage(t, got.events[1]); m.Kind() != jsonrpc.KindError || m.Error.Code != jsonrpc.CodeInternalError || m.ID.Key() != "1" {
		t.Errorf("second event %s %v; want error -32603 for call 1", m.Kind(), m.Error)
	}
	// A late reply is still accepted and recorded.
	wantStatus(t, c.send(http.MethodPost, `{"jsonrpc":"2.0","id":"srv-1","error":{"code":-32601,"message":"no roots"}}`), http.StatusAccepted)
}
