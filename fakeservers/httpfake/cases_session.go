package httpfake

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The session cases script HT-56/HT-57 and RM-04 … RM-08: sessions that
// expire, once or again, while calls are in flight or during recovery. Only
// the first session misbehaves unless a case says otherwise, so a client
// that re-initializes sees its retries succeed.

func expireAfter(o Options) (*behaviour, error) {
	if o.ExpireAfter <= 0 {
		return nil, errors.New("ExpireAfter is required: the number of POSTs carrying the first session id before it expires")
	}
	return &behaviour{expireFirstAfter: o.ExpireAfter}, nil
}

// firstSession reports whether x carries the first session the fake made.
func firstSession(x *exchange) bool { return x.sess != nil && x.sess.index == 0 }

// inflight gathers the calls of the first session until n are in progress.
type inflight struct {
	n     int
	mu    sync.Mutex
	count int
	fired chan struct{} // closed when the session expired
	once  sync.Once
}

// arrive counts one more call; it fires the expiry when n are in.
func (g *inflight) arrive(x *exchange) {
	g.mu.Lock()
	g.count++
	full := g.count >= g.n
	g.mu.Unlock()
	if full {
		g.fire(x)
	}
}

// fire expires the first session and releases every gathered call, once.
func (g *inflight) fire(x *exchange) {
	g.once.Do(func() {
		x.f.expireSession(x.sess)
		close(g.fired)
	})
}

func expireInflight(o Options) (*behaviour, error) {
	g := &inflight{n: o.Tools, fired: make(chan struct{})}
	return &behaviour{
		tools: numberedTools("slow-", o.Tools),
		call: func(x *exchange, c fakeservers.ToolCall) {
			if !firstSession(x) {
				x.json(c.OK())
				return
			}
			g.arrive(x)
			if x.wait(g.fired, o.Delay) == waitGone {
				return
			}
			g.fire(x)
			x.expire()
		},
	}, nil
}

// expireOldPending: in the first session "old" blocks Delay, then gets 404;
// "new" waits until "old" is in progress (at most Delay, so a client that
// sends both at once may send them in either order), then expires the
// session and gets 404. So "old" is still pending when the session expires.
func expireOldPending(o Options) (*behaviour, error) {
	oldArrived := make(chan struct{})
	var once sync.Once
	return &behaviour{
		tools: []string{"old", "new"},
		call: func(x *exchange, c fakeservers.ToolCall) {
			if !firstSession(x) {
				x.json(c.OK())
				return
			}
			switch c.Name {
			case "old":
				once.Do(func() { close(oldArrived) })
				if x.wait(nil, o.Delay) == waitTimeout {
					x.expire()
				}
			case "new":
				if x.wait(oldArrived, o.Delay) != waitGone {
					x.expire()
				}
			default:
				x.json(c.OK())
			}
		},
	}, nil
}

func recoveryHangs(o Options) (*behaviour, error) {
	var expired, recovered atomic.Bool
	return &behaviour{
		tools: numberedTools("t", o.Tools),
		call: func(x *exchange, c fakeservers.ToolCall) {
			if o.Delay > 0 && recovered.Load() {
				// Take a fifth of Delay, so whatever the client does right
				// after the recovery reaches the fake before it closes.
				if x.wait(nil, o.Delay/5) == waitTimeout {
					x.json(c.OK())
				}
				return
			}
			expired.Store(true)
			x.expire()
		},
		initialize: func(x *exchange, _ *jsonrpc.Message) bool {
			if !expired.Load() {
				return true
			}
			if o.Delay <= 0 {
				x.hold()
				return false
			}
			if x.wait(nil, o.Delay) != waitTimeout {
				return false
			}
			recovered.Store(true)
			return true
		},
	}, nil
}
