package httpserver

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/harness/sse"
)

// sessionLock is a session's mutex with a broadcast: a waiter sleeps until
// any stream of the session changes.
type sessionLock struct {
	sync.Mutex
	wake chan struct{}
}

func newSessionLock() *sessionLock { return &sessionLock{wake: make(chan struct{})} }

// broadcast wakes every waiter; call it with the lock held.
func (l *sessionLock) broadcast() {
	close(l.wake)
	l.wake = make(chan struct{})
}

// waitLocked releases the session's lock until one of its streams changes,
// ctx ends or the session ends; it is called and returns with the lock held.
func (sess *Session) waitLocked(ctx context.Context) error {
	wake, ended := sess.mu.wake, sess.ctx.Done()
	sess.mu.Unlock()
	defer sess.mu.Lock()
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-ended:
		return ErrSessionEnded
	}
}

// serverStream is one logical SSE stream of a session: the GET stream, or the
// stream answering one POST. Its events are numbered from 1 and kept in a
// bounded history, so a client can resume after any event it received
// (HT-45, HT-46). At most one connection reads the stream at a time, and it
// claims events before writing them, so each event goes out once unless the
// client asks for a replay (HT-41). The session's lock guards every field.
type serverStream struct {
	sess   *Session
	id     string
	next   int64         // sequence number of the next event
	events []streamEvent // the history, oldest first
	cursor int64         // events up to this one are claimed by a connection
	reader *http.Request // the request whose connection reads the stream
	ended  bool          // nothing follows the last event
	// closing is a reader whose connection closes once it has written the
	// events up to closeAfter, while the stream goes on (disconnect).
	closing    *http.Request
	closeAfter int64
}

// streamEvent is one event of a stream.
type streamEvent struct {
	seq  int64
	id   string
	data []byte // the encoded message; nil for a priming event
	sent bool   // a priming event goes out once and is never replayed
}

// fullPolicy says what push does when the stream's history holds only
// undelivered events.
type fullPolicy int

const (
	// waitWhenFull: wait while a connection reads the stream; without one,
	// drop the oldest undelivered event, since nobody is listening.
	waitWhenFull fullPolicy = iota
	// refuseWhenFull: fail with ErrBacklogFull.
	refuseWhenFull
)

var errStreamEnded = errors.New("the stream has ended: its response went out")

// push appends one encoded message to the stream.
func (st *serverStream) push(ctx context.Context, data []byte, policy fullPolicy) error {
	sess := st.sess
	sess.mu.Lock()
	defer sess.mu.Unlock()
	for {
		switch {
		case sess.closed:
			return ErrSessionEnded
		case st.ended:
			return errStreamEnded
		}
		st.trimLocked()
		if len(st.events) >= sess.srv.cfg.HistoryEvents {
			switch {
			case policy == refuseWhenFull:
				return ErrBacklogFull
			case st.reader != nil:
				if err := sess.waitLocked(ctx); err != nil {
					return err
				}
				continue
			}
			st.events = slices.Delete(st.events, 0, 1)
		}
		st.add(data)
		return nil
	}
}

// add appends an event (a priming event when data is nil) and wakes the
// reader; call it with the lock held.
func (st *serverStream) add(data []byte) {
	seq := st.next
	st.next++
	st.events = append(st.events, streamEvent{seq: seq, id: st.sess.srv.eventID(st.id, seq), data: data})
	st.sess.mu.broadcast()
}

// trimLocked forgets the oldest delivered events beyond the history size.
func (st *serverStream) trimLocked() {
	n := 0
	for n < len(st.events) && len(st.events)-n >= st.sess.srv.cfg.HistoryEvents && st.events[n].seq <= st.cursor {
		n++
	}
	st.events = slices.Delete(st.events, 0, n)
}

// end marks the stream finished: its connection ends once it has written
// every event.
func (st *serverStream) end() {
	st.sess.mu.Lock()
	defer st.sess.mu.Unlock()
	if st.ended {
		return
	}
	st.ended = true
	if st != st.sess.get {
		st.sess.retireLocked(st)
	}
	st.sess.mu.broadcast()
}

// attach makes the connection of r the stream's only reader; a connection
// that read it before stops. With after >= 0 the stream rewinds to just after
// that event, a resumption (HT-45). With prime, a stream that has nothing to
// deliver first gets a priming event (HT-28); otherwise its next event, which
// carries an id, serves the same end.
func (st *serverStream) attach(r *http.Request, after int64, prime bool) error {
	sess := st.sess
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.closed {
		return ErrSessionEnded
	}
	if after >= 0 {
		st.cursor = after
	}
	st.reader, st.closing = r, nil
	if prime && !st.ended && st.cursor == st.next-1 {
		st.trimLocked()
		st.add(nil)
	}
	sess.mu.broadcast()
	return nil
}

// detach lets go of the stream if r still reads it.
func (st *serverStream) detach(r *http.Request) {
	st.sess.mu.Lock()
	defer st.sess.mu.Unlock()
	if st.reader == r {
		st.reader = nil
		st.sess.mu.broadcast()
	}
}

// disconnect closes the connection that reads the stream once it has
// written the events pushed so far, the priming event among them, without
// ending the stream: what follows waits in the history until the client
// resumes with GET and Last-Event-ID (HT-29a, HT-45). The priming event
// carries the retry field that tells the client when to (HT-29b). A stream
// without a reader, or one that has ended, has no connection to close.
func (st *serverStream) disconnect() {
	sess := st.sess
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if st.reader == nil || st.ended {
		return
	}
	st.closing, st.closeAfter = st.reader, st.next-1
	sess.mu.broadcast()
}

// pump writes the stream's events to the connection of r until the stream
// has ended and every event is written, the handler closes the connection
// (disconnect), another connection takes the stream over, the session ends,
// or the client goes away.
func (st *serverStream) pump(r *http.Request, sw *sse.Writer) {
	defer st.detach(r)
	for {
		batch, done := st.claim(r)
		for _, e := range batch {
			if sw.Event(e.id, e.data) != nil {
				return
			}
		}
		if len(batch) > 0 && sw.Flush() != nil {
			return
		}
		if done {
			return
		}
	}
}

// claim waits for events that the connection of r has not written yet and
// takes them. done says the connection should stop after writing them: the
// stream has ended, or its connection is closing (disconnect), in which case
// it takes no event pushed after the disconnect.
func (st *serverStream) claim(r *http.Request) (batch []streamEvent, done bool) {
	sess := st.sess
	sess.mu.Lock()
	defer sess.mu.Unlock()
	for {
		if st.reader != r || sess.closed {
			return nil, true
		}
		last, closing := st.next-1, st.closing == r
		if closing {
			last = st.closeAfter
		}
		for i := range st.events {
			e := &st.events[i]
			if e.seq <= st.cursor || e.seq > last || (e.data == nil && e.sent) {
				continue
			}
			e.sent = true
			batch = append(batch, *e)
		}
		if st.cursor < last {
			st.cursor = last
			sess.mu.broadcast()
		}
		if closing {
			return batch, true
		}
		if len(batch) > 0 {
			return batch, false
		}
		if st.ended {
			return nil, true
		}
		if sess.waitLocked(r.Context()) != nil {
			return nil, true
		}
	}
}
