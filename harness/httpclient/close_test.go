package httpclient

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestCloseEndsTheSessionWithOneDELETE: RM-13, HT-58: Close sends one
// DELETE with the session id and the credentials, however often it is
// called; afterwards Send fails with ErrShutdown, Done and Incoming are
// closed and Err says shutdown. NoDeleteOnClose sends none.
func TestCloseEndsTheSessionWithOneDELETE(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.NoDeleteOnClose} {
		t.Run(caseName(m), func(t *testing.T) {
			s := newRig(t, nil)
			c := dialRig(t, s, withCredentials(m))
			handshake(t, c, s)
			if c.Err() != nil || c.SessionID() != "s1" {
				t.Fatalf("before Close: Err %v, session %q", c.Err(), c.SessionID())
			}
			for range 2 {
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
			}
			deletes := s.requests(http.MethodDelete)
			switch {
			case m != "" && len(deletes) != 0:
				t.Fatalf("the mutant sent %d DELETEs", len(deletes))
			case m == "" && (len(deletes) != 1 || deletes[0].session() != "s1" || deletes[0].Header.Get("Authorization") != "Bearer tok-123"):
				t.Fatalf("%d DELETEs; want one with session s1 and the token", len(deletes))
			}
			if err := c.Send(rpcRequest(t, 10, "ping", nil)); !errors.Is(err, failure.ErrShutdown) {
				t.Fatalf("Send after Close: %v, want ErrShutdown", err)
			}
			if _, open := <-c.Incoming(); open || !errors.Is(c.Err(), failure.ErrShutdown) {
				t.Fatalf("after Close: Incoming open %v, Err %v", open, c.Err())
			}
			<-c.Done()
		})
	}
}

// TestCloseDropsQueuedPOSTs: RM-13: POSTs still queued behind a full slot
// are dropped, never sent, and the DELETE goes at once.
func TestCloseDropsQueuedPOSTs(t *testing.T) {
	s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
		if q.rpc() == "tools/call" {
			<-q.ctx.Done()
			return true
		}
		return false
	})
	c := dialRig(t, s, func(cfg *Config) { cfg.MaxConcurrentRequests = 1 })
	handshake(t, c, s)
	clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
	s.want(t, "tools/call")
	for id := range int64(3) {
		clientSend(t, c, rpcRequest(t, 11+id, "ping", nil))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if pings, deletes := len(s.requests("ping")), len(s.requests(http.MethodDelete)); pings != 0 || deletes != 1 {
		t.Fatalf("%d queued pings sent and %d DELETEs; want 0 and 1", pings, deletes)
	}
}

// TestCloseIsBounded: RM-13, RM-03: a DELETE that hangs is given up after
// ControlRequestTimeout and Close reports it; a 405 is a fine answer.
func TestCloseIsBounded(t *testing.T) {
	for _, status := range []int{0, http.StatusMethodNotAllowed} {
		s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
			if q.Method != http.MethodDelete {
				return false
			}
			if status == 0 {
				<-q.ctx.Done()
				return true
			}
			w.WriteHeader(status)
			return true
		})
		c := dialRig(t, s, nil)
		handshake(t, c, s)
		began := time.Now()
		err := c.Close()
		took := time.Since(began)
		switch {
		case status == 0 && (!errors.Is(err, failure.ErrTimeout) || took < clientQuiet*3/4 || took > clientWait/2):
			t.Errorf("hanging DELETE: Close returned %v after %v; want a timeout after about %v", err, took, clientQuiet)
		case status != 0 && err != nil:
			t.Errorf("DELETE answered %d: Close returned %v", status, err)
		}
	}
}
