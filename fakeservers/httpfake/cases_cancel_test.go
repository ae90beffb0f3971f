package httpfake

import (
	"net/http"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// TestCancelThenEcho: slow is held until its cancel arrives, then answered
// late with an error on its own POST; echo waits for both.
func TestCancelThenEcho(t *testing.T) {
	f := startFake(t, Options{Case: "cancel-then-echo", Delay: 5 * time.Second})
	c := newClient(t, f)
	c.initialize()
	slow := make(chan *http.Response, 1)
	body := string(fakeservers.Encode(callMessage(t, jsonrpc.IntID(1), "slow")))
	go func() {
		resp, _ := c.do(t.Context(), http.MethodPost, body) // nil on an error: the test fails below
		slow <- resp
	}()
	wantRecords(t, f, "slow held", func(recs []Request) bool { return inProgress(recs, methodToolsCall) == 1 })
	echo := c.callAsync(t.Context(), 2, "echo")
	wantRecords(t, f, "slow and echo held", func(recs []Request) bool { return inProgress(recs, methodToolsCall) == 2 })
	cancel, err := jsonrpc.NewNotification(methodCancelled, map[string]any{"requestId": 1})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, c.post(cancel), http.StatusAccepted)
	var resp *http.Response
	select {
	case resp = <-slow:
	case <-time.After(replyDeadline):
		t.Fatalf("no late answer to slow within %s", replyDeadline)
	}
	if resp == nil {
		t.Fatal("slow's POST failed; want its late answer")
	}
	defer resp.Body.Close()
	if m := readJSONMessage(t, resp); m.Kind() != jsonrpc.KindError || m.ID.Key() != jsonrpc.IntID(1).Key() {
		t.Fatalf("slow got %s id %s; want its late error", m.Kind(), m.ID)
	}
	if a := await(t, echo); a.err != nil || a.resp.StatusCode != http.StatusOK {
		t.Fatalf("echo: %+v; want 200", a)
	}
	recs := recordsOf(f.Requests(), methodToolsCall)
	if len(recs) != 2 || recs[1].End.Before(recs[0].End) {
		t.Errorf("echo answered before slow's late answer: %+v", recs)
	}
}
