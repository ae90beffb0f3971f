package httpclient

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// caseName names a subtest after its mutant.
func caseName(m mutant.Name) string {
	if m == "" {
		return "reference"
	}
	return string(m)
}

// idsOn returns the ids of the rpc requests the rig saw on other sessions
// than skip, sorted.
func idsOn(s *rig, rpc, skip string) []string {
	var ids []string
	for _, q := range s.requests(rpc) {
		if q.session() != skip {
			ids = append(ids, q.msg().ID.Key())
		}
	}
	slices.Sort(ids)
	return ids
}

// TestOneRecoveryForConcurrentExpiries: RM-04, RM-05, HT-57: two calls that
// meet 404 on the same session share one recovery: one fresh initialize,
// with the original params and no session id, then
// notifications/initialized, then each call retried once with its original
// id on the new session; the recovery's initialize result is not
// delivered.
func TestOneRecoveryForConcurrentExpiries(t *testing.T) {
	type facts struct {
		inits         int
		reinitSession string
		retried       []string
		failed        int
	}
	reference := facts{inits: 2, retried: []string{"10", "11"}}
	for _, tc := range []struct {
		m    mutant.Name
		want func(f facts) bool
	}{
		{"", func(f facts) bool {
			return f.inits == 2 && f.reinitSession == "" && slices.Equal(f.retried, reference.retried) && f.failed == 0
		}},
		{mutant.RecoveryPerRequest, func(f facts) bool { return f.inits == 3 }},
		{mutant.ReinitKeepsSessionID, func(f facts) bool { return f.reinitSession == "s1" }},
		{mutant.RetryNewIDs, func(f facts) bool { return len(f.retried) == 2 && !slices.Equal(f.retried, reference.retried) }},
		{mutant.NoReinit, func(f facts) bool { return f.inits == 1 && f.failed == 2 }},
	} {
		t.Run(caseName(tc.m), func(t *testing.T) {
			var mu sync.Mutex
			arrived := 0
			both := make(chan struct{})
			var s *rig
			s = newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() != "tools/call" || q.session() != "s1" {
					return false
				}
				mu.Lock()
				if arrived++; arrived == 2 {
					s.expire("s1")
					close(both)
				}
				mu.Unlock()
				holdUntil(q, both)
				http.Error(w, "session expired", http.StatusNotFound)
				return true
			})
			c := dialRig(t, s, withMutant(tc.m))
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
			clientSend(t, c, rpcRequest(t, 11, "tools/call", callParams))
			var f facts
			for key, o := range outcomes(t, c, 2) {
				switch {
				case o.err != nil:
					f.failed++
					if !errIs(o.err, failure.ErrConnection, ErrSessionExpired) {
						t.Errorf("request %s failed with %v; want session expired", key, o.err)
					}
				case tc.m == "" && key != "10" && key != "11":
					t.Errorf("a response to %s was delivered", key)
				}
			}
			inits := s.requests("initialize")
			f.inits, f.retried = len(inits), idsOn(s, "tools/call", "s1")
			if len(inits) > 1 {
				f.reinitSession = inits[1].session()
				if !bytes.Equal(inits[0].msg().Params, inits[1].msg().Params) {
					t.Errorf("the fresh initialize has params %s, want the original %s", inits[1].msg().Params, inits[0].msg().Params)
				}
			}
			if tc.m == "" {
				after := s.requests("notifications/initialized")
				if len(after) != 2 || after[1].session() != "s2" {
					t.Errorf("notifications/initialized %d times, want twice, the second on s2", len(after))
				}
			}
			if !tc.want(f) {
				t.Errorf("mutant %q: %+v; reference %+v", tc.m, f, reference)
			}
		})
	}
}

// errIs reports whether err has failure kind and cause.
func errIs(err, kind, cause error) bool {
	return errors.Is(err, kind) && errors.Is(err, cause)
}

// TestExpiryWithoutReinit: RM-05: without ReinitOnExpiredSession a 404 on
// a request with a session id fails it as session expired, with no new
// handshake.
func TestExpiryWithoutReinit(t *testing.T) {
	s := newRig(t, nil)
	c := dialRig(t, s, func(cfg *Config) { cfg.ReinitOnExpiredSession = false })
	handshake(t, c, s)
	s.expire("s1")
	clientSend(t, c, rpcRequest(t, 10, "ping", nil))
	wantFailure(t, c, jsonrpc.IntID(10), failure.ErrConnection, ErrSessionExpired)
	if n := len(s.requests("initialize")); n != 1 {
		t.Fatalf("%d initialize requests, want 1", n)
	}
}

// Test404WithoutSessionIDIsAnHTTPError: RM-04: a 404 to a request that
// carried no session id (a stateless session) is an ordinary HTTP error,
// not an expiry: no recovery.
func Test404WithoutSessionIDIsAnHTTPError(t *testing.T) {
	s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
		switch q.rpc() {
		case "initialize":
			rigJSON(w, initResultFor(q.msg()))
		case "ping":
			http.Error(w, "not here", http.StatusNotFound)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
		return true
	})
	c := dialRig(t, s, func(cfg *Config) { cfg.AllowStateless = true })
	handshake(t, c, s)
	clientSend(t, c, rpcRequest(t, 10, "ping", nil))
	err := wantFailure(t, c, jsonrpc.IntID(10), failure.ErrConnection, nil)
	if errors.Is(err, ErrSessionExpired) || !bytes.Contains([]byte(err.Error()), []byte("404")) {
		t.Fatalf("failure %v; want an HTTP 404 error, not a session expiry", err)
	}
	if n := len(s.requests("initialize")); n != 1 {
		t.Fatalf("%d initialize requests, want 1", n)
	}
}

// TestRetryThatMeets404AgainFails: RM-08: the retry on the new session
// meets 404 again and the call fails, after exactly one retry and one new
// handshake; RetryTwice retries again.
func TestRetryThatMeets404AgainFails(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.RetryTwice} {
		t.Run(caseName(m), func(t *testing.T) {
			var s *rig
			s = newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() != "ping" {
					return false
				}
				s.expire(q.session())
				http.Error(w, "session expired", http.StatusNotFound)
				return true
			})
			c := dialRig(t, s, withMutant(m))
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "ping", nil))
			wantFailure(t, c, jsonrpc.IntID(10), failure.ErrConnection, ErrSessionExpired)
			want := map[mutant.Name]int{"": 2, mutant.RetryTwice: 3}[m]
			if pings, inits := len(s.requests("ping")), len(s.requests("initialize")); pings != want || inits != want {
				t.Fatalf("ping sent %d times and initialize %d times; want %d of each", pings, inits, want)
			}
		})
	}
}

// TestOlderPOSTsAndTheRecoveryWait: RM-05 step 1, RM-07: the recovery
// waits for the session's older POST before the new handshake; an older
// POST that ends in time keeps its answer and is not retried; one still
// unfinished when SessionRecoveryTimeout passes fails with a recovery
// timeout and is never sent again. NoRecoveryWait re-initializes at once
// and replays the older POST.
func TestOlderPOSTsAndTheRecoveryWait(t *testing.T) {
	for _, tc := range []struct {
		m          mutant.Name
		endsInTime bool
	}{
		{"", true},
		{"", false},
		{mutant.NoRecoveryWait, true},
		{mutant.NoRecoveryWait, false},
	} {
		name := caseName(tc.m) + map[bool]string{true: " older ends in time", false: " older outlives the wait"}[tc.endsInTime]
		t.Run(name, func(t *testing.T) {
			release := make(chan struct{})
			var once sync.Once
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() != "tools/call" || q.session() != "s1" {
					return false
				}
				holdUntil(q, release)
				rigJSON(w, rigAnswer(q.msg()))
				return true
			})
			c := dialRig(t, s, func(cfg *Config) {
				cfg.Mutant = tc.m
				if tc.endsInTime {
					cfg.SessionRecoveryTimeout = clientWait
				}
			})
			defer once.Do(func() { close(release) })
			handshake(t, c, s)
			clientSend(t, c, rpcRequest(t, 10, "tools/call", callParams))
			s.want(t, "tools/call")
			s.expire("s1")
			clientSend(t, c, rpcRequest(t, 11, "ping", nil))
			s.want(t, "ping")
			if tc.m == "" && tc.endsInTime {
				s.wantNothingWithin(t, clientQuiet, "the recovery waits for the older POST")
				once.Do(func() { close(release) })
			} else {
				init := s.want(t, "initialize")
				if tc.m == "" && init.At.Sub(s.requests("ping")[0].At) < clientQuiet*3/4 {
					t.Errorf("the new handshake came %v after the expiry, before the recovery wait of %v", init.At.Sub(s.requests("ping")[0].At), clientQuiet)
				}
			}
			got := outcomes(t, c, 2)
			if got["11"].err != nil {
				t.Errorf("the expired ping failed: %v", got["11"].err)
			}
			sent := len(idsOn(s, "tools/call", ""))
			switch {
			case tc.m == mutant.NoRecoveryWait:
				if sent != 2 {
					t.Errorf("the older call was sent %d times; the mutant replays it", sent)
				}
			case tc.endsInTime:
				if got["10"].err != nil || sent != 1 {
					t.Errorf("the older call: %v, sent %d times; want its answer, sent once", got["10"].err, sent)
				}
			default:
				if !errIs(got["10"].err, failure.ErrTimeout, ErrSessionRecoveryTimeout) || sent != 1 {
					t.Errorf("the older call: %v, sent %d times; want a recovery timeout, sent once", got["10"].err, sent)
				}
			}
		})
	}
}

// TestFailedRecoveryFailsTheCall: RM-08: a new handshake that fails (an
// HTTP error, no session id, or no answer within SessionRecoveryTimeout)
// fails the expired call; nothing is retried, and a later expired call
// does not start a loop of handshakes.
func TestFailedRecoveryFailsTheCall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply func(w http.ResponseWriter, q *seen)
		kind  error
		cause error
	}{
		{"HTTP error", func(w http.ResponseWriter, q *seen) { http.Error(w, "down", http.StatusServiceUnavailable) }, failure.ErrConnection, ErrRecoveryFailed},
		{"no session id", func(w http.ResponseWriter, q *seen) { rigJSON(w, initResultFor(q.msg())) }, failure.ErrProtocol, ErrNoSessionID},
		{"no answer", func(w http.ResponseWriter, q *seen) { <-q.ctx.Done() }, failure.ErrTimeout, ErrRecoveryFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var inits atomic.Int32
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() != "initialize" {
					return false
				}
				if inits.Add(1) == 1 {
					return false
				}
				tc.reply(w, q)
				return true
			})
			// A recovery handshake without a session id fails only when
			// stateless servers are refused.
			c := dialRig(t, s, func(cfg *Config) { cfg.AllowStateless = false })
			handshake(t, c, s)
			s.expire("s1")
			began := time.Now()
			clientSend(t, c, rpcRequest(t, 10, "ping", nil))
			wantFailure(t, c, jsonrpc.IntID(10), tc.kind, tc.cause)
			if took := time.Since(began); took > clientWait/2 {
				t.Errorf("the failure came after %v", took)
			}
			clientSend(t, c, rpcRequest(t, 11, "ping", nil))
			wantFailure(t, c, jsonrpc.IntID(11), tc.kind, tc.cause)
			if pings, n := len(s.requests("ping")), len(s.requests("initialize")); pings != 2 || n != 2 {
				t.Fatalf("ping sent %d times, initialize %d times; want 2 and 2 (no retry, no second recovery)", pings, n)
			}
		})
	}
}

// TestControlDuringRecovery: RM-02, RM-06: a cancellation sent while the
// session is being recovered goes at once, not behind the recovery, and is
// not sent again on the new session; RetryControl sends it again.
func TestControlDuringRecovery(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.RetryControl} {
		t.Run(caseName(m), func(t *testing.T) {
			releaseInit := make(chan struct{})
			var inits atomic.Int32
			s := newRig(t, func(w http.ResponseWriter, q *seen) bool {
				if q.rpc() == "initialize" {
					if inits.Add(1) == 2 {
						holdUntil(q, releaseInit)
					}
				}
				return false
			})
			c := dialRig(t, s, func(cfg *Config) { cfg.Mutant, cfg.SessionRecoveryTimeout = m, clientWait })
			handshake(t, c, s)
			s.expire("s1")
			clientSend(t, c, rpcRequest(t, 10, "ping", nil))
			s.want(t, "ping")
			s.want(t, "initialize")
			cancel, _ := jsonrpc.NewNotification("notifications/cancelled", map[string]any{"requestId": 9})
			clientSend(t, c, cancel)
			if q := s.want(t, "notifications/cancelled"); q.session() != "s1" {
				t.Fatalf("the cancellation carried session %q, want s1", q.session())
			}
			close(releaseInit)
			wantResponse(t, c, jsonrpc.IntID(10))
			if m == "" {
				for range 2 {
					s.want(t, "") // notifications/initialized and the retried ping
				}
				s.wantNothingWithin(t, clientQuiet, "a control POST is never retried")
				return
			}
			deadline := time.After(clientWait)
			for len(s.requests("notifications/cancelled")) < 2 {
				select {
				case <-s.arrived:
				case <-deadline:
					t.Fatal("the mutant did not retry the cancellation")
				}
			}
		})
	}
}
