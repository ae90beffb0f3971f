package httpfake

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// asyncCall is one tools/call sent from its own goroutine.
type asyncCall struct {
	name string
	resp *http.Response
	err  error
	took time.Duration
}

// callAsync sends tools/call for name with id from a goroutine; the answer
// arrives on the returned channel.
func (c *client) callAsync(ctx context.Context, id int64, name string) <-chan asyncCall {
	done := make(chan asyncCall, 1)
	body := string(fakeservers.Encode(callMessage(c.t, jsonrpc.IntID(id), name)))
	go func() {
		start := time.Now()
		resp, err := c.do(ctx, http.MethodPost, body)
		if err == nil {
			resp.Body.Close()
		}
		done <- asyncCall{name: name, resp: resp, err: err, took: time.Since(start)}
	}()
	return done
}

// await returns the call's answer.
func await(t *testing.T, ch <-chan asyncCall) asyncCall {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(replyDeadline):
		t.Fatalf("no answer within %s", replyDeadline)
	}
	return asyncCall{}
}

// wantAsyncStatus checks that the call got status.
func wantAsyncStatus(t *testing.T, a asyncCall, status int) {
	t.Helper()
	if a.err != nil || a.resp.StatusCode != status {
		t.Fatalf("tools/call %s: %v %v; want status %d", a.name, a.resp, a.err, status)
	}
}

// toolNames lists the tools the fake offers.
func (c *client) toolNames() []string {
	c.t.Helper()
	var list struct {
		Tools []fakeservers.Tool `json:"tools"`
	}
	if err := json.Unmarshal(readJSONMessage(c.t, c.post(testRequest(c.t, jsonrpc.IntID(100), "tools/list", nil))).Result, &list); err != nil {
		c.t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestExpireAfter(t *testing.T) {
	f := startFake(t, Options{Case: "expire-after", ExpireAfter: 3})
	c := newClient(t, f)
	c.initialize()                                                         // carries no session, then POST 1: notifications/initialized
	wantStatus(t, c.send(http.MethodGet, ""), http.StatusMethodNotAllowed) // GETs do not count
	c.wantCallOK(c.call(1, "echo"), 1, "echo")                             // 2
	c.wantCallOK(c.call(2, "echo"), 2, "echo")                             // 3
	wantStatus(t, c.call(3, "echo"), http.StatusNotFound)                  // 4: expired
	wantStatus(t, c.send(http.MethodDelete, ""), http.StatusNotFound)
	first := c.session
	c.initialize()
	if c.session == first {
		t.Fatal("re-initialize handed out the expired session id")
	}
	for id := range int64(6) {
		c.wantCallOK(c.call(10+id, "echo"), 10+id, "echo")
	}
}

func TestExpireInflight(t *testing.T) {
	f := startFake(t, Options{Case: "expire-inflight", Tools: 3, Delay: 2 * replyDeadline})
	c := newClient(t, f)
	c.initialize()
	if names := c.toolNames(); len(names) != 3 || names[0] != "slow-1" || names[2] != "slow-3" {
		t.Fatalf("tools %v; want slow-1…slow-3", names)
	}
	var calls []<-chan asyncCall
	for i, name := range []string{"slow-1", "slow-2", "slow-3"} {
		calls = append(calls, c.callAsync(t.Context(), int64(i+1), name))
	}
	for _, ch := range calls {
		// All three meet 404 once the third arrives, long before Delay.
		wantAsyncStatus(t, await(t, ch), http.StatusNotFound)
	}
	if n := inProgress(f.Requests(), methodToolsCall); n != 0 {
		t.Errorf("%d calls still in progress; want none", n)
	}
	wantStatus(t, c.call(4, "slow-1"), http.StatusNotFound)
	c.initialize()
	for i, name := range []string{"slow-1", "slow-2", "slow-3"} {
		c.wantCallOK(c.call(int64(i+1), name), int64(i+1), name)
	}
	if got := len(recordsOf(f.Requests(), methodInitialize)); got != 2 {
		t.Errorf("%d initialize requests recorded; want 2", got)
	}
}

func TestExpireInflightAfterDelay(t *testing.T) {
	delay := 50 * time.Millisecond
	f := startFake(t, Options{Case: "expire-inflight", Tools: 3, Delay: delay})
	c := newClient(t, f)
	c.initialize()
	a := await(t, c.callAsync(t.Context(), 1, "slow-1"))
	wantAsyncStatus(t, a, http.StatusNotFound)
	if a.took < delay {
		t.Errorf("a lone call got 404 after %s; want it to wait Delay %s for the others", a.took, delay)
	}
}

func TestExpireOldPending(t *testing.T) {
	delay := 300 * time.Millisecond
	f := startFake(t, Options{Case: "expire-old-pending", Delay: delay})
	c := newClient(t, f)
	c.initialize()
	if names := c.toolNames(); len(names) != 2 || names[0] != "old" || names[1] != "new" {
		t.Fatalf("tools %v; want old, new", names)
	}
	old := c.callAsync(t.Context(), 1, "old")
	wantRecords(t, f, `"old" in progress`, func(recs []Request) bool { return inProgress(recs, methodToolsCall) == 1 })
	wantStatus(t, c.call(2, "new"), http.StatusNotFound)
	if n := inProgress(f.Requests(), methodToolsCall); n != 1 {
		t.Errorf("%d calls in progress after new's 404; want old still pending", n)
	}
	a := await(t, old)
	wantAsyncStatus(t, a, http.StatusNotFound)
	if a.took < delay {
		t.Errorf("old answered after %s; want Delay %s", a.took, delay)
	}
	c.initialize()
	c.wantCallOK(c.call(2, "new"), 2, "new")
	c.wantCallOK(c.call(3, "old"), 3, "old")
}

func TestRecoveryHangs(t *testing.T) {
	f := startFake(t, Options{Case: "recovery-hangs"})
	c := newClient(t, f)
	c.initialize()
	wantStatus(t, c.call(1, "echo"), http.StatusNotFound)

	// The client gives up on the hung handshake; the fake records it.
	ctx, cancel := context.WithCancel(t.Context())
	c.session = ""
	done := make(chan error, 1)
	go func() {
		_, err := c.do(ctx, http.MethodPost, string(fakeservers.Encode(initializeMessage(t, jsonrpc.IntID(2), "2025-11-25"))))
		done <- err
	}()
	wantRecords(t, f, "the re-initialize held", func(recs []Request) bool { return inProgress(recs, methodInitialize) == 1 })
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the re-initialize was answered; want it held until the client gave up")
	}
	recs := wantRecords(t, f, "the re-initialize ended", func(recs []Request) bool { return inProgress(recs, methodInitialize) == 0 })
	if r := recs[len(recs)-1]; !r.Aborted || r.Status != 0 || r.SessionID != "" {
		t.Errorf("re-initialize record %+v; want Aborted, unanswered, without a session", r)
	}
}

func TestExpireAgain(t *testing.T) {
	f := startFake(t, Options{Case: "expire-again"})
	c := newClient(t, f)
	for range 2 {
		c.initialize()
		wantStatus(t, c.call(1, "echo"), http.StatusNotFound)
		wantStatus(t, c.post(testRequest(t, jsonrpc.IntID(2), "ping", nil)), http.StatusNotFound)
	}
	calls := recordsOf(f.Requests(), methodToolsCall)
	if len(calls) != 2 || calls[0].SessionID == calls[1].SessionID {
		t.Errorf("call records %+v; want two, in two sessions", calls)
	}
}

// TestExpireOldPendingNewFirst sends "new" before "old": it waits for "old"
// to be in progress before it expires the session, so "old" is still
// pending when the session expires, whatever order a parallel client used.
func TestExpireOldPendingNewFirst(t *testing.T) {
	delay := 200 * time.Millisecond
	f := startFake(t, Options{Case: "expire-old-pending", Delay: delay})
	c := newClient(t, f)
	c.initialize()
	newCall := c.callAsync(t.Context(), 2, "new")
	wantRecords(t, f, `"new" in progress`, func(recs []Request) bool { return inProgress(recs, methodToolsCall) == 1 })
	if got := f.Requests()[2]; got.Status != 0 {
		t.Fatalf(`"new" answered %d before "old" arrived; want it held`, got.Status)
	}
	oldCall := c.callAsync(t.Context(), 1, "old")
	n := await(t, newCall)
	wantAsyncStatus(t, n, http.StatusNotFound)
	o := await(t, oldCall)
	wantAsyncStatus(t, o, http.StatusNotFound)
	if o.took < delay {
		t.Errorf("old answered after %s; want Delay %s", o.took, delay)
	}
}
