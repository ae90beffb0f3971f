package httpclient

import (
	"bytes"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// outbound is one POST body waiting to go or going: one message (several
// only under mutant BatchPOSTs).
type outbound struct {
	msgs    []*jsonrpc.Message
	body    []byte
	control bool              // a cancellation or a reply (RM-02)
	retries int               // times it was retried after session expiry (RM-05, RM-08)
	headers map[string]string // the message's own headers (Mcp-Param-*)
}

// requestIDs returns the ids of the requests o carries.
func (o *outbound) requestIDs() []jsonrpc.ID {
	var ids []jsonrpc.ID
	for _, m := range o.msgs {
		if m.Kind() == jsonrpc.KindRequest {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// is reports whether o is the single message of method.
func (o *outbound) is(method string) bool {
	return len(o.msgs) == 1 && o.msgs[0].Method == method
}

// op names o in failures: "POST tools/call".
func (o *outbound) op() string {
	switch m := o.msgs[0]; {
	case len(o.msgs) > 1:
		return "POST batch"
	case m.Method != "":
		return "POST " + m.Method
	default:
		return "POST response " + m.ID.String()
	}
}

// isControl reports whether m is control traffic: notifications/cancelled,
// a reply to a server request (RM-02), or progress on one, which goes in
// the reply's queue so that it reaches the server before the reply (PR-08).
func (c *Client) isControl(m *jsonrpc.Message) bool {
	if c.cfg.Mutant == mutant.ControlWaitsBehindPOSTs {
		return false
	}
	k := m.Kind()
	return k == jsonrpc.KindResult || k == jsonrpc.KindError || m.Method == "notifications/cancelled" || m.Method == "notifications/progress"
}

// queue is an unbounded FIFO of outbounds, so Send never blocks.
type queue struct {
	mu    sync.Mutex
	items []*outbound
	ready chan struct{} // signalled after a push
}

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

func (q *queue) push(o *outbound) {
	q.mu.Lock()
	q.items = append(q.items, o)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// wait waits until the queue holds an item; false when done closes first.
func (q *queue) wait(done <-chan struct{}) bool { return q.gather(1, done, nil) }

// gather waits until the queue holds n items; false when done closes or
// limit fires first.
func (q *queue) gather(n int, done <-chan struct{}, limit <-chan time.Time) bool {
	for {
		q.mu.Lock()
		held := len(q.items)
		q.mu.Unlock()
		if held >= n {
			return true
		}
		select {
		case <-q.ready:
		case <-done:
			return false
		case <-limit:
			return false
		}
	}
}

// take removes the oldest item, or every item merged into one JSON array
// body when batch is set (mutant BatchPOSTs, which breaks HT-10 and HT-13).
// It returns nil when the queue was emptied meanwhile.
func (q *queue) take(batch bool) *outbound {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil
	}
	if !batch || len(q.items) == 1 {
		o := q.items[0]
		q.items[0] = nil
		q.items = q.items[1:]
		return o
	}
	merged := &outbound{}
	bodies := make([][]byte, 0, len(q.items))
	for _, o := range q.items {
		merged.msgs = append(merged.msgs, o.msgs...)
		bodies = append(bodies, o.body)
	}
	merged.body = append(append([]byte("["), bytes.Join(bodies, []byte(","))...), ']')
	q.items = nil
	return merged
}

// peek returns the oldest item, nil when there is none.
func (q *queue) peek() *outbound {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil
	}
	return q.items[0]
}

// drop forgets every queued item (RM-13).
func (q *queue) drop() {
	q.mu.Lock()
	q.items = nil
	q.mu.Unlock()
}

// slots bounds the ordinary POSTs in progress (RM-01); a nil semaphore has
// no bound (only under mutants and the no-concurrency-cap variant).
type slots struct{ sem chan struct{} }

// newSlots returns max(n, 1) slots: 0 means 1 (RM-01).
func newSlots(n int, m mutant.Name) *slots {
	switch {
	case m == mutant.NoConcurrencyLimit || m == mutant.NoConcurrencyCap:
		return &slots{}
	case n == 0 && m == mutant.ConcurrencyZeroUnlimited:
		return &slots{}
	}
	return &slots{sem: make(chan struct{}, max(n, 1))}
}

// acquire takes a slot and returns its release, which may be called more
// than once; false when done closes first.
func (s *slots) acquire(done <-chan struct{}) (func(), bool) {
	if s.sem == nil {
		return func() {}, true
	}
	select {
	case s.sem <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-s.sem }) }, true
	case <-done:
		return nil, false
	}
}

// dispatchOrdinary starts the ordinary POSTs in order, each when a slot is
// free (RM-01) and no recovery of the session is running (RM-05), until the
// client is closed. notifications/initialized is a barrier: nothing after it
// starts before the server has accepted it, so concurrent POSTs never
// overtake the end of the handshake (LC-05).
func (c *Client) dispatchOrdinary() {
	for c.ordinary.wait(c.done) && c.awaitRecovery() {
		release, ok := c.slots.acquire(c.done)
		if !ok {
			return
		}
		if c.cfg.Mutant == mutant.BatchPOSTs {
			// Hold a tool call until a second message can share its body.
			if o := c.ordinary.peek(); o != nil && o.is("tools/call") {
				c.ordinary.gather(2, c.done, time.After(time.Second))
			}
		}
		o := c.ordinary.take(c.cfg.Mutant == mutant.BatchPOSTs)
		if o == nil {
			release()
			continue
		}
		barrier := o.is("notifications/initialized")
		ended := make(chan struct{})
		if !c.spawn(func() {
			defer close(ended)
			c.runOrdinary(o, release)
		}) {
			release()
			return
		}
		if barrier {
			select {
			case <-ended:
			case <-c.done:
				return
			}
		}
	}
}

// dispatchControl runs the control POSTs one at a time in their own slot,
// beside the ordinary ones and never behind them or a recovery (RM-02).
func (c *Client) dispatchControl() {
	for c.control.wait(c.done) {
		if o := c.control.take(false); o != nil {
			c.runControl(o)
		}
	}
}
