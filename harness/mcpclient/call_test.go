package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// callResult is what one Call returned.
type callResult struct {
	res map[string]any
	err error
}

// goCall runs Call in the background.
func goCall(ctx context.Context, s *Session, method string) <-chan callResult {
	out := make(chan callResult, 1)
	go func() {
		var r callResult
		r.err = s.Call(ctx, method, map[string]any{}, &r.res)
		out <- r
	}()
	return out
}

// TestResponsesAreRoutedByID: out-of-order replies reach their callers
// (NG-12, JR-07); FIFOCorrelation hands them to the oldest call instead.
func TestResponsesAreRoutedByID(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.FIFOCorrelation} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connect(t, f, Options{Era: EraLegacy, Mutant: m}, "2025-11-25")
			var calls []<-chan callResult
			var reqs []*jsonrpc.Message
			for i := range 3 {
				calls = append(calls, goCall(context.Background(), s, fmt.Sprintf("m%d", i)))
				reqs = append(reqs, f.expect(t, fmt.Sprintf("m%d", i)))
			}
			for _, i := range []int{2, 0, 1} {
				f.reply(t, reqs[i], map[string]any{"for": reqs[i].Method})
			}
			var wrong []string
			for i, c := range calls {
				r := <-c
				if r.err != nil || r.res["for"] != fmt.Sprintf("m%d", i) {
					wrong = append(wrong, fmt.Sprintf("m%d got %v %v", i, r.res["for"], r.err))
				}
			}
			if (len(wrong) > 0) != (m == mutant.FIFOCorrelation) {
				t.Errorf("mutant %q: misrouted: %v", m, wrong)
			}
		})
	}
}

// TestIDTypesAreDistinct: a response with id "2" does not answer request 2
// (NG-12); IDTypeConfusion lets it.
func TestIDTypesAreDistinct(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.IDTypeConfusion} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connect(t, f, Options{Era: EraLegacy, Mutant: m}, "2025-11-25")
			call := goCall(context.Background(), s, "tools/call")
			req := f.expect(t, "tools/call")
			if req.ID != jsonrpc.IntID(2) {
				t.Fatalf("request id %s, want 2", req.ID)
			}
			wrong, _ := jsonrpc.NewResult(jsonrpc.StringID("2"), map[string]any{"which": "string id"})
			f.deliver(t, wrong)
			f.reply(t, req, map[string]any{"which": "number id"})
			r := <-call
			if want := map[mutant.Name]string{"": "number id", mutant.IDTypeConfusion: "string id"}[m]; r.res["which"] != want {
				t.Errorf("mutant %q: the call got the %v response, want the %s one", m, r.res["which"], want)
			}
		})
	}
}

// TestIDsCountFromOneAndAreNeverReused: JR-05, even after a timeout.
func TestIDsCountFromOneAndAreNeverReused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		s := connect(t, f, Options{Era: EraLegacy, CallTimeout: time.Second}, "2025-11-25")
		var ids []string
		for i := range 4 {
			c := goCall(context.Background(), s, "ping")
			req := f.expect(t, "ping")
			ids = append(ids, req.ID.String())
			if i == 1 {
				<-c // times out
				f.expect(t, "notifications/cancelled")
				continue
			}
			f.reply(t, req, map[string]any{})
			<-c
		}
		if got := strings.Join(ids, " "); got != "2 3 4 5" {
			t.Fatalf("ids %s, want 2 3 4 5 after initialize's 1", got)
		}
	})
}

// TestTimeoutCancelsThenAppliesThePolicy: LC-31, NG-07: at CallTimeout the
// session sends notifications/cancelled, then calls RequestCancelled, and
// the call fails with a timeout. NoCancelNotification skips the
// notification.
func TestTimeoutCancelsThenAppliesThePolicy(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.NoCancelNotification} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connect(t, f, Options{Era: EraLegacy, CallTimeout: 5 * time.Second, Mutant: m}, "2025-11-25")
			began := time.Now()
			_, err := s.CallTool(context.Background(), "slow", map[string]any{})
			if took := time.Since(began); took != 5*time.Second {
				t.Errorf("the call returned after %v, want 5s", took)
			}
			wantKind(t, err, failure.ErrTimeout)
			req := f.expect(t, "tools/call")
			want := []string{"send tools/call", "send notifications/cancelled", "policy"}
			if m == mutant.NoCancelNotification {
				want = []string{"send tools/call", "policy"}
				f.nothingSent(t)
			} else {
				p := params(t, f.expect(t, "notifications/cancelled"))
				if p["requestId"] != float64(2) || p["reason"] != "timed out after 5s" {
					t.Errorf("cancelled params %v, want requestId 2 (of %s) and the reason", p, req.ID)
				}
			}
			if got := f.events()[2:]; !slices.Equal(got, want) {
				t.Errorf("mutant %q: events %q, want %q", m, got, want)
			}
			// A late response is ignored (CN-06).
			f.reply(t, req, map[string]any{})
		})
	}
}

// TestContextDeadlineBeforeCallTimeout: the earlier deadline wins.
func TestContextDeadlineBeforeCallTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		s := connect(t, f, Options{Era: EraLegacy}, "2025-11-25")
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		began := time.Now()
		err := s.Ping(ctx)
		wantKind(t, err, failure.ErrTimeout)
		if took := time.Since(began); took != time.Second {
			t.Errorf("returned after %v, want 1s", took)
		}
	})
}

// TestCallerCancelSendsCancelled: the caller cancelling is ErrCancelled,
// with notifications/cancelled and the policy.
func TestCallerCancelSendsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		s := connect(t, f, Options{Era: EraLegacy}, "2025-11-25")
		ctx, cancel := context.WithCancel(context.Background())
		c := goCall(ctx, s, "tools/call")
		f.expect(t, "tools/call")
		cancel()
		wantKind(t, (<-c).err, failure.ErrCancelled)
		if p := params(t, f.expect(t, "notifications/cancelled")); p["reason"] != "cancelled by the caller" {
			t.Errorf("reason %v", p["reason"])
		}
		if ev := f.events(); ev[len(ev)-1] != "policy" {
			t.Errorf("events %q, want the policy last", ev)
		}
	})
}

// TestTransportEndFailsPendingCallsAtOnce: pending calls get the
// transport's failure, keeping its kind; later calls fail at once too.
func TestTransportEndFailsPendingCallsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		s := connect(t, f, Options{Era: EraLegacy}, "2025-11-25")
		began := time.Now()
		c := goCall(context.Background(), s, "tools/call")
		f.expect(t, "tools/call")
		f.end(failure.New(failure.ErrProtocol, "read stdout", "stdout line of 9 bytes is damaged"))
		r := <-c
		wantKind(t, r.err, failure.ErrProtocol)
		if time.Since(began) != 0 || !strings.Contains(r.err.Error(), "damaged") {
			t.Errorf("after %v: %v", time.Since(began), r.err)
		}
		wantKind(t, s.Ping(context.Background()), failure.ErrProtocol)
	})
}

// TestErrorResponseIsAJSONRPCError: not a failure kind.
func TestErrorResponseIsAJSONRPCError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		s := connect(t, f, Options{Era: EraLegacy}, "2025-11-25")
		c := goCall(context.Background(), s, "tools/call")
		req := f.expect(t, "tools/call")
		f.deliver(t, jsonrpc.NewError(req.ID, jsonrpc.CodeInvalidParams, "Unknown tool"))
		err := (<-c).err
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || failure.KindOf(err) != "other" {
			t.Fatalf("error %v: want a *jsonrpc.Error and no failure kind", err)
		}
	})
}

// TestServerRequestsAreAnswered: ping gets {} (PG-02); other requests get
// method-not-found; notifications get nothing (JR-14).
func TestServerRequestsAreAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		connect(t, f, Options{Era: EraLegacy}, "2025-11-25")
		note, _ := jsonrpc.NewNotification("notifications/message", map[string]any{"level": "info", "data": "x"})
		f.deliver(t, note)
		ping, _ := jsonrpc.NewRequest(jsonrpc.StringID("p1"), "ping", nil)
		f.deliver(t, ping)
		r := f.expect(t, "")
		if r.ID != jsonrpc.StringID("p1") || string(r.Result) != "{}" || r.Error != nil {
			t.Errorf("ping answered %s %s %v, want id \"p1\" and {}", r.ID, r.Result, r.Error)
		}
		sample, _ := jsonrpc.NewRequest(jsonrpc.IntID(9), "sampling/createMessage", map[string]any{})
		f.deliver(t, sample)
		r = f.expect(t, "")
		if r.ID != jsonrpc.IntID(9) || r.Error == nil || r.Error.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("sampling answered %s %+v, want -32601", r.ID, r.Error)
		}
		synctest.Wait()
		f.nothingSent(t)
	})
}

// TestListToolsFollowsCursors: pagination, bounded at MaxToolPages.
func TestListToolsFollowsCursors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		s := connect(t, f, Options{Era: EraLegacy}, "2025-11-25")
		res := make(chan []mcp.Tool, 1)
		go func() {
			tools, err := s.ListTools(context.Background())
			if err != nil {
				t.Error(err)
			}
			res <- tools
		}()
		first := f.expect(t, "tools/list")
		if len(first.Params) != 0 {
			t.Errorf("first page params %s, want none", first.Params)
		}
		f.reply(t, first, map[string]any{"tools": []map[string]any{{"name": "a"}, {"name": "b"}}, "nextCursor": "c2"})
		second := f.expect(t, "tools/list")
		if p := params(t, second); p["cursor"] != "c2" {
			t.Errorf("second page params %v", p)
		}
		f.reply(t, second, map[string]any{"tools": []map[string]any{{"name": "c", "inputSchema": map[string]any{"type": "object"}}}})
		tools := <-res
		if len(tools) != 3 || tools[2].Name != "c" || string(tools[2].InputSchema) != `{"type":"object"}` {
			t.Fatalf("tools %+v", tools)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		s := connect(t, f, Options{Era: EraLegacy}, "2025-11-25")
		go func() {
			for {
				select {
				case req := <-f.sent:
					f.reply(t, req, map[string]any{"tools": []any{}, "nextCursor": "again"})
				case <-f.done:
					return
				}
			}
		}()
		_, err := s.ListTools(context.Background())
		_ = s.Close()
		wantKind(t, err, failure.ErrProtocol)
		if !strings.Contains(err.Error(), "1000 pages") {
			t.Fatalf("error %v", err)
		}
	})
}

// TestCallToolReturnsIsErrorAsAResult.
func TestCallToolReturnsIsErrorAsAResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		s := connect(t, f, Options{Era: EraLegacy}, "2025-11-25")
		res := make(chan *mcp.CallToolResult, 1)
		go func() {
			r, err := s.CallTool(context.Background(), "fails", nil)
			if err != nil {
				t.Error(err)
			}
			res <- r
		}()
		req := f.expect(t, "tools/call")
		if p := params(t, req); p["name"] != "fails" || p["arguments"] != nil {
			t.Errorf("params %v", p)
		}
		f.reply(t, req, map[string]any{"content": []map[string]any{{"type": "text", "text": "boom"}}, "isError": true})
		r := <-res
		if !r.IsError || len(r.Content) != 1 {
			t.Fatalf("result %+v", r)
		}
	})
}
