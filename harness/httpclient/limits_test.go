package httpclient

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// peakCounter tracks how many requests a handler holds at once.
type peakCounter struct {
	mu        sync.Mutex
	now, peak int
}

func (p *peakCounter) enter() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now++
	p.peak = max(p.peak, p.now)
}

func (p *peakCounter) leave() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now--
}

func (p *peakCounter) max() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}

// callParams are the params of a tools/call of the rig's echo tool.
var callParams = map[string]any{"name": "echo", "arguments": map[string]any{}}

// TestConcurrencyLimit: RM-01: at most MaxConcurrentRequests ordinary POSTs
// are in progress, the peak reaches the limit, and 0 means 1.
// NoConcurrencyLimit and ConcurrencyZeroUnlimited send all six at once.
func TestConcurrencyLimit(t *testing.T) {
	const calls = 6
	for _, tc := range []struct {
		limit    int
		m        mutant.Name
		wantPeak int
	}{
		{3, "", 3},
		{0, "", 1},
		{3, mutant.NoConcurrencyLimit, calls},
		{0, mutant.ConcurrencyZeroUnlimited, calls},
		{3, mutant.ConcurrencyZeroUnlimited, 3},
	} {
		t.Run(fmt.Sprintf("limit %d mutant %q", tc.limit, tc.m), func(t *testing.T) {
			release := make(chan struct{})
			entered := make(chan struct{}, calls)
			var peak peakCounter
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() == "tools/call" {
					peak.enter()
					entered <- struct{}{}
					holdUntil(q, release)
					peak.leave()
				}
				return false
			})
			c := dialRig(t, s, func(cfg *Config) { cfg.MaxConcurrentRequests, cfg.Mutant = tc.limit, tc.m })
			handshake(t, c, s)
			for i := range calls {
				clientSend(t, c, rpcRequest(t, int64(10+i), "tools/call", callParams))
			}
			for range tc.wantPeak {
				select {
				case <-entered:
				case <-time.After(clientWait):
					t.Fatalf("%d calls in progress, want %d", peak.max(), tc.wantPeak)
				}
			}
			if tc.wantPeak < calls {
				select {
				case <-entered:
					t.Fatalf("a call past the limit of %d started", tc.wantPeak)
				case <-time.After(clientQuiet):
				}
			}
			close(release)
			for id, o := range outcomes(t, c, calls) {
				if o.err != nil {
					t.Errorf("request %s failed: %v", id, o.err)
				}
			}
			if got := peak.max(); got != tc.wantPeak {
				t.Errorf("a peak of %d POSTs in progress, want %d", got, tc.wantPeak)
			}
		})
	}
}

// TestSSEResponseReleasesTheSlot: RM-01: a POST stops counting once its
// response headers say text/event-stream, so with a limit of 1 the next
// POST goes while the stream is still open; SSEHoldsSlot keeps it waiting.
func TestSSEResponseReleasesTheSlot(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.SSEHoldsSlot} {
		t.Run(caseName(m), func(t *testing.T) {
			release := make(chan struct{})
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() != "tools/call" || q.msg().ID != jsonrpc.IntID(10) {
					return false
				}
				sse := rigSSE(w)
				holdUntil(q, release)
				sse.event("", 0, rigAnswer(q.msg()))
				return true
			})
			c := dialRig(t, s, func(cfg *Config) { cfg.MaxConcurrentRequests, cfg.Mutant = 1, m })
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
			s.want(t, "tools/call")
			clientSend(t, c, rpcRequest(t, 11, "tools/call", callParams))
			if m == "" {
				if q := s.want(t, "tools/call"); q.msg().ID != jsonrpc.IntID(11) {
					t.Fatalf("got request %s", q.msg().ID)
				}
				wantResponse(t, c, jsonrpc.IntID(11))
			} else {
				s.wantNothingWithin(t, clientQuiet, "the first POST's stream holds the only slot")
			}
			close(release)
			for id, o := range outcomes(t, c, map[mutant.Name]int{"": 1, mutant.SSEHoldsSlot: 2}[m]) {
				if o.err != nil {
					t.Errorf("request %s failed: %v", id, o.err)
				}
			}
		})
	}
}

// TestControlBypassesOrdinaryPOSTs: RM-02: with the only ordinary slot
// taken, notifications/cancelled and a reply to a server request still go
// at once; ControlWaitsBehindPOSTs queues them behind the ordinary POST.
func TestControlBypassesOrdinaryPOSTs(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.ControlWaitsBehindPOSTs} {
		t.Run(caseName(m), func(t *testing.T) {
			release := make(chan struct{})
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() == "tools/call" {
					holdUntil(q, release)
				}
				return false
			})
			c := dialRig(t, s, func(cfg *Config) { cfg.MaxConcurrentRequests, cfg.Mutant = 1, m })
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
			s.want(t, "tools/call")
			clientSend(t, c, rpcRequest(t, 11, "ping", nil))
			cancel, _ := jsonrpc.NewNotification("notifications/cancelled", map[string]any{"requestId": 10})
			clientSend(t, c, cancel)
			reply, _ := jsonrpc.NewResult(jsonrpc.StringID("server-1"), map[string]any{})
			clientSend(t, c, reply)
			if m == "" {
				s.want(t, "notifications/cancelled")
				s.want(t, "response")
			} else {
				s.wantNothingWithin(t, clientQuiet, "the ordinary slot is taken")
			}
			close(release)
			outcomes(t, c, 2)
		})
	}
}

// TestControlTimeoutRunsFromItsStart: RM-03: a control POST that hangs is
// abandoned ControlRequestTimeout after it starts; the second one, queued
// behind the first in the one control slot, gets its whole timeout from its
// own start. NoControlTimeout lets them hang.
func TestControlTimeoutRunsFromItsStart(t *testing.T) {
	type ended struct {
		took    time.Duration
		aborted bool
	}
	for _, m := range []mutant.Name{"", mutant.NoControlTimeout} {
		t.Run(caseName(m), func(t *testing.T) {
			release := make(chan struct{})
			ends := make(chan ended, 2)
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() != "response" {
					return false
				}
				select {
				case <-q.ctx.Done():
					ends <- ended{time.Since(q.At), true}
				case <-release:
					ends <- ended{time.Since(q.At), false}
				}
				w.WriteHeader(http.StatusAccepted)
				return true
			})
			c := dialRig(t, s, withMutant(m))
			handshake(t, c, s)
			for _, id := range []string{"server-1", "server-2"} {
				reply, _ := jsonrpc.NewResult(jsonrpc.StringID(id), map[string]any{})
				clientSend(t, c, reply)
			}
			if m != "" {
				select {
				case e := <-ends:
					t.Fatalf("a control POST ended after %v (aborted %v); the mutant should let it hang", e.took, e.aborted)
				case <-time.After(3 * clientQuiet):
				}
				close(release)
				return
			}
			for i := range 2 {
				e := <-ends
				if !e.aborted || e.took < clientQuiet*3/4 || e.took > 3*clientQuiet {
					t.Errorf("control POST %d ran %v (aborted %v); want it abandoned after about %v from its own start", i+1, e.took, e.aborted, clientQuiet)
				}
			}
		})
	}
}

// TestInitializedIsNotOvertaken: LC-05: requests sent right after
// notifications/initialized go out only once the server has accepted it,
// though slots are free.
func TestInitializedIsNotOvertaken(t *testing.T) {
	release := make(chan struct{})
	s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
		if q.rpc() == "notifications/initialized" {
			holdUntil(q, release)
		}
		return false
	})
	c := dialRig(t, s, nil)
	clientSend(t, c, initRequest(t))
	wantResponse(t, c, jsonrpc.IntID(1))
	note, _ := jsonrpc.NewNotification("notifications/initialized", nil)
	clientSend(t, c, note)
	clientSend(t, c, rpcRequest(t, 10, "tools/list", nil))
	s.want(t, "initialize")
	s.want(t, "notifications/initialized")
	s.wantNothingWithin(t, clientQuiet, "notifications/initialized is not accepted yet")
	close(release)
	s.want(t, "tools/list")
	wantResponse(t, c, jsonrpc.IntID(10))
}
