package httpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/sse"
)

// streamState is one logical SSE stream across its reconnections.
type streamState struct {
	lastID    []byte        // the last non-empty event id seen (HT-45), kept in a buffer of its own (no allocation per event); an empty id field does not reset it
	retry     time.Duration // the server's last retry field (HT-29b)
	hasRetry  bool
	delivered bool // a message arrived since the last (re)connection
}

// errBadEventData marks an event whose data is not JSON-RPC.
var errBadEventData = errors.New("SSE event data is not a JSON-RPC message")

// consume reads events from body and hands each JSON-RPC message to take
// until take says stop (nil is returned then), the stream ends, or it
// fails: an oversize event (sse.ErrEventTooLarge, RM-09) or data that is not
// JSON-RPC (errBadEventData). Comments, and events of a type other than
// "message" or without data, carry no message; one object that is no valid
// request is answered and skipped (skipInvalid, JR-21).
func (c *Client) consume(body io.Reader, st *streamState, take func(*jsonrpc.Message) (stop bool)) error {
	rd := sse.NewMutantReader(body, c.cfg.MaxSSEEventSize, c.cfg.Mutant)
	for {
		ev, err := rd.NextBytes()
		if err != nil {
			return err
		}
		if len(ev.ID) > 0 {
			st.lastID = append(st.lastID[:0], ev.ID...)
		}
		if ev.HasRetry {
			st.retry, st.hasRetry = ev.Retry, true
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 || (len(ev.Type) > 0 && string(ev.Type) != "message") {
			continue
		}
		msgs, err := decodeMessages(ev.Data)
		if err != nil && c.skipInvalid(ev.Data, err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%w: %v", errBadEventData, err)
		}
		if c.cfg.Mutant == mutant.BatchDropped && bytes.HasPrefix(bytes.TrimSpace(ev.Data), []byte("[")) {
			continue
		}
		st.delivered = true
		for _, m := range msgs {
			if take(m) {
				return nil
			}
		}
	}
}

// readPOSTStream reads the SSE response of a POST until every request of
// it is answered. A stream that drops first is resumed (HT-45) when it
// carried an event id; an oversize event fails the request and is never
// resumed (RM-09).
func (c *Client) readPOSTStream(x *exchange, resp *http.Response) bool {
	st := &streamState{}
	take := func(m *jsonrpc.Message) bool {
		return !c.accept(x, resp.Header, m) || (len(x.out.requestIDs()) > 0 && len(x.awaiting) == 0)
	}
	if over, ok := c.readStream(x, resp.Body, st, take); over {
		return ok
	}
	return c.resume(x, st, take)
}

// readStream reads one SSE stream of x to its end and closes it; over says
// the exchange is done with it (ok: its responses all came), otherwise the
// stream dropped before them and may be resumed.
func (c *Client) readStream(x *exchange, body io.ReadCloser, st *streamState, take func(*jsonrpc.Message) bool) (over, ok bool) {
	err := c.consume(body, st, take)
	_ = body.Close()
	switch {
	case !x.live() || x.gaveUp:
		return true, false
	case len(x.awaiting) == 0:
		return true, true
	case c.streamFailed(x, err, st):
		return true, false
	}
	return false, false
}

// streamFailed reports, and says whether, a POST stream that ended before
// its response cannot be resumed: after an oversize event or one that is not
// JSON-RPC, without an event id, or in the 2026-07-28 era, which has no
// resumption (HT-47).
func (c *Client) streamFailed(x *exchange, err error, st *streamState) bool {
	op := x.out.op()
	switch {
	case errors.Is(err, sse.ErrEventTooLarge) && c.cfg.Mutant != mutant.ReconnectAfterOversize:
		c.failLive(x, causedBy(failure.ErrProtocol, op, "the SSE stream is not resumed after an oversize event (RM-09)", err))
	case errors.Is(err, errBadEventData):
		c.failLive(x, failure.Wrap(failure.ErrProtocol, op, err))
	case x.modern && c.cfg.Mutant != mutant.ModernStreamResumed:
		c.failLive(x, failure.New(failure.ErrConnection, op,
			"the response stream broke before the response; 2026-07-28 has no resumption, so the request is lost (HT-47): send it again as a new request"))
	case len(st.lastID) == 0:
		c.failLive(x, failure.New(failure.ErrConnection, op, "the SSE stream ended before the response, and no event carried an id to resume from (HT-45)"))
	default:
		return false
	}
	return true
}

// resume reconnects a dropped POST stream with GET and Last-Event-ID after
// the retry delay, up to Retry.MaxAttempts times in a row without a message
// (HT-45, HT-29b), until the response arrives.
func (c *Client) resume(x *exchange, st *streamState, take func(*jsonrpc.Message) bool) bool {
	op := x.out.op()
	for attempts := 0; attempts < c.cfg.Retry.MaxAttempts; attempts++ {
		if !sleep(x.ctx, c.retryDelay(st)) {
			return false
		}
		resp, err := c.get(x.ctx, x.sess, string(st.lastID))
		if err != nil {
			continue
		}
		if !isSSE(resp) {
			c.failLive(x, statusFailure(op+" (resuming with GET and Last-Event-ID)", resp))
			_ = resp.Body.Close()
			return false
		}
		st.delivered = false
		if over, ok := c.readStream(x, resp.Body, st, take); over {
			return ok
		}
		if st.delivered {
			attempts = -1 // a message came: the count starts again
		}
	}
	c.failLive(x, failure.New(failure.ErrConnection, op, fmt.Sprintf(
		"the SSE stream dropped before the response and %d reconnection(s) with Last-Event-ID did not bring it (HT-45); raise Retry.MaxAttempts to try longer",
		c.cfg.Retry.MaxAttempts)))
	return false
}

// retryDelay is the wait before a reconnection: the server's retry field,
// else Retry.Delay (HT-29b).
func (c *Client) retryDelay(st *streamState) time.Duration {
	switch {
	case c.cfg.Mutant == mutant.IgnoreRetryField:
		return 0
	case st.hasRetry:
		return st.retry
	}
	return c.cfg.Retry.Delay
}

// get sends a GET for an SSE stream of sess, resuming after lastID when it
// is set (HT-30g, HT-45). The caller closes the body.
func (c *Client) get(ctx context.Context, sess *session, lastID string) (*http.Response, error) {
	req, err := c.newRequest(ctx, http.MethodGet, nil, sess)
	if err != nil {
		return nil, err
	}
	if lastID != "" && c.cfg.Mutant != mutant.NoLastEventID {
		req.Header.Set(headerLastEventID, lastID)
	}
	return c.hc.Do(req)
}

// isSSE reports whether resp opens an SSE stream.
func isSSE(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return resp.StatusCode == http.StatusOK && mt == mcp.ContentTypeSSE
}

// openGETStream opens sess's server→client stream once, if it is still the
// current session (HT-30g).
func (c *Client) openGETStream(sess *session) {
	if !c.cfg.OpenGETStream || c.cfg.Mutant == mutant.NoGETStream {
		c.markStreamReady()
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if sess.getOpened || c.sess != sess {
		c.markStreamReady()
		return
	}
	sess.getOpened = true
	ctx, cancel := context.WithCancel(c.ctx)
	sess.stopGET = cancel
	if !c.spawnLocked(func() { c.runGETStream(ctx, sess) }) {
		cancel()
	}
}

// stopGETStream ends sess's GET stream, if it has one.
func (c *Client) stopGETStream(sess *session) {
	c.mu.Lock()
	stop := sess.stopGET
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// runGETStream reads the GET stream and delivers its messages. A server
// that offers none answers 405 (HT-31g), which ends it quietly. When the
// stream drops after an event with an id it is resumed with Last-Event-ID
// as a POST stream is (HT-34g, HT-45); never after an oversize event
// (RM-09).
func (c *Client) runGETStream(ctx context.Context, sess *session) {
	defer c.stopGETStream(sess)
	st := &streamState{}
	take := func(m *jsonrpc.Message) bool { return !c.deliver(m) }
	for attempts := 0; ; attempts++ {
		resp, err := c.get(ctx, sess, string(st.lastID))
		c.markStreamReady()
		if err == nil {
			if !isSSE(resp) {
				_ = resp.Body.Close()
				return
			}
			st.delivered = false
			err = c.consume(resp.Body, st, take)
			_ = resp.Body.Close()
			if errors.Is(err, errBadEventData) || errors.Is(err, sse.ErrEventTooLarge) && c.cfg.Mutant != mutant.ReconnectAfterOversize {
				return
			}
		}
		if st.delivered {
			attempts = 0
		}
		if ctx.Err() != nil || len(st.lastID) == 0 || attempts >= c.cfg.Retry.MaxAttempts || !sleep(ctx, c.retryDelay(st)) {
			return
		}
	}
}
