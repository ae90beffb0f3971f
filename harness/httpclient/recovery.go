package httpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// recovery is the one recovery of an expired session that all its expired
// ordinary POSTs share (RM-05).
type recovery struct {
	done chan struct{}  // closed when it is over
	err  *failure.Error // why it failed; nil when the new session is current
}

// opRecovery names the recovery in failures.
const opRecovery = "session recovery"

// afterExpiry handles an ordinary POST that met 404 on a session (RM-04):
// with ReinitOnExpiredSession it waits for the session's shared recovery
// and reports whether to retry the POST once on the new session (RM-05); a
// retry that meets 404 again, a failed recovery, or a client that does not
// recover fails the POST's requests (RM-08).
func (c *Client) afterExpiry(x *exchange) bool {
	o := x.out
	limit := 1
	if c.cfg.Mutant == mutant.RetryTwice {
		limit = 2
	}
	switch {
	case !c.cfg.ReinitOnExpiredSession || c.cfg.Mutant == mutant.NoReinit:
		c.failOut(o, causedBy(failure.ErrConnection, o.op(),
			"HTTP 404 to a request with a session id: the session expired (RM-04) and ReinitOnExpiredSession is off", ErrSessionExpired))
		return false
	case o.retries >= limit:
		c.failOut(o, causedBy(failure.ErrConnection, o.op(),
			"HTTP 404 again on the retry after the session was recovered; not retried again (RM-08)", ErrSessionExpired))
		return false
	}
	r := c.joinRecovery(x.sess)
	select {
	case <-r.done:
	case <-c.done:
		return false
	}
	if r.err != nil {
		c.failOut(o, r.err)
		return false
	}
	if c.cfg.Mutant == mutant.NoRetryAfterReinit {
		c.failOut(o, causedBy(failure.ErrConnection, o.op(),
			"HTTP 404 to a request with a session id: the session expired (RM-04); a new session is ready, the call is not retried", ErrSessionExpired))
		return false
	}
	o.retries++
	if c.cfg.Mutant == mutant.RetryNewIDs {
		c.renumber(o)
	}
	return true
}

// joinRecovery returns sess's recovery, starting it if this is the first
// POST of sess to meet 404. The recovery waits for the POSTs of sess in
// progress now (RM-05 step 1).
func (c *Client) joinRecovery(sess *session) *recovery {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sess.recovery != nil && c.cfg.Mutant != mutant.RecoveryPerRequest {
		return sess.recovery
	}
	r := &recovery{done: make(chan struct{})}
	sess.recovery = r
	older := make([]*exchange, 0, len(sess.inflight))
	for x := range sess.inflight {
		older = append(older, x)
	}
	if !c.spawnLocked(func() { c.recover(sess, r, older) }) {
		r.err = failure.New(failure.ErrShutdown, opRecovery, "the client is closed")
		close(r.done)
	}
	return r
}

// awaitRecovery holds new ordinary POSTs while the current session is being
// recovered, so they go out on the new one (RM-05); false when the client
// is closed.
func (c *Client) awaitRecovery() bool {
	c.mu.Lock()
	r := c.sess.recovery
	c.mu.Unlock()
	if r == nil {
		return true
	}
	select {
	case <-r.done:
		return true
	case <-c.done:
		return false
	}
}

// recover runs the recovery of expired session sess: wait for its older
// POSTs (RM-05 step 1, RM-07), repeat the original handshake without the
// session id (step 2, HT-57), make the new session current and reopen its
// GET stream. The expired POSTs then retry themselves (step 3).
func (c *Client) recover(sess *session, r *recovery, older []*exchange) {
	defer close(r.done)
	replay, ok := c.waitOlder(older)
	if !ok {
		r.err = failure.New(failure.ErrShutdown, opRecovery, "the client is closed")
		return
	}
	c.stopGETStream(sess)
	next, err := c.reinitialize(sess)
	if err != nil {
		r.err = err
		return
	}
	c.mu.Lock()
	if c.sess == sess || c.cfg.Mutant == mutant.RecoveryPerRequest {
		c.sess = next
	}
	c.mu.Unlock()
	c.openGETStream(next)
	for _, o := range replay {
		c.spawn(func() {
			if release, ok := c.slots.acquire(c.done); ok {
				c.runOrdinary(o, release)
			}
		})
	}
}

// waitOlder waits up to SessionRecoveryTimeout for the older POSTs to end.
// Those still unfinished are given up: they fail with a recovery timeout and
// are never retried, since the server may have run them (RM-07). Mutant
// NoRecoveryWait gives them up at once and returns them to be replayed. ok
// is false when the client was closed.
func (c *Client) waitOlder(older []*exchange) (replay []*outbound, ok bool) {
	if c.cfg.Mutant == mutant.NoRecoveryWait {
		for _, x := range older {
			if x.abandon() {
				o := *x.out
				replay = append(replay, &o)
			}
		}
		return replay, true
	}
	timer := time.NewTimer(c.cfg.SessionRecoveryTimeout)
	defer timer.Stop()
wait:
	for _, x := range older {
		select {
		case <-x.ended:
		case <-timer.C:
			break wait
		case <-c.done:
			return nil, false
		}
	}
	for _, x := range older {
		if !x.abandon() {
			continue
		}
		f := causedBy(failure.ErrTimeout, x.out.op(), fmt.Sprintf(
			"still unfinished when the session expired and the recovery wait of %v ended; not retried, since the server may have run it (RM-07)",
			c.cfg.SessionRecoveryTimeout), ErrSessionRecoveryTimeout)
		// Reported aside, so the recovery never waits for the reader.
		c.spawn(func() { c.failOut(x.out, f) })
	}
	return nil, true
}

// reinitialize repeats the original initialize request (same params, an id
// of its own, no session id: HT-57) and notifications/initialized on the
// new session, all within SessionRecoveryTimeout (RM-05). The initialize
// result is not delivered; other messages on its stream are.
func (c *Client) reinitialize(old *session) (*session, *failure.Error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.SessionRecoveryTimeout)
	defer cancel()
	c.mu.Lock()
	init := c.initMsg
	c.mu.Unlock()
	if init == nil {
		return nil, causedBy(failure.ErrConnection, opRecovery, "the session expired but no initialize was sent to repeat", ErrRecoveryFailed)
	}
	req := &jsonrpc.Message{ID: jsonrpc.StringID(fmt.Sprintf("mcpconform-reinitialize-%d", c.reinits.Add(1))), Method: "initialize", Params: init.Params}
	var via *session
	if c.cfg.Mutant == mutant.ReinitKeepsSessionID {
		via = &session{id: old.id}
	}
	res, h, err := c.roundTrip(ctx, req, via)
	if err != nil {
		return nil, recoveryFailure(ctx, "initialize", err)
	}
	if res.Error != nil {
		return nil, recoveryFailure(ctx, "initialize", fmt.Errorf("the server refused it: %w", res.Error))
	}
	id, f := sessionIDOf(c.cfg, h, opRecovery)
	if f != nil {
		return nil, f
	}
	next := newSession(id, protocolVersionOf(res.Result))
	note := &jsonrpc.Message{Method: "notifications/initialized"}
	if _, _, err := c.roundTrip(ctx, note, next); err != nil {
		return nil, recoveryFailure(ctx, "notifications/initialized", err)
	}
	return next, nil
}

// recoveryFailure is the failure of a recovery's handshake step.
func recoveryFailure(ctx context.Context, step string, err error) *failure.Error {
	kind := failure.ErrConnection
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		kind = failure.ErrTimeout
	}
	return causedBy(kind, opRecovery, fmt.Sprintf("the new handshake failed at %s: %v", step, err), ErrRecoveryFailed)
}

// roundTrip POSTs m outside the queues and returns the response to it (nil
// for a notification) and the response headers. Other messages on a
// response stream are delivered.
func (c *Client) roundTrip(ctx context.Context, m *jsonrpc.Message, sess *session) (*jsonrpc.Message, http.Header, error) {
	body, err := jsonrpc.Encode(m)
	if err != nil {
		return nil, nil, err
	}
	req, err := c.newRequest(ctx, http.MethodPost, body, sess)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, nil, statusFailure("POST "+m.Method, resp)
	}
	if m.ID.IsZero() {
		return nil, resp.Header, nil
	}
	var answer *jsonrpc.Message
	take := func(in *jsonrpc.Message) bool {
		if k := in.Kind(); (k == jsonrpc.KindResult || k == jsonrpc.KindError) && in.ID.Key() == m.ID.Key() {
			answer = in
			return true
		}
		return !c.deliver(in)
	}
	if isSSE(resp) {
		err = c.consume(resp.Body, &streamState{}, take)
	} else {
		err = c.takeJSON(resp, take)
	}
	if answer == nil {
		if err == nil || errors.Is(err, io.EOF) {
			err = errors.New("the response carries no result for it")
		}
		return nil, nil, err
	}
	return answer, resp.Header, nil
}

// renumber gives o's requests new ids: mutant RetryNewIDs, which breaks the
// retry-with-the-original-id rule of RM-05.
func (c *Client) renumber(o *outbound) {
	m := *o.msgs[0]
	m.ID = jsonrpc.StringID(fmt.Sprintf("mcpconform-retry-%d", c.reinits.Add(1)))
	if body, err := jsonrpc.Encode(&m); err == nil {
		o.msgs, o.body = []*jsonrpc.Message{&m}, body
	}
}
